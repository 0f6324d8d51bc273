import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// Every consecutive pair of versions of the corpus's multi-version bundles: the plan, and where
/// it is neither refused nor waiting for input, the migration of a seeded SQLite database (lossy
/// steps allowed): the schema then introspects as a fresh build of the newer version, every row of
/// every kept table is there with its kept values, and the recorded snapshot is the new one.
@Suite struct MigrationCorpusTests {
    struct Pair: CustomTestStringConvertible, Sendable {
        var bundle: URL
        var from: String
        var to: String
        var testDescription: String { "\(bundle.lastPathComponent): \(from) → \(to)" }
    }

    static let pairs: [Pair] = {
        let root = TestPaths.shared.appendingPathComponent("corpus/models")
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var pairs: [Pair] = []
        for case let url as URL in walker where url.pathExtension == "xcdatamodeld" {
            let versions = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
                .filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
                .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
            for (from, to) in zip(versions, versions.dropFirst()) {
                pairs.append(Pair(bundle: url, from: from, to: to))
            }
        }
        return pairs.sorted { $0.testDescription < $1.testDescription }
    }()

    @Test func thereArePairs() {
        guard TestPaths.sharedFolder("corpus") != nil else { return }
        #expect(Self.pairs.count >= 20, "\(Self.pairs.count) pairs")
        print("migration corpus: \(Self.pairs.count) consecutive version pairs")
    }

    /// Adding or removing entities rewrites no other table: `renumber-entities` is planned only
    /// for a table holding an entity whose identity (renaming ID, else name) is new in it. With
    /// modelgen 0.1's numbers by position, the same pairs renumbered many tables (printed).
    @Test func onlyTablesOfChangedEntitiesAreRenumbered() throws {
        var renumbered = (current: 0, positions: 0)
        for pair in Self.pairs {
            let engine = DiagnosticEngine()
            let loader = ModelLoader()
            guard let old = loader.load(path: pair.bundle.path, version: pair.from, diagnostics: engine),
                let new = loader.load(path: pair.bundle.path, version: pair.to, diagnostics: engine)
            else {
                Issue.record("\(pair.testDescription): \(engine.sorted.map(\.rendered))")
                continue
            }
            let oldIdentities = Set(old.entities.map { $0.elementID ?? $0.name })
            for layout in [StandardLayout(), StandardLayout(entityCodes: .sortedPositions)] {
                let lowering = SchemaLowering(layout: layout)
                guard let oldSchema = lowering.lower(old, diagnostics: engine),
                    let newSchema = lowering.lower(new, diagnostics: engine)
                else { continue }
                let steps = MigrationPlanner().plan(from: old, oldSchema, to: new, newSchema).steps.filter {
                    $0.code == "renumber-entities"
                }
                guard layout.entityCodes == .nameHashes else {
                    renumbered.positions += steps.count
                    continue
                }
                renumbered.current += steps.count
                for step in steps {
                    let entities = newSchema.entities.filter { $0.table == step.subject }.map(\.entity)
                    let changed = new.entities.filter {
                        entities.contains($0.name) && !oldIdentities.contains($0.elementID ?? $0.name)
                    }
                    #expect(!changed.isEmpty, "\(pair.testDescription): \(step.subject) renumbered")
                }
            }
        }
        print("migration corpus: renumber-entities steps: \(renumbered.current) (by position: \(renumbered.positions))")
    }

    /// Both versions and the plan (new required attributes get a value, as `--default` gives);
    /// nil when the plan is refused or still waits for input.
    static func planned(_ pair: Pair) throws -> (
        ObjectModel, RelationalSchema, ObjectModel, RelationalSchema, MigrationPlan
    )? {
        let engine = DiagnosticEngine()
        let loader = ModelLoader()
        guard let old = loader.load(path: pair.bundle.path, version: pair.from, diagnostics: engine),
            let new = loader.load(path: pair.bundle.path, version: pair.to, diagnostics: engine),
            let oldSchema = SchemaLowering().lower(old, diagnostics: engine),
            let newSchema = SchemaLowering().lower(new, diagnostics: engine)
        else {
            Issue.record("\(engine.sorted.map(\.rendered))")
            return nil
        }
        var defaults: [String: String] = [:]
        for table in newSchema.tables {
            let requiredForSome = Set(
                table.checks.compactMap { check -> String? in
                    if case .requiredFor(let column, _) = check.condition { return column }
                    return nil
                })
            for column in table.columns
            where (!column.isNullable || requiredForSome.contains(column.name)) && column.defaultValue == nil {
                guard let source = column.source else { continue }
                switch column.type {
                case .integer16, .integer32, .integer64: defaults[source] = "1"
                case .double, .float, .decimal: defaults[source] = "1.5"
                case .text, .uri: defaults[source] = "filled"
                case .boolean: defaults[source] = "true"
                default: continue
                }
            }
        }
        let plan = MigrationPlanner(defaults: defaults).plan(from: old, oldSchema, to: new, newSchema)
        let blocked = plan.steps.filter { $0.safety == .refused || $0.safety == .needsInput }
        guard blocked.isEmpty else {
            print("migration corpus: \(pair.testDescription): not run: \(blocked.map { "\($0.code) \($0.subject)" })")
            return nil
        }
        return (old, oldSchema, new, newSchema, plan)
    }

