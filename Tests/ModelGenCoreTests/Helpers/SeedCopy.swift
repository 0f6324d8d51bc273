@testable import ModelGenCore

/// The rows of a SQLite database (one the runtime wrote) as PostgreSQL INSERTs for the same
/// schema: each value read by its column's type and written as PostgreSQL's literal of it.
enum SeedCopy {
    static func postgresStatements(from database: SQLiteDatabase, schema: RelationalSchema) throws -> [String] {
        var statements: [String] = []
        for table in schema.tables where table.kind != .metadata {
            let selected = table.columns.map { column in
                let name = SQLNaming.quoted(column.name)
                return column.type == .blob || column.type == .uuid
                    ? "CASE WHEN \(name) IS NULL THEN 'NULL' ELSE hex(\(name)) END" : "quote(\(name))"
            }
            let names = table.columns.map { SQLNaming.quoted($0.name) }.joined(separator: ", ")
            for row in try database.rows(
                "SELECT \(selected.joined(separator: ", ")) FROM \(SQLNaming.quoted(table.name)) ORDER BY rowid")
            {
                let values = zip(table.columns, row).map { column, text in literal(text, column.type) }
                statements.append(
                    "INSERT INTO \(SQLNaming.quoted(table.name)) (\(names)) VALUES (\(values.joined(separator: ", ")))")
            }
        }
        return statements
    }

    /// `text` is SQLite's `quote()` of the value (`hex()` for bytes).
    private static func literal(_ text: String?, _ type: ColumnType) -> String {
        guard let text, text != "NULL" else { return "NULL" }
        switch type {
        case .boolean: return SQLDialect.postgres.literal(.bool(text != "0"))
        case .date: return SQLDialect.postgres.literal(.date(Double(text) ?? 0))
        case .uuid:
            var hex = Array(text.lowercased())
            for position in [20, 16, 12, 8] { hex.insert("-", at: position) }
            return SQLDialect.postgres.literal(.uuid(String(hex)))
        case .blob: return "decode('\(text)', 'hex')"
        default: return text  // quote() gives numbers as numbers and text as a literal
        }
    }
}
