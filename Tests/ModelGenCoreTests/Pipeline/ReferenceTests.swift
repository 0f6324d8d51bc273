import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// Golden outputs for every model in `Models/`: the relational schema dump and the DDL of both
/// dialects, compared byte for byte with `Tests/ModelGenCoreTests/Reference/<Model>/`, and the
/// reference DDL executed on fresh SQLite and PostgreSQL databases; the generated Swift, compared
/// with `Tests/GeneratedModels/<Model>/` (the `GeneratedModels` target), where the runtime tests compile and use it.
///
/// `MODELGEN_RECORD=1 swift test --filter ReferenceTests` rewrites the files; a missing file is
/// written and the test fails, so every new reference is reviewed in the diff.
@Suite struct ReferenceTests {
    static let referenceRoot = PackagePaths.tests("ModelGenCoreTests", "Reference")

    static let models: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestPaths.models.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodeld") }.map { String($0.dropLast(".xcdatamodeld".count)) }
            .sorted()
    }()

    static let generatedRoot = PackagePaths.root.appendingPathComponent("Tests/GeneratedModels")

    /// Models generated `observable` (as the plugin does with `"observable": true`), so the runtime
    /// tests can observe their objects; `Scripts/record-generated.sh` passes `--observable` for them.
    static let observableModels: Set<String> = ["Tasks"]

    static var isRecording: Bool { ProcessInfo.processInfo.environment["MODELGEN_RECORD"] == "1" }

    static func outputs(for name: String) throws -> [String: String] {
        let engine = DiagnosticEngine()
        let path = TestPaths.models.appendingPathComponent(name + ".xcdatamodeld").path
        let model = try #require(ModelLoader().load(path: path, diagnostics: engine))
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        #expect(engine.diagnostics.isEmpty, "unexpected diagnostics: \(engine.sorted.map(\.rendered))")
        return [
            "schema.txt": try DumpValue.from(schema).text,
            "sqlite.sql": SQLEmitter(dialect: .sqlite).emit(schema),
            "postgres.sql": SQLEmitter(dialect: .postgres).emit(schema),
        ]
    }

    @Test func everyModelHasReferences() {
        #expect(Self.models.count == 10)
    }

    @Test(arguments: models)
    func generatedSwiftMatchesTheReference(_ name: String) throws {
        let engine = DiagnosticEngine()
        let path = TestPaths.models.appendingPathComponent(name + ".xcdatamodeld").path
        let options = SwiftGenerationOptions(
            access: .public, sourceName: name + ".xcdatamodeld", observable: Self.observableModels.contains(name))
        let files = try #require(try GeneratePipeline(options: options).run(path: path, diagnostics: engine))
        let directory = Self.generatedRoot.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let present = Set(
            (try FileManager.default.contentsOfDirectory(atPath: directory.path)).filter { $0.hasSuffix(".swift") })
        if Self.isRecording {
            for stale in present.subtracting(files.map(\.name)) {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(stale))
            }
        } else {
            #expect(
                present.subtracting(files.map(\.name)).isEmpty,
                "files the generator no longer writes: \(present.subtracting(files.map(\.name)).sorted())")
        }
        for file in files {
            let url = directory.appendingPathComponent(file.name)
            let expected = try? String(contentsOf: url, encoding: .utf8)
            if Self.isRecording || expected == nil {
                try file.contents.write(to: url, atomically: true, encoding: .utf8)
                if expected == nil {
                    Issue.record("recorded missing reference \(name)/\(file.name); review and commit it")
                }
                continue
            }
            #expect(
                file.contents == expected,
                "\(name)/\(file.name) differs from the reference:\n\(UnifiedDiff.render(expected: expected!, actual: file.contents))"
            )
        }
    }

    @Test(arguments: models)
    func outputMatchesTheReference(_ name: String) throws {
        let directory = Self.referenceRoot.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (file, actual) in try Self.outputs(for: name).sorted(by: { $0.key < $1.key }) {
            let url = directory.appendingPathComponent(file)
            let expected = try? String(contentsOf: url, encoding: .utf8)
            if Self.isRecording || expected == nil {
                try actual.write(to: url, atomically: true, encoding: .utf8)
                if expected == nil { Issue.record("recorded missing reference \(name)/\(file); review and commit it") }
                continue
            }
            #expect(
                actual == expected,
                "\(name)/\(file) differs from the reference:\n\(UnifiedDiff.render(expected: expected!, actual: actual))"
            )
        }
    }

    @Test(arguments: models)
    func referenceDDLRunsOnSQLite(_ name: String) throws {
        let url = Self.referenceRoot.appendingPathComponent(name).appendingPathComponent("sqlite.sql")
        let ddl = try String(contentsOf: url, encoding: .utf8)
        let database = try SQLiteDatabase()
        try database.execute(ddl)
        #expect(try database.rows("PRAGMA integrity_check") == [["ok"]])
        #expect(try database.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try database.rows(#"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'model'"#) == [[name]])
    }

    @Test(arguments: models)
    func referenceDDLRunsOnPostgres(_ name: String) throws {
        guard let cluster = PostgresCluster.shared() else { return }
        let url = Self.referenceRoot.appendingPathComponent(name).appendingPathComponent("postgres.sql")
        let schema = "reference_" + SQLNaming.snakeCase(name)
        let result = try cluster.psql(try String(contentsOf: url, encoding: .utf8), schema: schema)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try cluster.rows(#"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'model'"#, schema: schema) == [
                [name]
            ])
    }
}
