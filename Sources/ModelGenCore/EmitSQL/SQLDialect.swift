/// The SQL engines modelgen writes DDL for.
public enum SQLDialect: String, Sendable, CaseIterable {
    case sqlite
    case postgres

    /// The column type's name in this dialect.
    func typeName(_ type: ColumnType) -> String {
        switch self {
        case .sqlite:
            switch type {
            case .integer16, .integer32, .integer64, .key, .boolean: "INTEGER"
            // TEXT affinity: a declared DECIMAL has numeric affinity, and SQLite would turn the
            // text into a REAL and lose every digit past the 15th.
            case .decimal, .text, .uri: "TEXT"
            case .double, .float, .date: "REAL"
            case .blob, .uuid: "BLOB"
            }
        case .postgres:
            switch type {
            case .integer16: "smallint"
            case .integer32: "integer"
            case .integer64, .key: "bigint"
            case .decimal: "numeric"
            case .double: "double precision"
            case .float: "real"
            case .text, .uri: "text"
            case .boolean: "boolean"
            case .date: "timestamptz"
            case .blob: "bytea"
            case .uuid: "uuid"
            }
        }
    }

    /// A constant as a literal of this dialect.
    func literal(_ value: SQLValue) -> String {
        switch value {
        case .integer(let number): return String(number)
        case .real(let number): return Self.real(number)
        case .decimal(let text): return text
        case .text(let text): return SQLNaming.literal(text)
        case .bool(let flag): return self == .sqlite ? (flag ? "1" : "0") : (flag ? "TRUE" : "FALSE")
        case .date(let seconds):
            return self == .sqlite ? Self.real(seconds) : "TIMESTAMPTZ " + SQLNaming.literal(DateText.timestamp(referenceInterval: seconds))
        case .uuid(let text):
            return self == .sqlite ? "X'" + text.replacing("-", with: "") + "'" : SQLNaming.literal(text.lowercased())
        }
    }

    /// A finite double in a form both engines read back exactly.
    static func real(_ value: Double) -> String {
        guard value.isFinite else { return "NULL" }
        let text = String(value)
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}
