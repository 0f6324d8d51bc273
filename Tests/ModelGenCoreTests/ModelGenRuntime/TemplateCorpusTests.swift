import Foundation
import ModelGenRuntime
import TestSupport
import Testing

@testable import ModelGenCore

/// Every fetch-request template and fetched property of the models in the corpus and `Models/`
/// runs against a store seeded with objects of every entity: its predicate is made with values for
/// its variables (an object of each entity, a string, numbers, a Boolean, a date, a UUID, data —
/// the first combination the predicate takes) and fetched; one that validation reports as not run
/// by the runtime (and gets no generated function) must indeed fail.
@Suite struct TemplateCorpusTests {
    @Test func everyTemplateAndFetchedPropertyRuns() throws {
        var files = TestPaths.files(named: "contents", under: PackagePaths.root.appendingPathComponent("Models"))
        if let corpus = TestPaths.sharedFolder("corpus") { files += TestPaths.files(named: "contents", under: corpus) }
        var ran = 0
        var refused = 0
        var failures: [String] = []
        for file in files {
            let engine = DiagnosticEngine()
            guard let bytes = try? [UInt8](Data(contentsOf: file)),
                var model = FrontEnd().run(SourceFile(path: file.path, bytes: bytes), diagnostics: engine),
                let schema = SchemaLowering().lower(model, diagnostics: engine), !engine.hasErrors
            else { continue }
            model.modelName = "Templates"
            // What the generator decides: a predicate the runtime cannot run gets no function.
            func refusal(_ request: ModelGenCore.FetchRequest) -> String? {
                guard let node = request.predicate?.node, let entity = request.entity else { return nil }
                return RuntimePredicateSupport.refusal(node, entity: entity, in: model)?.reason
            }
            let queries:
                [(
                    label: String, entity: String, format: String, variables: [String], source: String?,
                    refusal: String?
                )] =
                    model.fetchRequests.compactMap { request in
                        request.predicateString.map {
                            (
                                "template \(request.name)", request.entityName, $0, request.variables, nil,
                                refusal(request)
                            )
                        }
                    }
                    + model.entities.flatMap { entity in
                        entity.fetchedProperties.compactMap { property in
                            property.request.predicateString.map {
                                (
                                    "fetched property \(entity.name).\(property.name)", property.request.entityName, $0,
                                    property.request.variables.filter { $0 != "FETCH_SOURCE" }, entity.name,
                                    refusal(property.request)
                                )
                            }
                        }
                    }
            guard !queries.isEmpty else { continue }
            let directory = try TestPaths.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("seed.sqlite").path
            try RuntimeSeeder.seedEverything(model: model, schema: schema, at: path)
            let store = try PersistentStore(
                path: path, model: RuntimeSeeder.runtimeModel(model, schema, patterns: false))
            let context = store.newContext()
            func type(_ name: String) -> (any DynamicFetching.Type)? {
                store.model.entities.first { $0.name == name }?.objectType as? any DynamicFetching.Type
            }
            var objects: [Any?] = []
            for entity in store.model.entities {
                if let object = try type(entity.name)?.fetch(
                    context, format: nil, variables: [:], prefetching: [], limit: 1
                ).first {
                    objects.append(object)
                }
            }
            let candidates: [Any?] =
                objects + ["text", 1, 1.5, true, Date(timeIntervalSinceReferenceDate: 0), UUID(), Data([1])]
            let relative = file.path.replacingOccurrences(of: PackagePaths.root.path + "/", with: "")
            for query in queries {
                guard let target = type(query.entity) else {
                    failures.append("\(relative): \(query.label): no class for \(query.entity)")
                    continue
                }
                var fixed: [String: Any?] = [:]
                if let source = query.source {
                    fixed["FETCH_SOURCE"] = try type(source)?.fetch(
                        context, format: nil, variables: [:], prefetching: [], limit: 1
                    ).first
                }
                // The first combination of candidate values the predicate takes.
                var lastError: (any Error)?
                var done = false
                func attempt(_ index: Int, _ values: [String: Any?]) {
                    guard !done else { return }
                    if index == query.variables.count {
                        do {
                            _ = try target.fetch(
                                context, format: query.format, variables: values, prefetching: [], limit: nil)
                            done = true
                        } catch { lastError = error }
                        return
                    }
                    for candidate in candidates {
                        var next = values
                        next[query.variables[index]] = candidate
                        attempt(index + 1, next)
                        if done { return }
                    }
                }
                attempt(0, fixed)
                if let reason = query.refusal {
                    // Reported at generate time: the runtime must indeed refuse it.
                    refused += 1
                    if done {
                        failures.append("\(relative): \(query.label) runs, yet is reported as not run: \(reason)")
                    }
                } else if done {
                    ran += 1
                } else {
                    failures.append(
                        "\(relative): \(query.label) '\(query.format)': \(lastError.map { "\($0)" } ?? "?")")
                }
            }
        }
        print(
            "templates and fetched properties run: \(ran), reported at generate time and refused: \(refused), failing: \(failures.count)"
        )
        #expect(ran > 0)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
