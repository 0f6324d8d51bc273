import Foundation

/// A migration the generated code carries: how a store of another version of the bundle becomes
/// one of the version the code is generated from, for `PersistentStore` to run on open.
public struct StoreMigration: Sendable, Equatable {
    /// The other version's name and schema hash.
    public var version: String
    public var fromHash: String
    /// The SQLite statements, when every step is safe or a rewrite; else nil.
    public var statements: [String]?
    /// `safety code subject` of each step that keeps it from being automatic.
    public var blockingSteps: [String]
    /// The statements when the only steps that keep it from being automatic lose data (removed
    /// attributes and entities: what `modelgen diff --allow-data-loss` writes), for an app that
    /// opens the store allowing it; else nil.
    public var lossyStatements: [String]? = nil
    /// `statements` and `lossyStatements` for PostgreSQL.
    public var postgresStatements: [String]? = nil
    public var postgresLossyStatements: [String]? = nil

    /// The migration from `old` to `new`, automatic only when the plan's steps all are.
    public static func make(
        version: String, from old: ObjectModel, _ oldSchema: RelationalSchema, to new: ObjectModel,
        _ newSchema: RelationalSchema
    ) -> StoreMigration {
        let plan = MigrationPlanner().plan(from: old, oldSchema, to: new, newSchema)
        let blocking = plan.steps.filter { $0.safety > .rewrite }.map {
            "\($0.safety.rawValue) \($0.code) \($0.subject)"
        }
        // Only data loss, which the app may accept; not steps whose data decides or that need input.
        let onlyLossy = !blocking.isEmpty && plan.steps.allSatisfy { $0.safety <= .rewrite || $0.safety == .lossy }
        let rendered = blocking.isEmpty || onlyLossy ? SQLDialect.sqlite.migrationRenderer.statements(plan) : nil
        let renderedPostgres =
            blocking.isEmpty || onlyLossy ? SQLDialect.postgres.migrationRenderer.statements(plan) : nil
        return StoreMigration(
            version: version, fromHash: SchemaSnapshot.make(oldSchema).hash,
            statements: blocking.isEmpty ? rendered : nil,
            blockingSteps: blocking, lossyStatements: onlyLossy ? rendered : nil,
            postgresStatements: blocking.isEmpty ? renderedPostgres : nil,
            postgresLossyStatements: onlyLossy ? renderedPostgres : nil)
    }

    /// The migrations from every other version of the bundle at `bundle` to `model`, in version
    /// order (versions that do not load or lower cleanly, or have the same schema, are left out:
    /// the runtime refuses stores of versions it has no migration for); then, from every version
    /// (this one too), the migration from the schema modelgen 0.1 gave it, whose entities were
    /// numbered by position (`StandardLayout.EntityCodes.sortedPositions`).
    public static func all(to model: ObjectModel, _ schema: RelationalSchema, bundle: String, configuration: String?)
        -> [StoreMigration]
    {
        let loader = ModelLoader()
        guard let source = loader.source(at: bundle, diagnostics: DiagnosticEngine()) else { return [] }
        var known: Set<String> = [SchemaSnapshot.make(schema).hash]
        var migrations: [StoreMigration] = []
        func add(_ version: String, _ old: ObjectModel, layout: StandardLayout) {
            let engine = DiagnosticEngine()
            guard
                let oldSchema = SchemaLowering(layout: layout).lower(
                    old, configuration: configuration, diagnostics: engine),
                !engine.hasErrors, known.insert(SchemaSnapshot.make(oldSchema).hash).inserted
            else { return }
            migrations.append(make(version: version, from: old, oldSchema, to: model, schema))
        }
        var versions: [(name: String, model: ObjectModel)] = []
        for version in source.versions.sorted(by: { $0.name.compare($1.name, options: .numeric) == .orderedAscending })
        {
            // `model` is one of the versions, already loaded: only the others are read.
            if version.name == model.versionName {
                versions.append((version.name, model))
            } else if let old = loader.load(version, of: source, diagnostics: DiagnosticEngine()) {
                versions.append((version.name, old))
            }
        }
        for (name, old) in versions where name != model.versionName { add(name, old, layout: StandardLayout()) }
        for (name, old) in versions {
            add(name + " (modelgen 0.1)", old, layout: StandardLayout(entityCodes: .sortedPositions))
        }
        return migrations
    }
}
