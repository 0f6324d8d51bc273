extension MigrationPlanner {
    // MARK: - Columns dropped

    /// The old table's columns that nothing kept: dropped (lossy), except those of sub-entities
    /// whose rows move to a table of their own, which go with the rows. The entities whose rows leave.
    static func planDroppedColumns(
        _ old: Table, _ new: Table, _ oldIDs: SchemaIdentities, _ plan: MigrationPlan, _ changes: inout TableChanges
    ) -> Set<String> {
        let copies = plan.rowCopies.filter { $0.from == old.name }
        let movedColumns = Set(copies.flatMap(\.columns.values))
        let leavingEntities = Set(
            oldIDs.mappings(old.name).filter { mapping in
                copies.contains { $0.entities[Int64(mapping.entityID)] != nil }
            }.map(\.entity))
        for column in old.columns where !changes.kept.contains(column.name) {
            if movedColumns.contains(column.name), let declaring = column.source?.split(separator: ".").first,
                leavingEntities.contains(String(declaring))
            {
                changes.rebuild = true
                continue
            }
            if !Self.droppableInPlace(column, old, plan.oldSchema.indexes) { changes.rebuild = true }
            let code: MigrationPlan.Step.Code =
                switch column.role {
                case .attribute: .dropAttribute
                case .relationship, .join: .dropRelationship
                case .position: .dropOrder
                default: .dropColumn
                }
            var message = "column \(old.name).\(column.name) and its values are dropped"
            if let hint = Self.renameHint(dropped: column, new.columns.filter { changes.sources[$0.name] == .nothing })
            {
                message += "; " + hint
            }
            changes.steps.append(
                .init(code: code, safety: .lossy, subject: "\(old.name).\(column.name)", message: message))
        }
        return leavingEntities
    }

    // MARK: - Entity numbers

    /// The rows' `_entity` follows its entity to its new number; rows of entities that are gone
    /// are dropped, and keys to them stop the migration.
    static func planEntityNumbers(
        _ old: Table, _ new: Table, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities,
        leaving leavingEntities: Set<String>,
        _ plan: MigrationPlan, _ changes: inout TableChanges
    ) {
        let newNumbers = Dictionary(
            newIDs.mappings(new.name).map { (newIDs.entity($0.entity), Int64($0.entityID)) },
            uniquingKeysWith: { first, _ in first })
        var gone: [String] = []
        for mapping in oldIDs.mappings(old.name) {
            if let number = newNumbers[oldIDs.entity(mapping.entity)] {
                changes.numbers[Int64(mapping.entityID)] = number
            } else if !leavingEntities.contains(mapping.entity) {  // (leaving rows: the new table's step)
                gone.append(mapping.entity)
            }
        }
        let leaving = !leavingEntities.isEmpty
        if old.columns.contains(where: { $0.role == .entity }) {
            if !gone.isEmpty || leaving {
                changes.rebuild = true
                changes.keptEntities = changes.numbers.keys.sorted()
                if leaving {
                    changes.steps.append(
                        .init(
                            code: .splitHierarchy, safety: .rewrite, subject: new.name,
                            message: "rows of sub-entities that became roots leave \(old.name) for tables of their own")
                    )
                }
                for entity in gone.sorted() {
                    changes.steps.append(
                        .init(
                            code: .dropSubEntity, safety: .lossy, subject: new.name,
                            message: "rows of \(entity) in \(old.name) are dropped"))
                }
                // Keys to the dropped rows would be left dangling (SQLite) or nulled or cascaded
                // (PostgreSQL): both engines stop alike when one is set.
                let goneIDs = oldIDs.mappings(old.name).filter { gone.contains($0.entity) }.map { Int64($0.entityID) }
                if !goneIDs.isEmpty {
                    changes.steps += Self.keys(
                        into: old.name, rows: goneIDs.sorted(), except: nil, code: .keyToDroppedRow,
                        "of entities that are dropped", oldIDs, newIDs, plan)
                }
            }
            if changes.numbers.contains(where: { $0.key != $0.value }) {
                changes.rebuild = true
                changes.sources["_entity"] = .renumbered("_entity", changes.numbers)
                changes.steps.append(
                    .init(
                        code: .renumberEntities, safety: .rewrite, subject: new.name,
                        message: "\(new.name)'s entity numbers change"))
            }
        }
    }

    // MARK: - Constraints

    /// Keys and checks: new ones that stored rows may break are data-dependent; removed or relaxed
    /// ones, and renamed constraints SQLite cannot rename, rebuild the table.
    static func planConstraints(
        _ old: Table, _ new: Table, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities,
        _ changes: inout TableChanges
    ) {
        // Constraints, the old table's under the new column names. Those of new columns alone
        // hold for the rows copied (NULL or the default), so only the others can stop the copy.
        let sources = changes.sources
        let renamed = { (name: String) in sources.first { $0.value == .column(name) }?.key ?? name }
        let added = Set(
            new.columns.filter { column in
                switch sources[column.name] {
                case .nothing?, .value?, .generated?: true
                default: false
                }
            }.map(\.name))
        // Keys compared by columns and the identity of the table they point at; what happens on
        // delete is a separate, data-independent change.
        let oldKeys = Set(
            old.foreignKeys.map { key in
                "\(key.columns.map(renamed))->\(oldIDs.tables[key.referencedTable] ?? key.referencedTable)\(key.referencedColumns)"
            })
        let newKeys = Set(
            new.foreignKeys.filter { !Set($0.columns).isSubset(of: added) }.map { key in
                "\(key.columns)->\(newIDs.referenceIdentity(key.referencedTable))\(key.referencedColumns)"
            })
        let oldActions = Set(
            old.foreignKeys.map { "\($0.columns.map(renamed)) \($0.onDelete.rawValue) \($0.isDeferred)" })
        let newActions = Set(
            new.foreignKeys.filter { !Set($0.columns).isSubset(of: added) }.map {
                "\($0.columns) \($0.onDelete.rawValue) \($0.isDeferred)"
            })
        if !newActions.isSubset(of: oldActions) && newKeys.isSubset(of: oldKeys) {
            changes.rebuild = true
            changes.steps.append(
                .init(
                    code: .changeDeletionRule, safety: .rewrite, subject: new.name,
                    message: "\(new.name)'s keys act differently on delete"))
        }
        let oldChecks = Set(
            old.checks.map { $0.condition.renamingColumn(renamed).renumberingEntities(changes.numbers) }.filter {
                !Self.isWidened($0, changes.convertedExactly)
            }.map { "\($0)" })
        let oldConditions = old.checks.map { $0.condition.renamingColumn(renamed).renumberingEntities(changes.numbers) }
        let newChecks = Set(
            new.checks.map(\.condition).filter { condition in
                !added.contains(condition.column) && !Self.isWidened(condition, changes.convertedExactly)
                    && !Self.isWidening(condition, of: oldConditions)
            }.map { "\($0)" })
        // A join table's key is its pair of columns in either order (the owning side decides it).
        let samePrimaryKey =
            new.kind == .join
            ? Set(old.primaryKey.map(renamed)) == Set(new.primaryKey) : old.primaryKey.map(renamed) == new.primaryKey
        if !newKeys.isSubset(of: oldKeys) || !newChecks.isSubset(of: oldChecks) || !samePrimaryKey {
            changes.rebuild = true
            changes.steps.append(
                .init(
                    code: .changeConstraints, safety: .dataDependent, subject: new.name,
                    message:
                        "\(new.name) gets new constraints on stored values; rows that break them stop the migration"))
        } else if oldKeys != newKeys
            || oldChecks != Set(new.checks.filter { !added.contains($0.condition.column) }.map { "\($0.condition)" })
        {
            // Only removed or relaxed constraints, or constraints on new columns.
            changes.rebuild = true
            if !changes.steps.contains(where: { $0.code == .addColumn || $0.code == .addRequiredColumn }) {
                changes.steps.append(
                    .init(
                        code: .relaxConstraints, safety: .rewrite, subject: new.name,
                        message: "\(new.name) loses constraints"))
            }
        }
        // SQLite cannot rename a constraint: when a rename changes the names a fresh table gives
        // its checks and keys, the table is rebuilt.
        // (Constraints of columns added in place come with them under their own names.)
        let keyNames = { (table: Table, skipped: Set<String>) in
            Set(
                table.foreignKeys.filter { Set($0.columns).isDisjoint(with: skipped) }.map {
                    SQLEmitter.foreignKeyName($0, table: table.name)
                })
        }
        if Set(old.checks.map(\.name)) != Set(new.checks.filter { !added.contains($0.condition.column) }.map(\.name))
            || keyNames(old, []) != keyNames(new, added)
        {
            changes.rebuild = true
        }
    }
}

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let changeConstraints: Self = "change-constraints"
    static let changeDeletionRule: Self = "change-deletion-rule"
    static let dropAttribute: Self = "drop-attribute"
    static let dropColumn: Self = "drop-column"
    static let dropOrder: Self = "drop-order"
    static let dropSubEntity: Self = "drop-sub-entity"
    static let keyToDroppedRow: Self = "key-to-dropped-row"
    static let relaxConstraints: Self = "relax-constraints"
    static let renumberEntities: Self = "renumber-entities"
}
