import Foundation

/// How the runtime reads and writes a store Core Data wrote (`Z` tables, STORE-LAYOUT.md): each
/// table of the runtime's own layout — what the generated `EntityDescription`s name — becomes a
/// temporary view over the store's tables, bound by name to the columns the store has, and each
/// view's `INSTEAD OF` triggers write Core Data's bookkeeping with every change: `Z_PRIMARYKEY.Z_MAX`
/// advanced on insert, `Z_ENT` of the concrete entity, `Z_OPT` as the row's version, the `Z<n>_`
/// entity column of a to-one, the other side of a one-to-one, `Z_FOK_` positions in Core Data's
/// scheme (2048, then 1024 apart). Everything the runtime does on its own layout then works on
/// the store, in the runtime's transactions, and nothing is added to the file: the views and
/// triggers live in the connection's temporary schema.
///
/// Rows whose `Z_ENT` is no entity of their table are not in the views (they are reported as
/// anomalies by `CoreDataStoreInspection`); new row numbers are above both `Z_MAX` and the
/// table's largest `Z_PK`.
struct CoreDataBinding {
    /// The statements that make the views and triggers.
    var statements: [String] = []
    /// Per view of an entity table, the query of the largest row number in use.
    var keyQueries: [String: String] = [:]
    /// Where the store and the model disagree (missing or unexplained tables and columns, other
    /// entities): a store of another model version.
    var mismatches: [String] = []
    /// Entities whose `Z_PRIMARYKEY.Z_NAME` is not their name (kept by Core Data after a rename).
    var staleNames: [CoreDataStoreReport.Anomaly] = []
    /// The store's columns the binding accounts for, by upper-cased table name.
    var explained: [String: Set<String>] = [:]

    /// The store's tables (upper-cased name → columns as declared, in order).
    let storeTables: [String: [String]]
    /// The declared type of each column of the store's tables (upper-cased table and column).
    let storeTypes: [String: [String: String]]
    let model: PersistentStore.Model
    private(set) var hierarchy: CoreDataHierarchy

    /// - Parameters:
    ///   - model: The generated code's model.
    ///   - connection: A connection to the store (or a private copy of it).
    ///   - trustsPrediction: The store's model cache shows the model's own version wrote it, so a
    ///     stale `Z_NAME` may be matched by the number the model predicts.
    /// - Throws: `.sqlite` when the store's tables cannot be read.
    init(model: PersistentStore.Model, connection: Connection, trustsPrediction: Bool) throws(DatabaseError) {
        self.model = model
        var tables: [String: [String]] = [:]
        var types: [String: [String: String]] = [:]
        for name in try CoreDataStoreInspection.strings(
            connection, "SELECT name FROM main.sqlite_master WHERE type = 'table'")
        {
            let statement = try connection.makeStatement(
                "SELECT name, type FROM pragma_table_info(\(StoreDialect.literal(name)), 'main')")
            var columns: [String] = []
            while try statement.step() {
                let column = statement.string(0)
                columns.append(column)
                types[name.uppercased(), default: [:]][column.uppercased()] =
                    statement.isNull(1) ? "" : statement.string(1)
            }
            tables[name.uppercased()] = columns
        }
        storeTables = tables
        storeTypes = types
        hierarchy = CoreDataHierarchy(model.entities)
        try numberEntitiesByName(connection, trustsPrediction: trustsPrediction)
        var plans: [TablePlan] = []
        for table in hierarchy.tables { plans.append(planEntityTable(table)) }
        let keys = plans.flatMap(\.keys)
        for plan in plans { bindEntityTable(plan, incoming: keys) }
        bindJoinTables()
        checkEveryColumnIsExplained()
    }

    /// T2: every table and column of the store is one the model accounts for (the bookkeeping
    /// tables aside).
    private mutating func checkEveryColumnIsExplained() {
        let bookkeeping: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
        for (table, columns) in storeTables.sorted(by: { $0.key < $1.key })
        where !bookkeeping.contains(table) && !table.hasPrefix("SQLITE_") {
            guard let known = explained[table] else {
                mismatches.append("the store's table \(table) is not in the model")
                continue
            }
            for column in columns where !known.contains(column.uppercased()) {
                mismatches.append("the store's column \(table).\(column) is not in the model")
            }
        }
    }

