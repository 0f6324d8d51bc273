import Foundation
import ModelGenRuntime
import Testing

@testable import ModelGenCore

/// `CoreDataLayout` against the stores Core Data wrote (`../shared/corpus/stores`): the schema
/// lowered from each store's model version (STORE-LAYOUT.md §8.2) and written by
/// `CoreDataSQLWriter` equals the store's own `sqlite_master`, statement by statement — tables with
/// their columns in order, indexes — except where the spec says the store must be read instead:
/// the digit suffixes of colliding join columns (R9). Indexes follow the compiled model (R11): where
/// the store has a `Z_MODELCACHE`, its fetch indexes, indexed attributes and uniqueness constraints
/// replace the XML's before lowering.
@Suite struct CoreDataLayoutTests {
    @Test func theLayoutOfEveryCorpusStoreIsPredictedFromItsModel() throws {
        guard let corpus = try CoreDataCorpus.load() else { return }
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var exact = 0
        var compared = 0
        var indexesCompared = 0
        for store in corpus.stores where store.models.count == 1 {
            let (bundle, version) = store.models[0]
            let engine = DiagnosticEngine()
            var model = try #require(ModelLoader().load(path: bundle, version: version, diagnostics: engine))
            let report = try CoreDataStoreInspection.inspect(path: store.path)
            if let compiled = report.compiledModel { Self.takeIndexes(of: compiled, into: &model) }
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
            let storedIndexes = Set(
                try database.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").compactMap {
                    $0[0]
                })
            let predictedIndexes = Set(schema.indexes.map(writer.createIndex))
            #expect(
                predictedIndexes.map(Self.withoutJoinSuffixes).sorted()
                    == storedIndexes.map(Self.withoutJoinSuffixes).sorted(),
                "\(store.name): predicted only \(predictedIndexes.subtracting(storedIndexes).sorted()), stored only \(storedIndexes.subtracting(predictedIndexes).sorted())"
            )
            indexesCompared += storedIndexes.count
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
        #expect(indexesCompared > 100)
    }

    /// The compiled model's fetch indexes, indexed attributes and uniqueness constraints in place
    /// of the XML's (the store's indexes were made from it).
    static func takeIndexes(of compiled: CoreDataCompiledModel, into model: inout ObjectModel) {
        let byName = Dictionary(uniqueKeysWithValues: compiled.entities.map { ($0.name, $0) })
        for index in model.entities.indices {
            guard let entity = byName[model.entities[index].name] else { continue }
            model.entities[index].fetchIndexes = entity.fetchIndexes.map { fetchIndex in
                FetchIndex(
                    name: fetchIndex.name,
                    elements: fetchIndex.elements.map {
                        .init(
                            property: $0.property, expression: nil, isAscending: $0.isAscending, type: "Binary", line: 0
                        )
                    }, isLegacy: false, line: 0)
            }
            let indexed = Set(entity.attributes.filter(\.isIndexed).map(\.name))
            for attribute in model.entities[index].attributes.indices {
                model.entities[index].attributes[attribute].isIndexed =
                    indexed.contains(model.entities[index].attributes[attribute].name)
            }
            model.entities[index].uniquenessConstraints = entity.uniquenessConstraints.map {
                UniquenessConstraint(properties: $0, propertyLines: $0.map { _ in 0 }, line: 0)
            }
        }
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
