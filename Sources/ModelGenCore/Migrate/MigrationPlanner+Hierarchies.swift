/// Plan: rows that change hierarchy table (new parents, split and merged hierarchies).
extension MigrationPlanner {
    /// Rows change hierarchy table when entities change root. A table whose entities all come
    /// from one old table that keeps no identity of its own in the new schema (a new parent entity
    /// above existing rows) continues that table; rows of two old tables meeting in one (merging
    /// hierarchies) would need new primary keys and every key pointing at them rewritten: refused.
    func planHierarchies(_ oldIDs: SchemaIdentities, _ newIDs: inout SchemaIdentities, _ plan: inout MigrationPlan) {
        var oldTables: [String: String] = [:]  // entity identity → old table
        for mapping in plan.oldSchema.entities { oldTables[oldIDs.entity(mapping.entity)] = mapping.table }
        let oldByIdentity = Dictionary(
            plan.oldSchema.tables.filter { $0.kind == .entity }.map { (oldIDs.tables[$0.name]!, $0.name) },
            uniquingKeysWith: { first, _ in first })
        let newIdentities = Set(plan.newSchema.tables.compactMap { newIDs.tables[$0.name] })
        // Old table → the new tables that would continue it.
        var continuations: [String: [(table: String, identity: String)]] = [:]
        // (Old table that goes on, new table of rows leaving it.)
        var leaving: [(String, String)] = []
        for table in plan.newSchema.tables where table.kind == .entity {
            let identity = newIDs.tables[table.name]!
            var origins = Set(newIDs.mappings(table.name).compactMap { oldTables[newIDs.entity($0.entity)] })
            let own = oldByIdentity[identity]
            if let own { origins.insert(own) }
            if origins.count > 1 {
                plan.steps.append(
                    .init(
                        code: .mergeHierarchies, safety: .refused, subject: table.name,
                        message:
                            "rows of the tables \(origins.sorted().joined(separator: ", ")) would share \(table.name); their primary keys and every key pointing at them would change"
                    ))
            } else if own == nil, let origin = origins.first, let originIdentity = oldIDs.tables[origin] {
                if newIdentities.contains(originIdentity) {
                    // Sub-entities that became a root of their own: their rows leave a table that goes on.
                    leaving.append((origin, table.name))
                } else {
                    continuations[origin, default: []].append((table.name, originIdentity))
                }
            }
        }
        // One new table for an old table that lost its identity continues it; several (a root
        // removed above its sub-entities) split its rows between them.
        for (origin, tables) in continuations.sorted(by: { $0.key < $1.key }) where tables.count == 1 {
            newIDs.alias(tables[0].table, as: tables[0].identity)
            plan.steps.append(
                .init(
                    code: .addParentEntity, safety: .safe, subject: tables[0].table,
                    message: "the rows of \(origin) now belong to the hierarchy of \(tables[0].table)"))
        }
        for (origin, tables) in continuations.sorted(by: { $0.key < $1.key }) where tables.count > 1 {
            for table in tables { planRowCopy(from: origin, to: table.table, oldIDs, &newIDs, &plan) }
        }
        // Keys that still point into the old table must not point at a leaving row (PostgreSQL
        // would apply their ON DELETE action): a preflight stops the migration when one does.
        for (origin, table) in leaving {
            guard let copy = planRowCopy(from: origin, to: table, oldIDs, &newIDs, &plan) else { continue }
            plan.steps += Self.keys(
                into: origin, rows: copy.entities.keys.sorted(), except: table, code: .keyToLeavingRow,
                "moving from \(origin) into \(table)",
                oldIDs, newIDs, plan)
        }
    }