    /// The kept tables of a plan: new name → (old name, old columns, new columns, the old rows'
    /// filter) whose values are copied as they are; tables that receive moved rows included.
    static func keptColumns(_ plan: MigrationPlan) -> [String: (
        table: String, columns: [String], newColumns: [String], filter: String
    )] {
        var kept: [String: (table: String, columns: [String], newColumns: [String], filter: String)] = [:]
        for copy in plan.rowCopies {
            let pairs = copy.columns.filter { $0.key != "_entity" }.sorted { $0.key < $1.key }
            kept[copy.to] = (
                copy.from, pairs.map(\.value), pairs.map(\.key),
                " WHERE \"_entity\" IN (" + copy.entities.keys.sorted().map(String.init).joined(separator: ", ") + ")"
            )
        }
        for case .alter(let oldTable, let newTable, let sources, _, let keptEntities) in plan.tables
        where keptEntities == nil {
            var columns: [String] = []
            var newColumns: [String] = []
            for column in newTable.columns {
                if case .column(let name)? = sources[column.name], oldTable.column(named: name)?.type == column.type {
                    columns.append(name)
                    newColumns.append(column.name)
                }
            }
            if !columns.isEmpty { kept[newTable.name] = (oldTable.name, columns, newColumns, "") }
        }
        return kept
    }

    /// A store of the old version with two objects of every concrete entity, saved through the
    /// runtime (`RuntimeSeeder.seedEverything`), in a new directory.
    static func seededStore(_ old: ObjectModel, _ oldSchema: RelationalSchema) throws -> URL {
        let directory = try TestPaths.temporaryDirectory()
        let path = directory.appendingPathComponent("seed.sqlite")
        try RuntimeSeeder.seedEverything(model: old, schema: oldSchema, at: path.path)
        return path
    }

    @Test(arguments: pairs)
    func migratesASeededSQLiteDatabase(_ pair: Pair) throws {
        guard let (old, oldSchema, new, newSchema, plan) = try Self.planned(pair) else { return }
        let seed = try Self.seededStore(old, oldSchema)
        defer { try? FileManager.default.removeItem(at: seed.deletingLastPathComponent()) }
        var copies = 0
        func seeded() throws -> SQLiteDatabase {
            copies += 1
            let copy = seed.deletingLastPathComponent().appendingPathComponent("copy-\(copies).sqlite")
            try FileManager.default.copyItem(at: seed, to: copy)
            return try SQLiteDatabase(path: copy.path)
        }
        let database = try seeded()
        let before = try MigrationSQLiteTests.dump(database)
        // Every concrete entity got its two objects.
        var stored = 0
        for table in oldSchema.tables where table.kind == .entity {
            stored += Int(try database.rows("SELECT count(*) FROM \(SQLNaming.quoted(table.name))")[0][0] ?? "0") ?? 0
        }
        let concrete = SwiftGenerator.runtimeMetadata(model: old, schema: oldSchema).filter { !$0.isAbstract }.count
        #expect(stored == 2 * concrete)
        let broken = try database.rows("PRAGMA foreign_key_check")
        #expect(broken.isEmpty, "the seed itself breaks a foreign key: \(broken)")
        // What must survive: each kept table's rows, by primary key, in its kept columns.
        let kept = Self.keptColumns(plan)
        var expected: [String: [[String?]]] = [:]
        for (table, columns) in kept {
            expected[table] = try database.rows(
                "SELECT \(columns.columns.map(SQLNaming.quoted).joined(separator: ", ")) FROM \(SQLNaming.quoted(columns.table))\(columns.filter) ORDER BY 1"
            )
        }
        let statements = SQLiteMigrationRenderer().statements(plan)
        if let failure = MigrationSQLiteTests.apply(statements, to: database) {
            Issue.record("\(failure)\n\(statements.joined(separator: ";\n"))")
            return
        }
        let differences = try SchemaFacts(sqlite: database).differences(
            from: SchemaFacts(expected: newSchema, dialect: .sqlite))
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        for (table, columns) in kept {
            let rows = try database.rows(
                "SELECT \(columns.newColumns.map(SQLNaming.quoted).joined(separator: ", ")) FROM \(SQLNaming.quoted(table)) ORDER BY 1"
            )
            #expect(rows == expected[table], "\(table)")
        }
        #expect(try database.rows("PRAGMA integrity_check") == [["ok"]])
        let recorded = try database.rows(#"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'schema'"#)
        #expect(recorded == [[SchemaSnapshot.make(newSchema).json]])
        #expect(MigrationPlanner().plan(from: new, newSchema, to: new, newSchema).isEmpty)
        // A failure after any statement leaves the old database as it was.
        for stop in 1..<statements.count - 3 {
            let injected = try seeded()
            #expect(MigrationSQLiteTests.apply(statements, to: injected, stopAfter: stop) != nil)
            #expect(
                try MigrationSQLiteTests.dump(injected) == before, "after statement \(stop): \(statements[stop - 1])")
        }
    }

