/// Turns a `MigrationPlan` into one engine's SQL. Each `SQLDialect` names its renderer
/// (`SQLDialect.migrationRenderer`); the plan itself is the same for every engine.
public protocol MigrationRenderer: Sendable {
    /// The statements that migrate a database of the plan's old schema, in order: preflights
    /// that stop the migration when the data does not fit, then the changes. Run in one
    /// transaction.
    func statements(_ plan: MigrationPlan) -> [String]
    /// The statements as a script a person can read and run (`modelgen diff`).
    func script(_ plan: MigrationPlan) -> String
}
