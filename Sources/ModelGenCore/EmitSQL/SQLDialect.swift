/// A SQL engine modelgen writes DDL and migrations for: a name and the engine's rules.
///
/// Everything that differs between engines — type names, literals, which checks a column type
/// already enforces, the key column, conversions in migrations, the migration script's form — is a
/// member of the engine's `SQLDialectRules`, so the emitter, the migration planner and the CLI
/// never ask which engine they have. A new engine is one new conforming type (and its migration
/// renderer), listed in `allCases`.
public struct SQLDialect: Sendable, Hashable {
    public static let sqlite = SQLDialect(SQLiteDialect())
    public static let postgres = SQLDialect(PostgresDialect())
    /// Every engine, in the order `--dialect` lists them.
    public static let allCases: [SQLDialect] = [.sqlite, .postgres]

    let rules: any SQLDialectRules

    init(_ rules: any SQLDialectRules) { self.rules = rules }

    /// The engine named `rawValue` (`sqlite`, `postgres`), as `--dialect` takes it.
    public init?(rawValue: String) {
        guard let dialect = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = dialect
    }

    /// The name `--dialect` takes.
    public var rawValue: String { rules.name }

    /// The engine's name as people write it, for headers and messages.
    public var engineName: String { rules.engineName }

    /// How this engine's migration scripts are written.
    public var migrationRenderer: any MigrationRenderer { rules.migrationRenderer }

    public static func == (lhs: SQLDialect, rhs: SQLDialect) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The column type's name in this dialect.
    func typeName(_ type: ColumnType) -> String { rules.typeName(type) }

    /// A constant as a literal of this dialect.
    func literal(_ value: SQLValue) -> String {
        switch value {
        case .integer(let number): String(number)
        case .real(let number): Self.real(number)
        case .decimal(let text): text
        case .text(let text): SQLNaming.literal(text)
        case .bool(let flag): rules.booleanLiteral(flag)
        case .date(let seconds): rules.dateLiteral(secondsSinceReferenceDate: seconds)
        case .uuid(let text): rules.uuidLiteral(text)
        }
    }

    /// A finite double in a form both engines read back exactly.
    static func real(_ value: Double) -> String {
        guard value.isFinite else { return "NULL" }
        let text = String(value)
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}

/// What one SQL engine needs from modelgen's DDL and migrations. Conforming types are stateless.
protocol SQLDialectRules: Sendable {
    /// The name `--dialect` takes (`sqlite`).
    var name: String { get }
    /// The engine's name as people write it (`SQLite`).
    var engineName: String { get }

    /// The declared type of a column of `type`.
    func typeName(_ type: ColumnType) -> String
    func booleanLiteral(_ value: Bool) -> String
    /// A date stored as seconds since 2001-01-01 (Core Data's reference date).
    func dateLiteral(secondsSinceReferenceDate seconds: Double) -> String
    /// A UUID given in its canonical text form.
    func uuidLiteral(_ text: String) -> String

    /// The declaration of the `_pk` column after its name: an integer key the engine assigns.
    var primaryKeyDeclaration: String { get }
    /// Whether a foreign key may name a table the script creates later; when not, such keys are
    /// added once every table exists.
    var resolvesForwardReferences: Bool { get }
    /// Whether the column types leave booleans, integer widths and UUID sizes unchecked, so that
    /// CHECK constraints must hold them (`Check.Condition.isBoolean`, `.integerWidth`, `.byteCount`).
    var needsStorageChecks: Bool { get }
    /// Whether CHECK constraints can test regular expressions (`Check.Condition.matches`);
    /// where not, the runtime validates them.
    var checksPatterns: Bool { get }
    /// The function that measures a value of `type` for a length check.
    func lengthFunction(for type: ColumnType?) -> String

    /// The condition true for a non-NULL value of `column` (quoted) that does not convert exactly
    /// from `from` to `to` (a conversion `TypeConversion` classes data-dependent).
    func inexactValues(_ column: String, from: ColumnType, to: ColumnType) -> String
    /// The expression converting `column` (quoted) from `from` to `to` in a migration.
    func conversion(_ column: String, from: ColumnType, to: ColumnType) -> String
    /// The expression that makes `value` for a row.
    func generated(_ value: MigrationPlan.GeneratedValue) -> String
    /// How migration plans become this engine's scripts.
    var migrationRenderer: any MigrationRenderer { get }
}
