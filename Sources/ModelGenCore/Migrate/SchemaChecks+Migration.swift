/// What the planner and renderers ask of column types and check conditions.
extension ColumnType {
    static func integerRange(_ type: ColumnType) -> ClosedRange<Int64> {
        switch type {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }
}

extension Check.Condition {
    /// The column the condition is about.
    var column: String {
        switch self {
        case .oneOf(let column, _), .range(let column, _, _), .length(let column, _, _), .integerWidth(let column, _),
            .requiredFor(let column, _), .matches(let column, _), .isBoolean(let column), .byteCount(let column, _):
            column
        }
    }

    /// The same condition about the column `rename` gives for this one's.
    func renamingColumn(_ rename: (String) -> String) -> Check.Condition {
        switch self {
        case .oneOf(let column, let values): .oneOf(column: rename(column), values: values)
        case .range(let column, let minimum, let maximum):
            .range(column: rename(column), minimum: minimum, maximum: maximum)
        case .length(let column, let minimum, let maximum):
            .length(column: rename(column), minimum: minimum, maximum: maximum)
        case .integerWidth(let column, let type): .integerWidth(column: rename(column), type: type)
        case .requiredFor(let column, let entityIDs): .requiredFor(column: rename(column), entityIDs: entityIDs)
        case .matches(let column, let pattern): .matches(column: rename(column), pattern: pattern)
        case .isBoolean(let column): .isBoolean(column: rename(column))
        case .byteCount(let column, let bytes): .byteCount(column: rename(column), bytes: bytes)
        }
    }
}

extension Check.Condition {
    /// The same condition with entity numbers old → new (`_entity` checks, required sub-entity
    /// attributes).
    func renumberingEntities(_ numbers: [Int64: Int64]) -> Check.Condition {
        switch self {
        case .oneOf("_entity", let values): .oneOf(column: "_entity", values: values.map { numbers[$0] ?? $0 }.sorted())
        case .requiredFor(let column, let entityIDs):
            .requiredFor(column: column, entityIDs: entityIDs.map { numbers[$0] ?? $0 }.sorted())
        default: self
        }
    }
}
