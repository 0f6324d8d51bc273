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
    let model: PersistentStore.Model
    let hierarchy: CoreDataHierarchy

    init(model: PersistentStore.Model, connection: Connection) throws(DatabaseError) {
        self.model = model
        var tables: [String: [String]] = [:]
        for name in try CoreDataStoreInspection.strings(
            connection, "SELECT name FROM main.sqlite_master WHERE type = 'table'")
        {
            tables[name.uppercased()] = try CoreDataStoreInspection.strings(
                connection, "SELECT name FROM pragma_table_info(\(StoreDialect.literal(name)), 'main')")
        }
        storeTables = tables
        hierarchy = CoreDataHierarchy(model.entities)
        try checkPrimaryKeys(connection)
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

    /// `Z_PRIMARYKEY` lists the model's entities under the numbers Core Data gives them, with
    /// their parents (`Z_SUPER`); `Z_NAME` may be stale (a renamed entity keeps its old name).
    private mutating func checkPrimaryKeys(_ connection: Connection) throws(DatabaseError) {
        let statement = try connection.makeStatement("SELECT Z_ENT, Z_NAME, Z_SUPER FROM main.Z_PRIMARYKEY")
        var stored: [Int: (name: String, parent: Int)] = [:]
        while try statement.step() {
            stored[Int(statement.int64(0))] = (statement.isNull(1) ? "" : statement.string(1), Int(statement.int64(2)))
        }
        for entity in model.entities {
            let number = hierarchy.number[entity.entityID]!
            let parent = hierarchy.parent[entity.entityID].map { hierarchy.number[$0]! } ?? 0
            guard let row = stored.removeValue(forKey: number) else {
                mismatches.append("entity \(entity.name) (number \(number)) is not in Z_PRIMARYKEY")
                continue
            }
            if row.parent != parent {
                mismatches.append(
                    "entity \(number) (\(entity.name)) has parent \(row.parent) in the store, \(parent) in the model")
            }
            if row.name != entity.name {
                staleNames.append(
                    .init(
                        table: "Z_PRIMARYKEY", row: Int64(number),
                        message: "Z_NAME is \(row.name), the model's entity \(number) is \(entity.name)"))
            }
        }
        for (number, row) in stored.sorted(by: { $0.key < $1.key }) {
            mismatches.append("the store has entity \(number) (\(row.name)), which the model does not")
        }
    }

    /// The store's columns of `table` (empty when the table is missing).
    func columns(of table: String) -> [String] { storeTables[table.uppercased()] ?? [] }

    /// The store's column of `table` called `name`, or whose name is `prefix` + digits where
    /// `prefix` is `name` (join columns and entity columns whose numbers or suffixes Core Data
    /// chooses).
    func column(_ table: String, matching pattern: String) -> String? {
        columns(of: table).first { $0.uppercased().range(of: "^" + pattern + "$", options: .regularExpression) != nil }
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
        /// The Core Data table (`Z` + the root's name upper-cased).
        var storeName: String { CoreDataBinding.storeName(root.name) }
    }

    var number: [Int32: Int] = [:]
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
            var table = Table(name: root.table, root: root, entities: [])
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
