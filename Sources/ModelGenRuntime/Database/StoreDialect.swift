/// The SQL of one database engine, as the runtime writes it: every piece of runtime SQL that is
/// not the same on SQLite and PostgreSQL comes from here, so the statements are built once per
/// store from the store's dialect instead of testing the engine where they are built.
///
/// Runtime SQL writes its parameters as `?`; the PostgreSQL backend numbers them (`$1`, `$2`, …)
/// when it prepares a statement.
public struct StoreDialect: Sendable, Hashable {
    /// Which engine: the few places that differ in more than text (how rows are numbered, how a
    /// store is opened) switch on it.
    public enum Engine: Sendable, Hashable {
        case sqlite, postgres
    }

    public let engine: Engine

    public static let sqlite = StoreDialect(engine: .sqlite)
    public static let postgres = StoreDialect(engine: .postgres)

    /// Whether `value` can be bound as it is: PostgreSQL text holds no NUL character, so a
    /// condition on such a text is evaluated in memory (where it matches no stored value).
    func canBind(_ value: StoredValue) -> Bool {
        guard engine == .postgres, case .text(let text) = value else { return true }
        return !text.utf8.contains(0)
    }

    /// A condition that `expression` is one of the row numbers bound, all together, as one
    /// parameter (`keyList(_:)`): one statement for any number of keys.
    func isOneOfKeys(_ expression: String) -> String {
        switch engine {
        case .sqlite: "\(expression) IN (SELECT \"value\" FROM json_each(?))"
        case .postgres: "\(expression) = ANY(CAST(? AS bigint[]))"
        }
    }

    /// The parameter of `isOneOfKeys(_:)`: a JSON array on SQLite, an array literal on PostgreSQL.
    func keyList(_ keys: [Int64]) -> SQLArgument {
        let list = keys.map(String.init).joined(separator: ",")
        return SQLArgument(.text(engine == .sqlite ? "[" + list + "]" : "{" + list + "}"))
    }

