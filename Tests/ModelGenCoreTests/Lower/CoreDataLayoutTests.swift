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
    static let testedIDs: Set<String> = ["coredata-layout-unsupported", "merged-entity-twice"]

    static func model(_ name: String, _ entities: String) throws -> ObjectModel {
        let text = """
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            \(entities)
            </model>
            """
        return try #require(
            FrontEnd().run(
                SourceFile(path: "\(name).xcdatamodel/contents", bytes: Array(text.utf8)),
                diagnostics: DiagnosticEngine()))
    }

    /// A composite attribute has no known place in Core Data's tables: a located error, not a guess.
    @Test func aCompositeAttributeIsRefused() throws {
        let model = try Self.model(
            "Places",
            """
            <entity name="Place" representedClassName="Place" syncable="YES">
                <attribute name="spot" optional="YES" attributeType="Composite" composite="Point"/>
            </entity>
            <composite name="Point">
                <attribute name="x" attributeType="Double" defaultValueString="0"/>
            </composite>
            """)
        let engine = DiagnosticEngine()
        #expect(SchemaLowering(layout: CoreDataLayout()).lower(model, diagnostics: engine) == nil)
        let diagnostic = try #require(engine.diagnostics.first { $0.id == "coredata-layout-unsupported" })
        #expect(diagnostic.location?.line == 3)
        #expect(diagnostic.message == "composite attribute 'spot' has no known place in Core Data's store layout")
    }

    /// Merged models keep each model's references and are numbered as one model (R3); an entity
    /// name in two of them is an error located in the second.
    @Test func mergedModelsAreNumberedAsOneAndRefuseTwinEntities() throws {
        let first = try Self.model(
            "First",
            #"<entity name="Zebra" representedClassName="Zebra" syncable="YES"><relationship name="friend" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Zebra"/></entity>"#
        )
        let second = try Self.model(
            "Second",
            """
            <entity name="Antelope" representedClassName="Antelope" syncable="YES"/>
            <entity name="Moose" representedClassName="Moose" parentEntity="Antelope" syncable="YES"/>
            """)
        let engine = DiagnosticEngine()
        let merged = try #require(ObjectModel.merging([first, second], name: "Zoo", diagnostics: engine))
        #expect(merged.entities.map(\.name) == ["Zebra", "Antelope", "Moose"])
        #expect(merged.entities[0].relationships[0].destination == 0)
        #expect(merged.entities[2].parent == 1 && merged.entities[2].root == 1)
        #expect(CoreDataLayout.entityNumbers(of: merged) == [3, 1, 2])
        let twice = DiagnosticEngine()
        #expect(ObjectModel.merging([second, second], name: "Twice", diagnostics: twice) == nil)
        let diagnostic = try #require(twice.diagnostics.first { $0.id == "merged-entity-twice" })
        #expect(diagnostic.location?.line == 2)
    }
    @Test func theLayoutOfEveryCorpusStoreIsPredictedFromItsModel() throws {
        guard let corpus = try CoreDataCorpus.load() else { return }
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var exact = 0
        var compared = 0
        var indexesCompared = 0
        for store in corpus.stores {
            let engine = DiagnosticEngine()
            // A store of several bundles holds their merged model.
            var models: [ObjectModel] = []
            for (bundle, version) in store.models {
                models.append(try #require(ModelLoader().load(path: bundle, version: version, diagnostics: engine)))
            }
            var model = try #require(
                models.count == 1 ? models[0] : ObjectModel.merging(models, name: "Merged", diagnostics: engine))
            let report = try CoreDataStoreInspection.inspect(path: store.path)
            if let compiled = report.compiledModel {
                Self.takeIndexes(of: compiled, into: &model, frameworkVersion: store.frameworkVersion)
            }
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
        #expect(compared == 20)
        #expect(exact == 19)
        #expect(indexesCompared > 100)
    }

    /// The compiled model's fetch indexes, indexed attributes and uniqueness constraints in place
    /// of the XML's (the store's indexes were made from it). From framework version 836 on, the
    /// compiler has already made an indexed attribute a fetch index named after it (R11), which the
    /// compiled model lists; its attributes' own flag then makes no index.
    static func takeIndexes(of compiled: CoreDataCompiledModel, into model: inout ObjectModel, frameworkVersion: Int) {
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
            let indexed = frameworkVersion <= 754 ? Set(entity.attributes.filter(\.isIndexed).map(\.name)) : []
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

extension CoreDataLayoutTests {
    /// The fingerprint hashed while the lines are made is the one of the lines themselves
    /// (`ObjectModel.fingerprint`), which the runtime computes from a store's model cache.
    @Test func theFingerprintIsThatOfTheFeatureLines() throws {
        guard let corpus = try CoreDataCorpus.load() else { return }
        for store in corpus.stores where store.models.count == 1 {
            let (bundle, version) = store.models[0]
            let model = try #require(
                ModelLoader().load(path: bundle, version: version, diagnostics: DiagnosticEngine()))
            #expect(model.coreDataVersionFingerprint == ObjectModel.fingerprint(model.coreDataVersionFeatures))
            let report = try CoreDataStoreInspection.inspect(path: store.path)
            if let compiled = report.compiledModel {
                #expect(compiled.versionFingerprint == model.coreDataVersionFingerprint, "\(store.name)")
            }
        }
    }
}
