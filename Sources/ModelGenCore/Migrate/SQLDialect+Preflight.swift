extension SQLDialect {
    /// The query counting the rows that stop a step (`MigrationPlan.Preflight`), in this engine's
    /// SQL; the migration stops when it is not 0.
    public func preflightQuery(_ preflight: MigrationPlan.Preflight) -> String {
        switch preflight {
        case .nulls(let table, let column):
            return "SELECT count(*) FROM \(SQLNaming.quoted(table)) WHERE \(SQLNaming.quoted(column)) IS NULL"
        case .inexactValues(let table, let column, let from, let to):
            let quoted = SQLNaming.quoted(column)
            return "SELECT count(*) FROM \(SQLNaming.quoted(table)) WHERE \(quoted) IS NOT NULL AND "
                + rules.inexactValues(quoted, from: from, to: to)
        case .keysInto(let table, let column, let source, let entityIDs):
            let rows =
                "SELECT \"_pk\" FROM \(SQLNaming.quoted(source)) WHERE \"_entity\" IN ("
                + entityIDs.map(String.init).joined(separator: ", ") + ")"
            return "SELECT count(*) FROM \(SQLNaming.quoted(table)) WHERE \(SQLNaming.quoted(column)) IN (\(rows))"
        case .duplicates(let table, let values, let entityIDs):
            return duplicatesQuery(table, values, entityIDs)
        case .multipleLinks(let copy):
            return copy.multipleLinksQuery
        }
    }

    private func duplicatesQuery(_ table: String, _ values: [MigrationPlan.Preflight.IndexValue], _ entityIDs: [Int64]?)
        -> String
    {
        let columns = values.map { value in
            switch value {
            case .column(let name): SQLNaming.quoted(name)
            case .coalesced(let name, let value): "coalesce(\(SQLNaming.quoted(name)), \(literal(value)))"
            case .value(let value): literal(value)
            }
        }
        var filter = columns.map { "\($0) IS NOT NULL" }
        if let entityIDs {
            if entityIDs.isEmpty { return "SELECT 0" }  // no stored rows of those entities
            filter.append("\"_entity\" IN (" + entityIDs.map(String.init).joined(separator: ", ") + ")")
        }
        return
            "SELECT count(*) FROM (SELECT 1 FROM \(SQLNaming.quoted(table)) WHERE \(filter.joined(separator: " AND ")) GROUP BY "
            + columns.joined(separator: ", ") + " HAVING count(*) > 1) AS \"duplicates\""
    }
}
