import Foundation
import Testing

@testable import ModelGenCore

/// `CoreDataLayout` against the stores Core Data wrote (`../shared/corpus/stores`): the schema
/// lowered from each store's model version (STORE-LAYOUT.md §8.2) and written by
/// `CoreDataSQLWriter` equals the store's own `sqlite_master`, statement by statement — tables with
/// their columns in order, indexes — except where the spec says the store must be read instead:
/// the digit suffixes of colliding join columns (R9), and indexes, which follow the compiled model
/// in the store's `Z_MODELCACHE` rather than the XML (R11; `CoreDataModelCacheTests`).
@Suite struct CoreDataLayoutTests {
    @Test func theLayoutOfEveryCorpusStoreIsPredictedFromItsModel() throws {
        guard let corpus = try CoreDataCorpus.load() else { return }
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var exact = 0
        var compared = 0
        for store in corpus.stores where store.models.count == 1 {
            let (bundle, version) = store.models[0]
            let engine = DiagnosticEngine()
            let model = try #require(ModelLoader().load(path: bundle, version: version, diagnostics: engine))
            let schema = try #require(
                SchemaLowering(layout: CoreDataLayout(frameworkVersion: store.frameworkVersion))
                    .lower(model, diagnostics: engine), "\(store.name): \(engine.diagnostics)")
            let writer = CoreDataSQLWriter(frameworkVersion: store.frameworkVersion)
            let predicted = Set(
                schema.tables.map(writer.createTable)
                    + CoreDataSQLWriter.bookkeepingTables(withModelCache: writer.writesModelCache))
            let database = try SQLiteDatabase(path: store.copy(into: directory))
            let stored = Set(
                try database.rows("SELECT sql FROM sqlite_master WHERE type = 'table'").compactMap { $0[0] })
            compared += 1
            if predicted == stored {
                exact += 1
                continue
            }
            // R9: where join columns collide, Core Data's suffix order is not derivable from the
            // model; the tables must be equal once the suffixes are taken off.
            #expect(
                Set(predicted.map(Self.withoutJoinSuffixes)) == Set(stored.map(Self.withoutJoinSuffixes)),
                "\(store.name): predicted only \(predicted.subtracting(stored).sorted()), stored only \(stored.subtracting(predicted).sorted())"
            )
            #expect(stored.contains { $0.range(of: #"Z_\d+[A-Z]+\d+ INTEGER"#, options: .regularExpression) != nil })
        }
        #expect(compared == 19)
        #expect(exact == 18)
    }

    /// A join column's name without its collision suffix (`Z_3ARTWORKS2` → `Z_3ARTWORKS`).
    static func withoutJoinSuffixes(_ statement: String) -> String {
        statement.replacingOccurrences(of: #"(Z_\d+[A-Z_]*[A-Z])\d+\b"#, with: "$1", options: .regularExpression)
    }

    /// R3: Core Data numbers entities in pre-order with names compared case-insensitively —
    /// `SyncableSettingsMetadata` before `SyncFeatureEntity`, which byte order would swap.
    @Test func entitiesAreNumberedAsCoreDataNumbersThem() throws {
        let model = try #require(
            FrontEnd().run(
                SourceFile(
                    path: "Numbers.xcdatamodel/contents",
                    bytes: Array(
                        """
                        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                            <entity name="SyncFeatureEntity" representedClassName="A" syncable="YES"/>
                            <entity name="SyncableSettingsMetadata" representedClassName="B" syncable="YES"/>
                            <entity name="ZEBRA" representedClassName="C" syncable="YES"/>
                            <entity name="Zeal" representedClassName="G" syncable="YES"/>
                            <entity name="Boat" representedClassName="D" syncable="YES"/>
                            <entity name="Yacht" representedClassName="E" parentEntity="Boat" syncable="YES"/>
                            <entity name="Dinghy" representedClassName="F" parentEntity="Boat" syncable="YES"/>
                        </model>
                        """.utf8)), diagnostics: DiagnosticEngine()))
        let numbers = CoreDataLayout.entityNumbers(of: model)
        let byName = Dictionary(uniqueKeysWithValues: zip(model.entities.map(\.name), numbers))
        #expect(
            byName == [
                "Boat": 1, "Dinghy": 2, "Yacht": 3, "SyncableSettingsMetadata": 4, "SyncFeatureEntity": 5, "Zeal": 6,
                "ZEBRA": 7,
            ])
    }
}
