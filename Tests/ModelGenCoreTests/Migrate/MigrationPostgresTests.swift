import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// The change kinds of `MigrationSQLiteTests` on a real PostgreSQL server: old schema and rows in
/// a schema of their own, the migration's `ALTER`s, then the introspected schema, the rows, the
/// recorded snapshot, and a failure injected after every statement leaving everything as it was.
@Suite struct MigrationPostgresTests {
    /// Everything a PostgreSQL schema holds: its tables' and indexes' columns, its constraints
    /// (without the schema's name, so two schemas compare) and every table's rows.
    static func dump(_ cluster: PostgresCluster, _ schema: String) throws -> [[String]] {
        let namespace = SQLNaming.literal(schema)
        var rows = try cluster.rows(
            """
            SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(namespace) AND c.relkind IN ('r', 'i') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2
            """)
        rows += try cluster.rows(
            "SELECT conname, replace(pg_get_constraintdef(oid), \(SQLNaming.literal(schema + ".")), '') FROM pg_constraint WHERE connamespace = (SELECT oid FROM pg_namespace WHERE nspname = \(namespace)) ORDER BY 1"
        )
        for table in try cluster.rows(
            "SELECT tablename FROM pg_tables WHERE schemaname = \(namespace) ORDER BY 1")
        {
            rows += try cluster.rows(
                "SELECT * FROM \(SQLNaming.quoted(schema)).\(SQLNaming.quoted(table[0])) ORDER BY 1")
        }
        return rows
    }

    /// Makes `schema` afresh with `setup` (the old schema and its rows).
    static func prepare(_ cluster: PostgresCluster, _ schema: String, setup: String) throws {
        _ = try cluster.psql("DROP SCHEMA IF EXISTS \(SQLNaming.quoted(schema)) CASCADE;")
        let output = try cluster.psql(setup, schema: schema)
        try #require(output.status == 0, "\(output.stderr)")
    }

    /// For every statement of the migration, a fresh copy of the old database where the script
    /// fails right after it: the copy must end exactly as `before`.
    static func injectFailures(
        _ cluster: PostgresCluster, base: String, setup: String, statements: [String], before: [[String]]
    ) throws {
        for stop in 2..<statements.count - 1 {
            let schema = base + "_\(stop)"
            try prepare(cluster, schema, setup: setup)
            var script = statements
            script.insert("SELECT 1 / 0", at: stop)
            #expect(try cluster.psql(script.map { $0 + ";\n" }.joined(), schema: schema).status != 0)
            let after = try dump(cluster, schema)
            #expect(
                after == before,
                "after statement \(stop): \(statements[stop - 1]): \(after.filter { !before.contains($0) })")
            _ = try cluster.psql("DROP SCHEMA \(SQLNaming.quoted(schema)) CASCADE;")
        }
    }

    @Test(arguments: MigrationSQLiteTests.cases)
    func migrates(_ testCase: MigrationSQLiteTests.Case) throws {
        guard let cluster = PostgresCluster.shared() else { return }
        let (oldModel, oldSchema) = try MigrationSQLiteTests.load(testCase.old)
        let (newModel, newSchema) = try MigrationSQLiteTests.load(testCase.new)
        let plan = MigrationPlanner(defaults: testCase.defaults).plan(
            from: oldModel, oldSchema, to: newModel, newSchema)
        guard let check = testCase.check, plan.blockingSteps(allowDataLoss: testCase.allowDataLoss).isEmpty else {
            return
        }
        let statements = PostgresMigrationRenderer().statements(plan)
        let base = "mig_" + SHA256.hex(Array(testCase.name.utf8)).prefix(10)
        // The old schema's rows, as the runtime saved them in SQLite.
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = directory.appendingPathComponent("seed.sqlite").path
        try RuntimeSeeder.seed(testCase.seed, model: oldModel, schema: oldSchema, at: seed)
        let inserts = try SeedCopy.postgresStatements(from: SQLiteDatabase(path: seed), schema: oldSchema)
        let setup =
            SQLEmitter(dialect: .postgres).emit(oldSchema) + "\nBEGIN;\nSET CONSTRAINTS ALL DEFERRED;\n"
            + inserts.map { $0 + ";\n" }.joined() + "COMMIT;\n"
        try Self.prepare(cluster, base, setup: setup)
        let before = try Self.dump(cluster, base)
        let migrated = try cluster.psql(statements.map { $0 + ";\n" }.joined(), schema: base)
        if check.rows.isEmpty {
            #expect(migrated.status != 0, "the migration should have been stopped by a preflight")
            // Stopped by the preflight when there is one, else by the new constraint itself.
            let reason = plan.steps.first { $0.preflight != nil }.map { "ERROR:  \($0.code)" } ?? "ERROR:"
            #expect(migrated.stderr.contains(reason), "stopped for another reason: \(migrated.stderr)")
            #expect(try Self.dump(cluster, base) == before)
            return
        }
        try #require(migrated.status == 0, "\(migrated.stderr)\n\(statements.joined(separator: ";\n"))")

        let differences = try SchemaFacts(postgres: cluster, schema: base).differences(
            from: SchemaFacts(expected: newSchema, dialect: .postgres))
        #expect(differences.isEmpty, "\(differences)")
        let rows = try cluster.rows("\\pset null '∅'\n" + check.sql, schema: base)
        #expect(rows == check.rows.map { $0.map { $0 ?? "∅" } }, "\(rows)")
        let recorded = try cluster.rows(
            #"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'schema_hash'"#, schema: base)
        #expect(recorded == [[SchemaSnapshot.make(newSchema).hash]])
        #expect(MigrationPlanner().plan(from: newModel, newSchema, to: newModel, newSchema).isEmpty)
        try Self.injectFailures(cluster, base: base, setup: setup, statements: statements, before: before)
        _ = try cluster.psql("DROP SCHEMA \(SQLNaming.quoted(base)) CASCADE;")
    }
}