    /// `Z_PRIMARYKEY` lists the store's entities under the numbers Core Data gave them, with their
    /// parents (`Z_SUPER`). Each of the model's entities takes the number of the store's entity of
    /// its name, whatever the model alone would predict: a store of another version numbers its
    /// entities otherwise, and rows of one entity must never be read as another's. `Z_NAME` can be
    /// stale (Core Data keeps an entity's old name after a rename); only where the store's model
    /// cache shows this very version wrote it (`trustsPrediction`) does an entity whose name is
    /// missing take its predicted number, when the name there is no entity of the model. An
    /// entity the store does not have gets a number no row has (its views are empty).
    private mutating func numberEntitiesByName(
        _ connection: Connection, trustsPrediction: Bool
    ) throws(DatabaseError) {
        let statement = try connection.makeStatement("SELECT Z_ENT, Z_NAME, Z_SUPER FROM main.Z_PRIMARYKEY")
        var stored: [Int: (name: String, parent: Int)] = [:]
        while try statement.step() {
            stored[Int(statement.int64(0))] = (statement.isNull(1) ? "" : statement.string(1), Int(statement.int64(2)))
        }
        let predicted = hierarchy.number
        var byName: [String: Int] = [:]
        for (number, row) in stored.sorted(by: { $0.key < $1.key }) where byName[row.name] == nil {
            byName[row.name] = number
        }
        let modelNames = Set(model.entities.map(\.name))
        var taken: Set<Int> = []
        var number: [Int32: Int] = [:]
        for entity in model.entities {
            if let found = byName[entity.name] {
                number[entity.entityID] = found
                taken.insert(found)
            }
        }
        // A renamed entity: its renaming identifier is the name the store knows it by.
        for entity in model.entities where number[entity.entityID] == nil {
            guard let old = entity.renamingIdentifier, !modelNames.contains(old), let found = byName[old],
                !taken.contains(found)
            else { continue }
            number[entity.entityID] = found
            taken.insert(found)
            hierarchy.storeNames[entity.entityID] = old
            noteStaleName(old, found, entity)
        }
        for entity in model.entities where number[entity.entityID] == nil {
            let guess = predicted[entity.entityID]!
            if trustsPrediction, let row = stored[guess], !modelNames.contains(row.name), !taken.contains(guess) {
                number[entity.entityID] = guess
                taken.insert(guess)
                noteStaleName(row.name, guess, entity)
            } else {
                mismatches.append("the store has no entity \(entity.name) (Z_PRIMARYKEY names none so)")
                number[entity.entityID] = -Int(entity.entityID) - 1
            }
        }
        hierarchy.number = number
        for index in hierarchy.tables.indices {
            if let old = hierarchy.storeNames[hierarchy.tables[index].root.entityID] {
                hierarchy.tables[index].storeRoot = old
            }
        }
        for entity in model.entities {
            guard let own = number[entity.entityID], let row = stored[own] else { continue }
            let parent = hierarchy.parent[entity.entityID]
            let expected = parent.flatMap { number[$0] } ?? 0
            if row.parent != expected {
                let storeParent = stored[row.parent]?.name ?? "none"
                let modelParent = parent.flatMap { hierarchy.byID[$0]?.name } ?? "none"
                mismatches.append(
                    "entity \(entity.name) has parent \(storeParent) in the store, \(modelParent) in the model")
            }
        }
        for (number, row) in stored.sorted(by: { $0.key < $1.key }) where !taken.contains(number) {
            mismatches.append("the store has entity \(row.name) (number \(number)), which the model does not")
        }
    }

