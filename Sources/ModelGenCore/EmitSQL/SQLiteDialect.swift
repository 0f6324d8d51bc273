/// SQLite's rules: declared types give affinities, not constraints, so CHECKs hold booleans,
/// integer widths and UUID sizes; dates are REAL seconds since 2001; regular expressions are left to
/// the runtime (SQLite has no REGEXP function of its own).
struct SQLiteDialect: SQLDialectRules {
    var name: String { "sqlite" }
    var engineName: String { "SQLite" }

    func typeName(_ type: ColumnType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .key, .boolean: "INTEGER"
        // TEXT affinity: a declared DECIMAL has numeric affinity, and SQLite would turn the text
        // into a REAL and lose every digit past the 15th.
        case .decimal, .text, .uri: "TEXT"
        case .double, .float, .date: "REAL"
        case .blob, .uuid: "BLOB"
        }
    }

    func booleanLiteral(_ value: Bool) -> String { value ? "1" : "0" }
    func dateLiteral(secondsSinceReferenceDate seconds: Double) -> String { SQLDialect.real(seconds) }
    func uuidLiteral(_ text: String) -> String { "X'" + text.replacing("-", with: "") + "'" }

    var primaryKeyDeclaration: String { "INTEGER PRIMARY KEY" }
    var resolvesForwardReferences: Bool { true }
    var needsStorageChecks: Bool { true }
    var checksPatterns: Bool { false }
    func lengthFunction(for type: ColumnType?) -> String { "length(" }

    func inexactValues(_ column: String, from: ColumnType, to: ColumnType) -> String {
        switch (TypeConversion.kind(from), TypeConversion.kind(to)) {
        case (.real?, .integer?), (.decimal?, .integer?):
            "(\(column) != CAST(\(column) AS INTEGER) OR \(TypeConversion.outside(column, to)))"
        case (.text?, .integer?): "CAST(CAST(\(column) AS INTEGER) AS TEXT) != trim(\(column))"
        case (.text?, _):
            "CAST(CAST(\(column) AS REAL) AS TEXT) != trim(\(column)) AND CAST(CAST(\(column) AS INTEGER) AS TEXT) != trim(\(column))"
        case (.integer?, .boolean?): "\(column) NOT IN (0, 1)"
        default: TypeConversion.outside(column, to)  // a narrower integer
        }
    }

    func conversion(_ column: String, from: ColumnType, to: ColumnType) -> String {
        // Dates are REAL seconds on SQLite and booleans 0/1: only text and numbers change.
        switch (TypeConversion.kind(from), TypeConversion.kind(to)) {
        case (_, .text?): "CAST(\(column) AS TEXT)"
        // Decimals are text (exact): a REAL as its 15 significant digits (what it holds exactly
        // enough; `2.0` reads `2`), an integer or a text as it is.
        case (.real?, .decimal?): "CASE WHEN \(column) IS NULL THEN NULL ELSE printf('%.15g', \(column)) END"
        case (.integer?, .decimal?): "CAST(\(column) AS TEXT)"
        case (.text?, .decimal?): "trim(\(column))"
        case (.text?, .integer?): "CAST(trim(\(column)) AS INTEGER)"
        case (.text?, _): "CAST(trim(\(column)) AS REAL)"
        case (.real?, .integer?), (.decimal?, .integer?): "CAST(\(column) AS INTEGER)"
        case (.integer?, .real?): "CAST(\(column) AS REAL)"
        default: column
        }
    }

    var migrationRenderer: any MigrationRenderer { SQLiteMigrationRenderer() }
}
