import Foundation
import FoundationXML
import Testing

@testable import ModelGenCore

/// Every real model under `shared/corpus` loads with zero errors, and the front end counts the
/// same elements as an independent reader (Foundation's `XMLDocument`).
@Suite struct CorpusTests {
    static let contentsFiles: [URL] = {
        let root = TestPaths.shared.appendingPathComponent("corpus")
        return TestPaths.files(named: "contents", under: root)
    }()

    @Test func corpusIsPresentAndComplete() throws {
        guard let root = TestPaths.sharedFolder("corpus") else { return }
        let files = TestPaths.files(named: "contents", under: root)
        print("corpus: \(files.count) model versions")
        #expect(files.count >= 110)
    }

    @Test(arguments: contentsFiles)
    func versionLoadsWithoutErrorsAndCountsMatch(_ url: URL) throws {
        let engine = DiagnosticEngine()
        let bytes = try [UInt8](Data(contentsOf: url))
        let model = FrontEnd().run(SourceFile(path: url.path, bytes: bytes), diagnostics: engine)
        let errors = engine.sorted.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.map(\.rendered).joined(separator: "\n"))")
        let loaded = try #require(model)
        let expected = try IndependentCounts(url)
        #expect(Counts(loaded) == expected.counts)
    }

    @Test func everyBundleLoadsItsCurrentAndAllVersions() throws {
        guard let root = TestPaths.sharedFolder("corpus") else { return }
        let bundles = TestPaths.directories(withSuffix: ".xcdatamodeld", under: root)
        #expect(bundles.count > 40)
        var versionCount = 0
        for bundle in bundles {
            let engine = DiagnosticEngine()
            let loader = ModelLoader()
            guard let source = loader.source(at: bundle.path, diagnostics: engine) else {
                // A bundle without versions (RestKitCoreData) is reported, not crashed on.
                #expect(engine.sorted.map(\.id) == ["no-model-versions"], "\(bundle.path)")
                continue
            }
            versionCount += source.versions.count
            #expect(loader.load(path: bundle.path, diagnostics: engine) != nil, "\(bundle.path)")
            for (version, model) in loader.loadAll(path: bundle.path, diagnostics: engine) {
                #expect(model != nil, "\(bundle.path) \(version.name)")
            }
            #expect(!engine.hasErrors, "\(engine.sorted.map(\.rendered))")
        }
        #expect(versionCount >= 107)
    }
}

/// The numbers the cross-check compares.
struct Counts: Equatable, CustomStringConvertible {
    var entities = 0
    var attributes = 0
    var relationships = 0
    var fetchedProperties = 0
    var fetchRequests = 0
    var uniquenessConstraints = 0
    var configurations = 0
    var fetchIndexes = 0

    init() {}

    init(_ model: ObjectModel) {
        entities = model.entities.count
        attributes =
            model.entities.reduce(0) { $0 + $1.attributes.count }
            + model.composites.reduce(0) { $0 + $1.attributes.count }
        relationships = model.entities.reduce(0) { $0 + $1.relationships.count }
        fetchedProperties = model.entities.reduce(0) { $0 + $1.fetchedProperties.count }
        fetchRequests = model.fetchRequests.count
        uniquenessConstraints = model.entities.reduce(0) { $0 + $1.uniquenessConstraints.count }
        configurations = model.configurations.count
        fetchIndexes = model.entities.reduce(0) { $0 + $1.fetchIndexes.count }
    }

    var description: String {
        "entities \(entities), attributes \(attributes), relationships \(relationships), fetched properties \(fetchedProperties), fetch requests \(fetchRequests), constraints \(uniquenessConstraints), configurations \(configurations), indexes \(fetchIndexes)"
    }
}

/// Counts elements with FoundationXML's `XMLDocument`, which shares nothing with modelgen's reader.
struct IndependentCounts {
    var counts = Counts()

    init(_ url: URL) throws {
        let document = try XMLDocument(contentsOf: url, options: [])
        func count(_ xpath: String) throws -> Int { try document.nodes(forXPath: xpath).count }
        counts.entities = try count("/model/entity")
        counts.attributes = try count("/model/entity/attribute") + count("/model/composite/attribute")
        counts.relationships = try count("/model/entity/relationship")
        counts.fetchedProperties = try count("/model/entity/fetchedProperty")
        counts.fetchRequests = try count("/model/fetchRequest")
        counts.uniquenessConstraints = try count("/model/entity/uniquenessConstraints/uniquenessConstraint")
        counts.configurations = try count("/model/configuration")
        counts.fetchIndexes =
            try count("/model/entity/fetchIndex") + count("/model/entity/compoundIndexes/compoundIndex")
    }
}

extension TestPaths {
    static func directories(withSuffix suffix: String, under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        var result: [URL] = []
        for case let url as URL in enumerator where url.lastPathComponent.hasSuffix(suffix) {
            result.append(url)
        }
        return result.sorted { $0.path < $1.path }
    }
}
