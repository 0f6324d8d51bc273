extension CoreDataBinding {
    /// A to-one key column of a view, with what writing it also writes in the store.
    struct KeyColumn {
        /// The Core Data table holding the key.
        var source: String
        var view: String
        var store: String
        /// `Z<n>_<NAME>`: the destination row's `Z_ENT`, where the store has it.
        var companion: String?
        /// The destination's Core Data table.
        var destination: String
        /// The other side of a one-to-one (Core Data keeps a key on both sides): its column in
        /// the destination's table, and that column's `Z<n>_` companion.
        var partner: (column: String, companion: String?)?
    }

    /// How one table of the runtime's layout maps onto its root's Core Data table.
    struct TablePlan {
        var table: CoreDataHierarchy.Table
        var store: String
        var exists: Bool
        var select: [String]
        var plain: [(view: String, store: String)]
        var keys: [KeyColumn]
        var positions: [(view: String, store: String)]
    }

    /// Maps the columns of one table of the runtime's layout onto its root's Core Data table.
    mutating func planEntityTable(_ table: CoreDataHierarchy.Table) -> TablePlan {
        let store = table.storeName
        let exists = storeTables[store.uppercased()] != nil
        if !exists { mismatches.append("the store has no table \(store) for entity \(table.root.name)") }
        explain(store, ["Z_PK", "Z_ENT", "Z_OPT"])
        var columns: [String] = []
        for entity in table.entities {
            for column in entity.columns where !columns.contains(column) { columns.append(column) }
        }
        var plain: [(view: String, store: String)] = []
        var keys: [KeyColumn] = []
        var positions: [(view: String, store: String)] = []
        var select = [
            "Z_PK AS \"_pk\"", "CASE Z_ENT" + cases(table.entities, from: .number) + " END AS \"_entity\"",
            "Z_OPT AS \"_version\"",
        ]
        let names = Self.storeColumnNames(table)
        for column in columns {
            let found: String?
            switch meaning(of: column, in: table) {
            case .attribute(let attribute):
                found =
                    self.column(store, matching: Self.literal(names[column] ?? Self.storeName(attribute.name)))
                    ?? renamedColumn(attribute, store, table, names)
                if let found, let declared = declaredType(store, found), !Self.holds(declared, attribute) {
                    mismatches.append(
                        "the store's column \(store).\(found) is \(declared), not the \(attribute.type) of \(attribute.name)"
                    )
                    select.append("NULL AS \(Self.quoted(column))")
                    continue
                }
                if let found {
                    plain.append((column, found))
                    explain(store, [found])
                }
            case .key(let relationship, let destination):
                found = self.column(store, matching: Self.literal(names[column] ?? Self.storeName(relationship.name)))
                if let found {
                    keys.append(keyColumn(column, found, relationship, destination, store: store))
                }
            case .position(let inverseKey, let inverseName):
                let key = String((names[inverseKey] ?? Self.storeName(inverseName)).dropFirst())
                found = self.column(store, matching: "Z_FOK_" + Self.literal(key))
                if let found {
                    positions.append((column, found))
                    explain(store, [found])
                }
            case nil:
                mismatches.append("column \(column) of \(table.name) has no place in Core Data's layout")
                found = nil
            }
            if found == nil, exists { mismatches.append("the store's table \(store) has no column for \(column)") }
            select.append("\(found.map(Self.quoted) ?? "NULL") AS \(Self.quoted(column))")
        }
        explainOtherSidesOfOneToOnes(table, store)
        return TablePlan(
            table: table, store: store, exists: exists, select: select, plain: plain, keys: keys, positions: positions)
    }

    /// The view of a table and its triggers; `incoming`: the keys of every table, for those that
    /// lead into this one (a row inserted after a key to it was written completes that key's
    /// entity column and one-to-one partner).
    mutating func bindEntityTable(_ plan: TablePlan, incoming: [KeyColumn]) {
        let (table, store, exists, select) = (plan.table, plan.store, plan.exists, plan.select)
        let (plain, keys, positions) = (plan.plain, plan.keys, plan.positions)
        let numbers = table.entities.compactMap { hierarchy.number[$0.entityID] }.map(String.init)
        let source =
            exists
            ? "FROM main.\(Self.quoted(store)) WHERE Z_ENT IN (\(numbers.joined(separator: ", ")))" : "WHERE 0"
        let view = Self.quoted(table.name)
        // Without the store's table the view is empty, and its columns name nothing.
        let columns = exists ? select : select.map { "NULL AS " + $0.components(separatedBy: " AS ").last! }
        statements.append("CREATE TEMP VIEW \(view) AS SELECT \(columns.joined(separator: ", ")) \(source)")
        guard exists else { return }
        let rootNumber = hierarchy.number[table.root.entityID]!
        keyQueries[table.name] =
            "SELECT max(coalesce((SELECT max(Z_MAX) FROM main.Z_PRIMARYKEY WHERE Z_ENT = \(rootNumber)), 0), "
            + "coalesce((SELECT max(Z_PK) FROM main.\(Self.quoted(store))), 0))"
        let entityNumber = "CASE NEW.\"_entity\"" + cases(table.entities, from: .code) + " END"
        let arriving = incoming.filter { $0.destination.uppercased() == store.uppercased() }
        statements.append(
            insertTrigger(
                table, store, plain, keys, positions, arriving: arriving, entityNumber: entityNumber, root: rootNumber))
        statements.append(updateTrigger(view, store, plain, keys, entityNumber: entityNumber))
        for (column, stored) in positions {
            statements.append(
                "CREATE TEMP TRIGGER \(Self.quoted(table.name + "_modelgen_" + column)) INSTEAD OF UPDATE OF \(Self.quoted(column)) ON \(view) BEGIN "
                    + "UPDATE \(Self.quoted(store)) SET \(Self.quoted(stored)) = \(Self.position("NEW." + Self.quoted(column))) WHERE Z_PK = OLD.\"_pk\"; END"
            )
        }
        var delete = "SELECT modelgen_row(); DELETE FROM \(Self.quoted(store)) WHERE Z_PK = OLD.\"_pk\";"
        for key in keys {
            if let partner = key.partner { delete += Self.clear(partner, in: key.destination, where: "OLD.\"_pk\"") }
        }
        statements.append(
            "CREATE TEMP TRIGGER \(Self.quoted(table.name + "_modelgen_delete")) INSTEAD OF DELETE ON \(view) BEGIN \(delete) END"
        )
    }

    /// What a column of the runtime's table stores.
    enum Meaning {
        case attribute(AttributeDescription)
        case key(RelationshipDescription, destination: EntityDescription)
        /// The positions of an ordered to-many whose inverse's key is this table's runtime column
        /// `inverseKey`.
        case position(inverseKey: String, inverseName: String)
    }

    /// The store column Core Data gives each attribute and to-one key column of `table` (by the
    /// runtime's column): `Z<NAME>`, and where a sibling sub-entity earlier in `Z_ENT` order took
    /// that name, `Z<NAME>1`, `Z<NAME>2`, … — handed out walking the entities in pre-order, each
    /// entity's attributes before its relationships (STORE-LAYOUT R5 extended; inferred from
    /// stores of framework versions that suffix a later sibling's column, see Design.md).
    static func storeColumnNames(_ table: CoreDataHierarchy.Table) -> [String: String] {
        var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        var names: [String: String] = [:]
        func assign(_ column: String, _ name: String) {
            guard names[column] == nil else { return }
            var chosen = storeName(name)
            if taken.contains(chosen) {
                var suffix = 1
                while taken.contains(chosen + String(suffix)) { suffix += 1 }
                chosen += String(suffix)
            }
            taken.insert(chosen)
            names[column] = chosen
        }
        for entity in table.entities {
            for attribute in entity.attributes { assign(attribute.column, attribute.name) }
            for relationship in entity.relationships {
                if let key = relationship.foreignKeyColumn { assign(key, relationship.name) }
            }
        }
        return names
    }

    /// The column an earlier version's name for `attribute` (its renaming identifier) gives it,
    /// where the store has no column under its own name: a store written before the rename. Not
    /// when that name is still another property's of the table (whose column it then is).
    func renamedColumn(
        _ attribute: AttributeDescription, _ store: String, _ table: CoreDataHierarchy.Table, _ names: [String: String]
    ) -> String? {
        guard let old = attribute.renamingIdentifier else { return nil }
        let name = Self.storeName(old)
        let current = table.entities.flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) }
        guard !current.contains(where: { Self.storeName($0) == name }), !names.values.contains(name) else { return nil }
        return column(store, matching: Self.literal(name))
    }

    /// The declared type of a store column (upper-cased), where the store declares one.
    func declaredType(_ table: String, _ column: String) -> String? {
        storeTypes[table.uppercased()]?[column.uppercased()].flatMap { $0.isEmpty ? nil : $0.uppercased() }
    }

    /// Whether a column Core Data declared `declared` holds values of `attribute`'s type (R5's
    /// declared types); another version may have changed an attribute's type, and its values are
    /// then not the model's to read.
    static func holds(_ declared: String, _ attribute: AttributeDescription) -> Bool {
        if attribute.conversion != nil { return true }
        switch attribute.type {
        case .int16, .int32, .int64, .bool: return declared == "INTEGER"
        case .double, .float: return declared == "FLOAT"
        case .date: return declared == "TIMESTAMP"
        case .decimal: return declared == "DECIMAL"
        case .string, .url: return declared == "VARCHAR"
        case .data, .uuid: return declared == "BLOB"
        }
    }

    func meaning(of column: String, in table: CoreDataHierarchy.Table) -> Meaning? {
        for entity in table.entities {
            if let attribute = entity.attributes.first(where: { $0.column == column }) {
                return .attribute(attribute)
            }
            for relationship in entity.relationships where relationship.foreignKeyColumn == column {
                guard let destination = hierarchy.byID[relationship.destinationEntityID] else { return nil }
                return .key(relationship, destination: destination)
            }
        }
        let ids = Set(table.entities.map(\.entityID))
        for entity in model.entities {
            for relationship in entity.relationships where ids.contains(relationship.destinationEntityID) {
                guard case .inverseForeignKey(_, let position?) = relationship.storage, position == column,
                    let inverse = relationship.inverse,
                    let destination = hierarchy.byID[relationship.destinationEntityID],
                    inverse < destination.relationships.count
                else { continue }
                guard let key = destination.relationships[inverse].foreignKeyColumn else { continue }
                return .position(inverseKey: key, inverseName: destination.relationships[inverse].name)
            }
        }
        return nil
    }

    private mutating func keyColumn(
        _ view: String, _ stored: String, _ relationship: RelationshipDescription, _ destination: EntityDescription,
        store: String
    ) -> KeyColumn {
        let destinationTable = hierarchy.table(of: destination.entityID)?.storeName ?? Self.storeName(destination.name)
        let entityColumn = "Z[0-9]+_" + Self.literal(relationship.name)
        let companion = column(store, matching: entityColumn)
        explain(store, [stored] + (companion.map { [$0] } ?? []))
        var partner: (String, String?)?
        if let inverse = relationship.inverse, inverse < destination.relationships.count,
            !destination.relationships[inverse].isToMany
        {
            let name = destination.relationships[inverse].name
            if let column = column(destinationTable, matching: Self.literal(Self.storeName(name))) {
                partner = (column, self.column(destinationTable, matching: "Z[0-9]+_" + Self.literal(name)))
            }
        }
        return KeyColumn(
            source: store, view: view, store: stored, companion: companion, destination: destinationTable,
            partner: partner)
    }

    /// The non-owning side of a one-to-one keeps a key too (R6), which the runtime does not read:
    /// the triggers of the owner's table write it.
    private mutating func explainOtherSidesOfOneToOnes(_ table: CoreDataHierarchy.Table, _ store: String) {
        for entity in table.entities {
            for relationship in entity.relationships where !relationship.isToMany {
                guard case .inverseForeignKey(_, nil) = relationship.storage else { continue }
                if let found = column(store, matching: Self.literal(Self.storeName(relationship.name))) {
                    explain(store, [found])
                }
                if let found = column(store, matching: "Z[0-9]+_" + Self.literal(relationship.name)) {
                    explain(store, [found])
                }
            }
        }
    }

    /// ` WHEN <Core Data number> THEN <runtime number>` per entity (or the other way round).
    func cases(_ entities: [EntityDescription], from direction: CaseDirection) -> String {
        entities.map { entity in
            let number = hierarchy.number[entity.entityID]!
            return direction == .number
                ? " WHEN \(number) THEN \(entity.entityID)" : " WHEN \(entity.entityID) THEN \(number)"
        }.joined()
    }

    enum CaseDirection { case number, code }

    /// Core Data's position for the runtime's 0-based `index`: 2048, then 1024 apart.
    static func position(_ index: String) -> String {
        "CASE WHEN \(index) IS NULL THEN NULL ELSE 2048 + 1024 * \(index) END"
    }

    /// Clears the other side of a one-to-one in `table` where it holds `key`.
    static func clear(_ partner: (column: String, companion: String?), in table: String, where key: String) -> String {
        let companion = partner.companion.map { ", \(quoted($0)) = NULL" } ?? ""
        return
            " UPDATE \(quoted(table)) SET \(quoted(partner.column)) = NULL\(companion) WHERE \(quoted(partner.column)) = \(key);"
    }

    private func insertTrigger(
        _ table: CoreDataHierarchy.Table, _ store: String, _ plain: [(view: String, store: String)],
        _ keys: [KeyColumn],
        _ positions: [(view: String, store: String)], arriving: [KeyColumn], entityNumber: String, root: Int
    ) -> String {
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values = ["NEW.\"_pk\"", entityNumber, "coalesce(NEW.\"_version\", 1)"]
        for (view, stored) in plain {
            columns.append(Self.quoted(stored))
            values.append("NEW." + Self.quoted(view))
        }
        for key in keys {
            columns.append(Self.quoted(key.store))
            values.append("NEW." + Self.quoted(key.view))
            if let companion = key.companion {
                columns.append(Self.quoted(companion))
                values.append(Self.entityOf("NEW." + Self.quoted(key.view), in: key.destination))
            }
        }
        for (view, stored) in positions {
            columns.append(Self.quoted(stored))
            values.append(Self.position("NEW." + Self.quoted(view)))
        }
        var body =
            "SELECT modelgen_row(); INSERT INTO \(Self.quoted(store)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")));"
            + " UPDATE Z_PRIMARYKEY SET Z_MAX = max(coalesce(Z_MAX, 0), NEW.\"_pk\") WHERE Z_ENT = \(root);"
        for key in keys { if let partner = key.partner { body += Self.link(partner, key, entityNumber: entityNumber) } }
        // Keys written to this row before it existed (the runtime updates rows before it inserts).
        for key in arriving {
            let pointing = "FROM \(Self.quoted(key.source)) WHERE \(Self.quoted(key.store)) = NEW.\"_pk\""
            if let companion = key.companion {
                body +=
                    " UPDATE \(Self.quoted(key.source)) SET \(Self.quoted(companion)) = \(entityNumber) WHERE \(Self.quoted(key.store)) = NEW.\"_pk\";"
            }
            if let partner = key.partner {
                let partnerCompanion =
                    partner.companion.map { ", \(Self.quoted($0)) = (SELECT Z_ENT \(pointing) LIMIT 1)" } ?? ""
                body +=
                    " UPDATE \(Self.quoted(store)) SET \(Self.quoted(partner.column)) = (SELECT Z_PK \(pointing) LIMIT 1)\(partnerCompanion) WHERE Z_PK = NEW.\"_pk\" AND EXISTS (SELECT 1 \(pointing));"
            }
        }
        return
            "CREATE TEMP TRIGGER \(Self.quoted(table.name + "_modelgen_insert")) INSTEAD OF INSERT ON \(Self.quoted(table.name)) BEGIN \(body) END"
    }

    private func updateTrigger(
        _ view: String, _ store: String, _ plain: [(view: String, store: String)], _ keys: [KeyColumn],
        entityNumber: String
    ) -> String {
        var assignments = ["Z_OPT = NEW.\"_version\""]
        for (column, stored) in plain { assignments.append("\(Self.quoted(stored)) = NEW.\(Self.quoted(column))") }
        for key in keys {
            assignments.append("\(Self.quoted(key.store)) = NEW.\(Self.quoted(key.view))")
            if let companion = key.companion {
                assignments.append(
                    "\(Self.quoted(companion)) = \(Self.entityOf("NEW." + Self.quoted(key.view), in: key.destination))")
            }
        }
        var body =
            "SELECT modelgen_row(); UPDATE \(Self.quoted(store)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = OLD.\"_pk\";"
        for key in keys {
            guard let partner = key.partner else { continue }
            let changed = "NEW.\(Self.quoted(key.view)) IS NOT OLD.\(Self.quoted(key.view))"
            let companion = partner.companion.map { ", \(Self.quoted($0)) = NULL" } ?? ""
            body +=
                " UPDATE \(Self.quoted(key.destination)) SET \(Self.quoted(partner.column)) = NULL\(companion) WHERE \(Self.quoted(partner.column)) = OLD.\"_pk\" AND \(changed);"
            body += Self.link(partner, key, entityNumber: entityNumber, when: changed)
        }
        return
            "CREATE TEMP TRIGGER \(Self.quoted(String(view.dropFirst().dropLast()) + "_modelgen_update")) INSTEAD OF UPDATE ON \(view) BEGIN \(body) END"
    }

    /// Points the other side of a one-to-one at the new row.
    private static func link(
        _ partner: (column: String, companion: String?), _ key: KeyColumn, entityNumber: String, when: String = "1"
    ) -> String {
        let companion = partner.companion.map { ", \(quoted($0)) = \(entityNumber)" } ?? ""
        return
            " UPDATE \(quoted(key.destination)) SET \(quoted(partner.column)) = NEW.\"_pk\"\(companion) WHERE Z_PK = NEW.\(quoted(key.view)) AND \(when);"
    }

    /// The `Z_ENT` of the row of `table` whose `Z_PK` is `key` (NULL for none).
    static func entityOf(_ key: String, in table: String) -> String {
        "(SELECT Z_ENT FROM main.\(quoted(table)) WHERE Z_PK = \(key))"
    }

    /// Notes columns of a store table that the binding accounts for.
    mutating func explain(_ table: String, _ columns: [String]) {
        explained[table.uppercased(), default: []].formUnion(columns.map { $0.uppercased() })
    }
}
