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
        case (.text?, .date?): TextToDateConversion.sqliteInvalid(column)
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
        case (.text?, .date?): TextToDateConversion.sqliteValue(column)
        case (.text?, _): "CAST(trim(\(column)) AS REAL)"
        case (.real?, .integer?), (.decimal?, .integer?): "CAST(\(column) AS INTEGER)"
        case (.integer?, .real?): "CAST(\(column) AS REAL)"
        default: column
        }
    }

    func generated(_ value: MigrationPlan.GeneratedValue) -> String {
        switch value {
        // Sixteen random bytes with the version (4) and variant (10xx) bits of RFC 9562: `substr`
        // of a blob counts bytes, and `||` keeps them.
        case .uuid:
            "CAST(randomblob(6) || substr(X'\(Self.hexBytes(0x40...0x4F))', (random() & 15) + 1, 1) || randomblob(1) || substr(X'\(Self.hexBytes(0x80...0xBF))', (random() & 63) + 1, 1) || randomblob(7) AS BLOB)"
        case .now: "((julianday('now') - 2451910.5) * 86400.0)"
        }
    }

    private static func hexBytes(_ bytes: ClosedRange<Int>) -> String {
        bytes.map { String($0, radix: 16, uppercase: true) }.joined()
    }

    var migrationRenderer: any MigrationRenderer { SQLiteMigrationRenderer() }
}