    /// `text` as a SQL string literal.
    static func literal(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

    /// A condition that always holds / never holds.
    var trueCondition: String { engine == .sqlite ? "1" : "TRUE" }
    var falseCondition: String { engine == .sqlite ? "0" : "FALSE" }

    /// `condition` with NULL read as false (two-valued logic).
    func nullAsFalse(_ condition: String) -> String {
        engine == .sqlite ? "ifnull((\(condition)), 0)" : "coalesce((\(condition)), FALSE)"
    }

    /// Equality that treats NULL as a value (`NULL = NULL` holds, `1 = NULL` does not).
    var isNotDistinct: String { engine == .sqlite ? "IS" : "IS NOT DISTINCT FROM" }
    var isDistinct: String { engine == .sqlite ? "IS NOT" : "IS DISTINCT FROM" }

    /// `column` as it orders and compares text by bytes (UTF-8 byte order is code point order):
    /// SQLite's default; PostgreSQL's default collation follows the database's locale.
    func byteOrderedText(_ column: String) -> String {
        engine == .sqlite ? column : column + " COLLATE \"C\""
    }

    /// Whether SQL can order text case-insensitively as the runtime does (ASCII letters folded,
    /// as SQLite's NOCASE); where not, such sorts run in memory.
    var foldsASCIICase: Bool { engine == .sqlite }

    /// Whether `ORDER BY "_pk"` costs a query nothing. On SQLite a table is stored in `_pk`
    /// order. On PostgreSQL the planner walks the key's index for it and visits the table's pages
    /// in that order (measured: a quarter slower than scanning them for 25,000 of 100,000 rows,
    /// and it is the server every client shares): a fetch in row order without a window leaves
    /// the ORDER BY out and puts the objects in order itself.
    var ordersByKeyForFree: Bool { engine == .sqlite }

    /// An ORDER BY term: NULL first when ascending, as on SQLite (PostgreSQL puts NULL last).
    func orderTerm(_ expression: String, ascending: Bool) -> String {
        switch engine {
        case .sqlite: expression + (ascending ? " ASC" : " DESC")
        case .postgres: expression + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
        }
    }

    /// `LIMIT … OFFSET …` with `nil` for no limit.
    func window(limit: Int?, offset: Int) -> String {
        switch engine {
        case .sqlite: " LIMIT \(limit ?? -1) OFFSET \(offset)"
        case .postgres: " LIMIT \(limit.map(String.init) ?? "ALL") OFFSET \(offset)"
        }
    }

    /// An INSERT of one row that does nothing when the row is there (join tables).
    func insertIgnoringDuplicate(into table: String, columns: [String]) -> String {
        let list = columns.joined(separator: ", ")
        let values = columns.map { _ in "?" }.joined(separator: ", ")
        switch engine {
        case .sqlite: return "INSERT OR IGNORE INTO \(table) (\(list)) VALUES (\(values))"
        case .postgres: return "INSERT INTO \(table) (\(list)) VALUES (\(values)) ON CONFLICT DO NOTHING"
        }
    }

    /// A query that returns a row when the store's metadata table exists.
    var metadataTableExists: String {
        switch engine {
        case .sqlite: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '_modelgen_metadata'"
        case .postgres: #"SELECT 1 WHERE to_regclass('"_modelgen_metadata"') IS NOT NULL"#
        }
    }

    /// The sum of a floating-point column, `0.0` over no rows, as a `double`.
    func sumOfReals(_ column: String) -> String {
        engine == .sqlite ? "coalesce(sum(\(column)), 0.0)" : "coalesce(sum(CAST(\(column) AS double precision)), 0)"
    }

    /// The sum of an integer column, `0` over no rows, as a 64-bit integer (PostgreSQL sums
    /// `bigint` into `numeric`).
    func sumOfIntegers(_ column: String) -> String {
        engine == .sqlite ? "coalesce(sum(\(column)), 0)" : "coalesce(CAST(sum(\(column)) AS bigint), 0)"
    }

    /// The average of a numeric column as a `double` (PostgreSQL averages integers into `numeric`).
    func average(_ column: String) -> String {
        engine == .sqlite ? "avg(\(column))" : "CAST(avg(\(column)) AS double precision)"
    }

    /// Where a text is looked for in a column.
    enum TextMatch {
        case prefix, suffix, substring
    }

    /// Whether `column` begins with, ends with or contains `text` (not empty), compared exactly.
    /// SQLite compares bytes: its text functions stop at a NUL character, bytes do not (and the
    /// same characters are the same UTF-8 bytes). PostgreSQL text holds no NUL and its functions
    /// count characters (code points).
    func textMatch(_ match: TextMatch, column: String, text: String) -> SQLFragment {
        switch engine {
        case .sqlite:
            let bytes = SQLArgument(.blob(Array(text.utf8)))
            let bytesOfColumn = "CAST(\(column) AS BLOB)"
            switch match {
            case .prefix:
                return SQLFragment(
                    sql: "substr(\(bytesOfColumn), 1, ?) = ?", arguments: [.key(Int64(text.utf8.count)), bytes])
            case .suffix:
                return SQLFragment(
                    sql: "substr(\(bytesOfColumn), ?) = ?", arguments: [.key(-Int64(text.utf8.count)), bytes])
            case .substring: return SQLFragment(sql: "instr(\(bytesOfColumn), ?) > 0", arguments: [bytes])
            }
        case .postgres:
            let characters = Int64(text.unicodeScalars.count)
            let pattern = SQLArgument(.text(text))
            switch match {
            case .prefix:
                return SQLFragment(
                    sql: "left(\(column), CAST(? AS integer)) = ?", arguments: [.key(characters), pattern])
            case .suffix:
                return SQLFragment(
                    sql: "right(\(column), CAST(? AS integer)) = ?", arguments: [.key(characters), pattern])
            case .substring: return SQLFragment(sql: "strpos(\(column), ?) > 0", arguments: [pattern])
            }
        }
    }
}