    @Test(arguments: pairs)
    func migratesASeededPostgresDatabase(_ pair: Pair) throws {
        guard let cluster = PostgresCluster.shared(),
            let (old, oldSchema, new, newSchema, plan) = try Self.planned(pair)
        else { return }
        let base = "corpus_mig_" + SHA256.hex(Array(pair.testDescription.utf8)).prefix(10)
        // The rows the runtime saved in SQLite, copied.
        let seed = try Self.seededStore(old, oldSchema)
        defer { try? FileManager.default.removeItem(at: seed.deletingLastPathComponent()) }
        let setup =
            SQLEmitter(dialect: .postgres).emit(oldSchema) + "\nBEGIN;\nSET CONSTRAINTS ALL DEFERRED;\n"
            + (try SeedCopy.postgresStatements(from: SQLiteDatabase(path: seed.path), schema: oldSchema)).map {
                $0 + ";\n"
            }.joined() + "COMMIT;\n"
        try MigrationPostgresTests.prepare(cluster, base, setup: setup)
        let before = try MigrationPostgresTests.dump(cluster, base)
        let kept = Self.keptColumns(plan)
        var expected: [String: [[String]]] = [:]
        for (table, columns) in kept {
            expected[table] = try cluster.rows(
                "\\pset null '∅'\nSELECT \(columns.columns.map(SQLNaming.quoted).joined(separator: ", ")) FROM \(SQLNaming.quoted(columns.table))\(columns.filter) ORDER BY 1",
                schema: base)
        }
        let statements = PostgresMigrationRenderer().statements(plan)
        let migrated = try cluster.psql(statements.map { $0 + ";\n" }.joined(), schema: base)
        try #require(migrated.status == 0, "\(migrated.stderr)\n\(statements.joined(separator: ";\n"))")
        let differences = try SchemaFacts(postgres: cluster, schema: base).differences(
            from: SchemaFacts(expected: newSchema, dialect: .postgres))
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        for (table, columns) in kept {
            let rows = try cluster.rows(
                "\\pset null '∅'\nSELECT \(columns.newColumns.map(SQLNaming.quoted).joined(separator: ", ")) FROM \(SQLNaming.quoted(table)) ORDER BY 1",
                schema: base)
            #expect(rows == expected[table], "\(table)")
        }
        let recorded = try cluster.rows(
            #"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'schema_hash'"#, schema: base)
        #expect(recorded == [[SchemaSnapshot.make(newSchema).hash]])
        #expect(MigrationPlanner().plan(from: new, newSchema, to: new, newSchema).isEmpty)
        try MigrationPostgresTests.injectFailures(
            cluster, base: base, setup: setup, statements: statements, before: before)
        _ = try cluster.psql("DROP SCHEMA \(SQLNaming.quoted(base)) CASCADE;")
    }
}