    /// A data-dependent step for each key column that points at `source` and still points there
    /// (not at `except`) in the new schema, whose preflight counts the keys set to rows of the
    /// entities `rows` (rows that leave the table or are dropped).
    static func keys(
        into source: String, rows: [Int64], except target: String?, code: MigrationPlan.Step.Code, _ what: String,
        _ oldIDs: SchemaIdentities,
        _ newIDs: SchemaIdentities, _ plan: MigrationPlan
    ) -> [MigrationPlan.Step] {
        var steps: [MigrationPlan.Step] = []
        for table in plan.oldSchema.tables where table.kind != .metadata {
            let newTable = plan.newSchema.tables.first { newIDs.tables[$0.name] == oldIDs.tables[table.name] }
            for key in table.foreignKeys where key.referencedTable == source && key.columns.count == 1 {
                let column = table.columns.first { $0.name == key.columns[0] }
                // The same column in the new schema, and where its key points there.
                let identity = column.map(oldIDs.column)
                let newColumn = newTable.flatMap { newTable in newTable.columns.first { newIDs.column($0) == identity }
                }
                let newKey = newTable.flatMap { newTable in
                    newTable.foreignKeys.first { $0.columns == newColumn.map { [$0.name] } }
                }
                guard let newKey, newKey.referencedTable != target else { continue }
                let subject = "\(table.name).\(key.columns[0])"
                steps.append(
                    .init(
                        code: code, safety: .dataDependent, subject: subject,
                        message: "\(subject) must not point at rows \(what)",
                        preflight: .keysInto(table: table.name, column: key.columns[0], source: source, entityIDs: rows)
                    ))
            }
        }
        return steps
    }

    /// The rows of the entities of new table `target` that are in old table `source`, moved there
    /// with their keys and the values of every column the two tables share (by identity and type).
    @discardableResult
    func planRowCopy(
        from source: String, to target: String, _ oldIDs: SchemaIdentities, _ newIDs: inout SchemaIdentities,
        _ plan: inout MigrationPlan
    ) -> MigrationPlan.RowCopy? {
        guard let old = plan.oldSchema.tables.first(where: { $0.name == source }),
            let new = plan.newSchema.tables.first(where: { $0.name == target }), let identity = oldIDs.tables[source]
        else { return nil }
        var entities: [Int64: Int64] = [:]
        for mapping in newIDs.mappings(target) {
            let wanted = newIDs.entity(mapping.entity)
            if let previous = oldIDs.mappings(source).first(where: { oldIDs.entity($0.entity) == wanted }) {
                entities[Int64(previous.entityID)] = Int64(mapping.entityID)
            }
        }
        guard !entities.isEmpty else { return nil }
        var oldColumns: [String: Column] = [:]
        for (column, columnIdentity) in zip(old.columns, oldIDs.columns(old)) { oldColumns[columnIdentity] = column }
        let oldDeclared = oldIDs.columnsByDeclaration(old)
        var columns: [String: String] = [:]
        var missing: [String] = []
        for (column, columnIdentity) in zip(new.columns, newIDs.columns(new)) {
            if let previous = oldColumns[columnIdentity] ?? oldDeclared[newIDs.declaredColumn(column)],
                previous.type == column.type
            {
                columns[column.name] = previous.name
                continue
            }
            let requiredHere = new.checks.contains { check in
                if case .requiredFor(column.name, let ids) = check.condition {
                    return !Set(ids).isDisjoint(with: entities.values)
                }
                return false
            }
            if (!column.isNullable && column.defaultValue == nil) || requiredHere { missing.append(column.name) }
        }
        guard missing.isEmpty else {
            plan.steps.append(
                .init(
                    code: .splitHierarchy, safety: .refused, subject: target,
                    message:
                        "rows moving from \(source) into \(target) have no values for \(missing.joined(separator: ", "))"
                ))
            return nil
        }
        newIDs.derive(target, from: identity)
        let copy = MigrationPlan.RowCopy(from: source, to: target, entities: entities, columns: columns)
        plan.rowCopies.append(copy)
        return copy
    }
}

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let addParentEntity: Self = "add-parent-entity"
    static let keyToLeavingRow: Self = "key-to-leaving-row"
    static let mergeHierarchies: Self = "merge-hierarchies"
}
