/// Plan: indexes dropped and added, and the preflight of each new unique index.
extension MigrationPlanner {
    func planIndexes(_ plan: inout MigrationPlan) {
        // Old indexes as they would read under the new table names.
        var tableNames: [String: String] = [:]
        for case .alter(let old, let new, _, _, _) in plan.tables { tableNames[old.name] = new.name }
        let dropped = Set(plan.tables.compactMap { if case .drop(let table) = $0 { table.name } else { nil } })
        let old = plan.oldSchema.indexes.filter { !dropped.contains($0.table) }.map { index in
            var copy = index
            copy.table = tableNames[index.table] ?? index.table
            return copy
        }
        for index in old where !plan.newSchema.indexes.contains(index) {
            plan.steps.append(
                .init(code: .dropIndex, safety: .safe, subject: index.name, message: "index \(index.name) is dropped"))
        }
        let created = Set(plan.tables.compactMap { if case .create(let table) = $0 { table.name } else { nil } })
        for index in plan.newSchema.indexes where !old.contains(index) && !created.contains(index.table) {
            guard index.isUnique else {
                plan.steps.append(
                    .init(code: .addIndex, safety: .safe, subject: index.name, message: "new index \(index.name)"))
                continue
            }
            let alteration = plan.tables.lazy.compactMap { change -> (String, [String: MigrationPlan.ColumnSource])? in
                if case .alter(let old, let new, let sources, _, _) = change, new.name == index.table {
                    return (old.name, sources)
                }
                return nil
            }.first
            let source = alteration?.0 ?? index.table
            let sources = alteration?.1 ?? [:]
            guard let preflight = Self.duplicates(index, in: source, sources) else {
                // A new column starts NULL (or takes moved links, whose step checks them): no collision.
                plan.steps.append(
                    .init(
                        code: .addIndex, safety: .safe, subject: index.name,
                        message: "new unique index \(index.name) on a new column"))
                continue
            }
            plan.steps.append(
                .init(
                    code: .addUniquenessConstraint, safety: .dataDependent, subject: index.name,
                    message: "new unique index \(index.name); duplicates stop the migration", preflight: preflight))
        }
    }

    /// The check that no rows of the old table `table` collide under the new unique `index`
    /// (rows with a NULL part never do), with the values each part will take; nil when a part is
    /// a new column without values.
    static func duplicates(_ index: Index, in table: String, _ sources: [String: MigrationPlan.ColumnSource])
        -> MigrationPlan.Preflight?
    {
        var values: [MigrationPlan.Preflight.IndexValue] = []
        for part in index.parts {
            switch sources[part.column] {
            case nil: values.append(.column(part.column))
            case .column(let name)?, .converted(let name)?, .renumbered(let name, _)?: values.append(.column(name))
            case .coalesced(let name, let value)?: values.append(.coalesced(name, value))
            case .value(let value)?: values.append(.value(value))
            // Every row takes the same time, so any constant groups the rows as `now()` does.
            case .generated(.now)?: values.append(.value(.date(0)))
            case .generated(.uuid)?, .nothing?: return nil
            }
        }
        var entityIDs = index.entityIDs
        if let wanted = entityIDs.map(Set.init), case .renumbered(_, let numbers)? = sources["_entity"] {
            // The rows' entity numbers before any renumbering.
            entityIDs = numbers.filter { wanted.contains($0.value) }.map(\.key).sorted()
        }
        return .duplicates(table: table, values: values, entityIDs: entityIDs)
    }
}

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let addIndex: Self = "add-index"
    static let addUniquenessConstraint: Self = "add-uniqueness-constraint"
    static let dropIndex: Self = "drop-index"
}
