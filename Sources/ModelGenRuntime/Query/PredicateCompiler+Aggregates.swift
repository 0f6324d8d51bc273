import PredicateSyntax

extension CompiledPredicate {
    /// `relationship.@sum.attribute op value` (and `@avg`, `@min`, `@max`) as SQL: the aggregate
    /// of the destinations of the row, 0 for the sum of none, NULL (no match) for the others of
    /// none. `nil` where SQL would not compute it as the runtime does (decimals, stored as text on
    /// SQLite; text compared otherwise than by equality or order).
    static func aggregateFragment(
        _ relationship: RelationshipDescription, _ function: ResultTerm.Function, _ slot: Int,
        _ op: ComparisonOperator, _ value: StoredValue, _ entity: EntityDescription, _ dialect: StoreDialect,
        _ parameters: inout [SQLArgument]
    ) -> String? {
        guard let destination = relationship.destination?.entityDescription, dialect.canBind(value) else { return nil }
        // `nil` equals `nil`, as in memory (the average of no values is `nil`).
        let symbol: String
        switch op {
        case .equal: symbol = dialect.isNotDistinct
        case .notEqual: symbol = dialect.isDistinct
        default:
            guard let plain = Self.symbol(op) else { return nil }
            symbol = plain
        }
        let attribute = destination.attributes[slot]
        guard attribute.type != .decimal else { return nil }
        let computed = ValuesQuery.expression(.of(function, slot: slot), destination, dialect, qualifier: "\"_d\".")
        let quoted = EntityDescription.quoted
        let outer = quoted(entity.table) + ".\"_pk\""
        let rows: String
        switch relationship.storage {
        case .foreignKey:
            return nil
        case .inverseForeignKey(let key, _):
            rows = "FROM \(quoted(destination.table)) AS \"_d\" WHERE \"_d\".\(quoted(key)) = \(outer)"
        case .joinTable(let join, let source, let target, _):
            rows =
                "FROM \(quoted(destination.table)) AS \"_d\" JOIN \(quoted(join)) AS \"_j\" ON \"_j\".\(quoted(target)) = \"_d\".\"_pk\" WHERE \"_j\".\(quoted(source)) = \(outer)"
        }
        let type = function == .min || function == .max ? attribute.type : nil
        parameters.append(SQLArgument(value, type))
        let text = attribute.type == .string || attribute.type == .url
        let operand = text && (function == .min || function == .max) ? dialect.byteOrderedText("?") : "?"
        return dialect.nullAsFalse("(SELECT \(computed) \(rows)) \(symbol) \(operand)")
    }
}
