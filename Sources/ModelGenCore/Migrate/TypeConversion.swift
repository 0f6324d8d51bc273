/// How a column's values change type in a migration: the step's code and safety, and whether
/// stored values decide (a preflight, `MigrationPlan.Preflight.inexactValues`, finds those that do
/// not convert; each dialect writes its test in `SQLDialectRules.inexactValues`).
///
/// Conversions are exact or refused: a value that would change meaning (a fraction becoming an
/// integer, text that is not a number) stops the migration through the preflight, never silently.
struct TypeConversion {
    enum Kind {
        case integer, real, decimal, text, boolean, date
    }

    var code: MigrationPlan.Step.Code
    var safety: MigrationPlan.Safety
    /// Whether some stored values may not convert (then the step is data-dependent).
    var checksValues: Bool { safety == .dataDependent }

    static func kind(_ type: ColumnType) -> Kind? {
        switch type {
        case .integer16, .integer32, .integer64: .integer
        case .double, .float: .real
        case .decimal: .decimal
        case .text: .text
        case .boolean: .boolean
        case .date: .date
        default: nil
        }
    }

    /// The conversion from `from` to `to`, or nil when it is not migrated.
    static func make(_ from: ColumnType, _ to: ColumnType) -> TypeConversion? {
        guard let source = kind(from), let target = kind(to) else { return nil }
        switch (source, target) {
        case (.integer, .integer):
            let widths: [ColumnType: Int] = [.integer16: 16, .integer32: 32, .integer64: 64]
            if widths[to, default: 64] >= widths[from, default: 64] { return .init(code: .widenType, safety: .rewrite) }
            return .init(code: .narrowInteger, safety: .dataDependent)
        case (.real, .real):
            return .init(code: from == .float ? .widenType : .narrowReal, safety: .rewrite)
        case (.integer, .real), (.integer, .decimal), (.real, .decimal), (.decimal, .real), (.boolean, .integer),
            (.date, .real), (.real, .date):
            return .init(code: .convertType, safety: .rewrite)
        case (.integer, .text), (.real, .text), (.decimal, .text):
            return .init(code: .numberToText, safety: .rewrite)
        case (.real, .integer), (.decimal, .integer):
            return .init(code: .realToInteger, safety: .dataDependent)
        case (.text, .integer), (.text, .real), (.text, .decimal):
            return .init(code: .textToNumber, safety: .dataDependent)
        case (.text, .date):
            return .init(code: .textToDate, safety: .dataDependent)
        case (.integer, .boolean):
            return .init(code: .integerToBoolean, safety: .dataDependent)
        default:
            return nil
        }
    }

    /// The condition on `column` (quoted) true for a value outside the range of integer type `to`.
    static func outside(_ column: String, _ to: ColumnType) -> String {
        let range = ColumnType.integerRange(to)
        return "(\(column) < \(range.lowerBound) OR \(column) > \(range.upperBound))"
    }
}

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let convertType: Self = "convert-type"
    static let integerToBoolean: Self = "integer-to-boolean"
    static let narrowInteger: Self = "narrow-integer"
    static let narrowReal: Self = "narrow-real"
    static let numberToText: Self = "number-to-text"
    static let realToInteger: Self = "real-to-integer"
    static let textToDate: Self = "text-to-date"
    static let textToNumber: Self = "text-to-number"
    static let widenType: Self = "widen-type"
}
