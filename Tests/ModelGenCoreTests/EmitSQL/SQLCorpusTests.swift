import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// Every model version of the corpus lowers to DDL that applies to fresh SQLite and PostgreSQL
/// databases, passes their integrity checks, and introspects to exactly the tables, columns,
/// NOT NULLs, unique keys and foreign keys its `RelationalSchema` says.
@Suite struct SQLCorpusTests {
    static func lowered(_ url: URL) throws -> RelationalSchema {
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: url.path, bytes: [UInt8](try Data(contentsOf: url))), diagnostics: engine))
        let schema = SchemaLowering().lower(model, diagnostics: engine)
        #expect(!engine.hasErrors, "\(engine.sorted.map(\.rendered))")
        return try #require(schema)
    }

    /// The corpus and the torture model (names of standard-library and runtime types, keywords,
    /// same-named sibling properties).
    static let models = CorpusTests.contentsFiles + [GeneratedSwiftCorpusTests.tortureContents]

    @Test(arguments: models)
    func sqliteDDLAppliesAndMatchesTheSchema(_ url: URL) throws {
        let schema = try Self.lowered(url)
        let database = try SQLiteDatabase()
        try database.execute(SQLEmitter(dialect: .sqlite).emit(schema))
        #expect(try database.rows("PRAGMA integrity_check") == [["ok"]])
        #expect(try database.rows("PRAGMA foreign_key_check").isEmpty)
        let differences = try SchemaFacts(sqlite: database).differences(
            from: SchemaFacts(expected: schema, dialect: .sqlite))
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test(arguments: models)
    func postgresDDLAppliesAndMatchesTheSchema(_ url: URL) throws {
        guard let cluster = PostgresCluster.shared() else { return }
        let schema = try Self.lowered(url)
        let name = "corpus_" + SHA256.hex(Array(url.path.utf8)).prefix(12)
        let applied = try cluster.psql(SQLEmitter(dialect: .postgres).emit(schema), schema: name)
        #expect(applied.status == 0, "\(applied.stderr)")
        let differences = try SchemaFacts(postgres: cluster, schema: name).differences(
            from: SchemaFacts(expected: schema, dialect: .postgres))
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }
}

/// The snapshot writer gives the bytes encoding the schema through `DumpEncoder` gives.
@Suite struct SchemaSnapshotTests {
    @Test(arguments: CorpusTests.contentsFiles)
    func directWriterMatchesTheEncoder(_ url: URL) throws {
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: url.path, bytes: [UInt8](Data(contentsOf: url))), diagnostics: engine))
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        #expect(SchemaSnapshot.json(schema) == (try DumpValue.from(schema).compactJSON))
    }
}