    /// Reports that the store's `Z_NAME` of entity `number` is not the model's name for it.
    private mutating func noteStaleName(_ stored: String, _ number: Int, _ entity: EntityDescription) {
        staleNames.append(
            .init(
                table: "Z_PRIMARYKEY", row: Int64(number),
                message: "Z_NAME is \(stored), the model's entity \(number) is \(entity.name)"))
    }

    /// The store's columns of `table` (empty when the table is missing).
    func columns(of table: String) -> [String] { storeTables[table.uppercased()] ?? [] }

    /// The store's column of `table` called `name`, or whose name is `prefix` + digits where
    /// `prefix` is `name` (join columns and entity columns whose numbers or suffixes Core Data
    /// chooses).
    func column(_ table: String, matching pattern: String) -> String? {
        columns(of: table).first { Self.matches($0, pattern) }
    }

    /// Whether a store's column name is matched, whole, by `pattern`.
    static func matches(_ column: String, _ pattern: String) -> Bool {
        column.uppercased().range(of: "^" + pattern + "$", options: .regularExpression) != nil
    }

    static func quoted(_ name: String) -> String { EntityDescription.quoted(name) }

    /// `Z` + the name upper-cased.
    static func storeName(_ name: String) -> String { "Z" + name.uppercased() }

    /// A regular expression matching `text` literally.
    static func literal(_ text: String) -> String { NSRegularExpression.escapedPattern(for: text.uppercased()) }
}

/// The model's entities as Core Data numbers them (pre-order over the hierarchies, names compared
/// case-insensitively), with their tables, parents and roots.
struct CoreDataHierarchy {
    struct Table {
        /// The runtime's table name.
        var name: String
        var root: EntityDescription
        /// The entities whose rows it holds, in pre-order.
        var entities: [EntityDescription]
        /// The root's name in the store (its renaming identifier where the store knows it so).
        var storeRoot: String
        /// The Core Data table (`Z` + the root's store name upper-cased).
        var storeName: String { CoreDataBinding.storeName(storeRoot) }
    }

    var number: [Int32: Int] = [:]
    /// Entities the store knows by their renaming identifier: that name.
    var storeNames: [Int32: String] = [:]
    var parent: [Int32: Int32] = [:]
    var byID: [Int32: EntityDescription] = [:]
    var tables: [Table] = []

    init(_ entities: [EntityDescription]) {
        for entity in entities { byID[entity.entityID] = entity }
        var children: [Int32: [EntityDescription]] = [:]
        var roots: [EntityDescription] = []
        for entity in entities {
            // The parent: of the entities whose fetches include this one, the one including fewest.
            let ancestors = entities.filter {
                $0.entityID != entity.entityID && $0.fetchedEntityIDs.contains(entity.entityID)
            }
            if let nearest = ancestors.min(by: { $0.fetchedEntityIDs.count < $1.fetchedEntityIDs.count }) {
                parent[entity.entityID] = nearest.entityID
                children[nearest.entityID, default: []].append(entity)
            } else {
                roots.append(entity)
            }
        }
        func sorted(_ list: [EntityDescription]) -> [EntityDescription] {
            list.sorted {
                let (a, b) = ($0.name.lowercased(), $1.name.lowercased())
                return a != b ? a < b : $0.name < $1.name
            }
        }
        var next = 1
        func visit(_ entity: EntityDescription, into table: inout Table) {
            number[entity.entityID] = next
            next += 1
            table.entities.append(entity)
            for child in sorted(children[entity.entityID] ?? []) { visit(child, into: &table) }
        }
        for root in sorted(roots) {
            var table = Table(name: root.table, root: root, entities: [], storeRoot: root.name)
            visit(root, into: &table)
            tables.append(table)
        }
    }

    /// The Core Data numbers of `entity` and its sub-entities.
    func numbers(fetching entity: EntityDescription) -> [Int] {
        entity.fetchedEntityIDs.compactMap { number[$0] }.sorted()
    }

    /// The table holding `entity`'s rows.
    func table(of entityID: Int32) -> Table? {
        tables.first { $0.entities.contains { $0.entityID == entityID } }
    }
}
