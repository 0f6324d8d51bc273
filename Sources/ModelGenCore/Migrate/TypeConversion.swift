/// How a column's values change type in a migration: the step's code and safety, the query (per
/// engine) that finds values that do not convert, and the expression that converts them.
///
/// Conversions are exact or refused: a value that would change meaning (a fraction becoming an
/// integer, text that is not a number) stops the migration through the preflight, never silently.
struct TypeConversion {
    enum Kind {
        case integer, real, decimal, text, boolean, date
    }

    var code: String
    var safety: MigrationPlan.Safety
    /// Counts the rows whose value does not convert (SQLite, PostgreSQL); nil when all do.
    var sqlitePreflight: String?
    var postgresPreflight: String?

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

    /// The conversion from `from` to `to` of `column` (quoted) in `table` (quoted), or nil when
    /// it is not migrated.
    static func make(_ from: ColumnType, _ to: ColumnType, table: String, column: String) -> TypeConversion? {
        guard let source = kind(from), let target = kind(to) else { return nil }
        let count = "SELECT count(*) FROM \(table) WHERE \(column) IS NOT NULL AND "
        let range = ColumnType.integerRange(to)
        let outside = "(\(column) < \(range.lowerBound) OR \(column) > \(range.upperBound))"
        switch (source, target) {
        case (.integer, .integer):
            let widths: [ColumnType: Int] = [.integer16: 16, .integer32: 32, .integer64: 64]
            if widths[to, default: 64] >= widths[from, default: 64] { return .init(code: "widen-type", safety: .rewrite) }
            return .init(code: "narrow-integer", safety: .dataDependent, sqlitePreflight: count + outside, postgresPreflight: count + outside)
        case (.real, .real):
            return .init(code: from == .float ? "widen-type" : "narrow-real", safety: .rewrite)
        case (.integer, .real), (.integer, .decimal), (.real, .decimal), (.decimal, .real), (.boolean, .integer), (.date, .real), (.real, .date):
            return .init(code: "convert-type", safety: .rewrite)
        case (.integer, .text), (.real, .text), (.decimal, .text):
            return .init(code: "number-to-text", safety: .rewrite)
        case (.real, .integer), (.decimal, .integer):
            return .init(
                code: "real-to-integer", safety: .dataDependent,
                sqlitePreflight: count + "(\(column) != CAST(\(column) AS INTEGER) OR \(outside))",
                postgresPreflight: count + "(\(column) <> trunc(\(column)) OR \(outside))")
        case (.text, .integer):
            return .init(
                code: "text-to-number", safety: .dataDependent,
                sqlitePreflight: count + "CAST(CAST(\(column) AS INTEGER) AS TEXT) != trim(\(column))",
                postgresPreflight: count + "(\(column) !~ '^\\s*-?[0-9]+\\s*$' OR \(column)::numeric < \(range.lowerBound) OR \(column)::numeric > \(range.upperBound))")
        case (.text, .real), (.text, .decimal):
            return .init(
                code: "text-to-number", safety: .dataDependent,
                sqlitePreflight: count
                    + "CAST(CAST(\(column) AS REAL) AS TEXT) != trim(\(column)) AND CAST(CAST(\(column) AS INTEGER) AS TEXT) != trim(\(column))",
                postgresPreflight: count + "\(column) !~ '^\\s*-?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$'")
        case (.integer, .boolean):
            return .init(
                code: "integer-to-boolean", safety: .dataDependent, sqlitePreflight: count + "\(column) NOT IN (0, 1)",
                postgresPreflight: count + "\(column) NOT IN (0, 1)")
        default:
            return nil
        }
    }

    /// The expression that converts `column` (quoted) from `from` to `to`: in SQLite's rebuild
    /// `SELECT`, and in PostgreSQL's `ALTER COLUMN … TYPE … USING`.
    static func expression(_ column: String, from: ColumnType, to: ColumnType, dialect: SQLDialect) -> String {
        let type = dialect.typeName(to)
        switch dialect {
        case .sqlite:
            // Dates are REAL seconds on SQLite and booleans 0/1: only text and numbers change.
            switch (kind(from), kind(to)) {
            case (_, .text?): return "CAST(\(column) AS TEXT)"
            // Decimals are text (exact): a REAL as its 15 significant digits (what it holds
            // exactly enough; `2.0` reads `2`), an integer or a text as it is.
            case (.real?, .decimal?): return "CASE WHEN \(column) IS NULL THEN NULL ELSE printf('%.15g', \(column)) END"
            case (.integer?, .decimal?): return "CAST(\(column) AS TEXT)"
            case (.text?, .decimal?): return "trim(\(column))"
            case (.text?, .integer?): return "CAST(trim(\(column)) AS INTEGER)"
            case (.text?, _): return "CAST(trim(\(column)) AS REAL)"
            case (.real?, .integer?), (.decimal?, .integer?): return "CAST(\(column) AS INTEGER)"
            case (.integer?, .real?): return "CAST(\(column) AS REAL)"
            default: return column
            }
        case .postgres:
            switch (kind(from), kind(to)) {
            case (.date?, .real?): return "EXTRACT(EPOCH FROM \(column)) - 978307200"
            case (.real?, .date?): return "TIMESTAMPTZ 'epoch' + (\(column) + 978307200) * INTERVAL '1 second'"
            case (.integer?, .boolean?): return "\(column) <> 0"
            case (.boolean?, .integer?): return "CASE WHEN \(column) THEN 1 WHEN NOT \(column) THEN 0 END"
            case (.text?, _): return "trim(\(column))::\(type)"
            default: return "\(column)::\(type)"
            }
        }
    }
}
