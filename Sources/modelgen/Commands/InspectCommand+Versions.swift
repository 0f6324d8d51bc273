import ModelGenCore
import ModelGenRuntime

/// Which version of a model bundle wrote a Core Data store, decided by the runtime's own binder:
/// each version's runtime description (what its generated code would say) is bound to the store
/// read-only, as `PersistentStore(coreDataStoreAt:)` binds it, and the versions the store binds to
/// without a difference — no table, column, entity or parent of one missing from the other — are
/// the candidates, narrowed by the store's model cache where it has one (it tells apart versions
/// of one schema, such as a changed `versionHashModifier`). So `inspect` and an open cannot
/// disagree. The metadata's version identifiers are not used: stores often say "1" whatever
/// wrote them.
struct StoreVersionMatch {
    struct Candidate {
        var version: String
        var schemaDifferences: [String]
        /// nil without a model cache.
        var cacheDifferences: [String]?
    }

    var candidates: [Candidate]

    init(path: String, report: CoreDataStoreReport, versions: [(ModelSource.Version, ObjectModel?)]) {
        let loaded = versions.compactMap { version, model in
            model.flatMap { model in
                RuntimeModelBridge.model(of: model, name: version.name).map { (version, model, $0) }
            }
        }
        // One private copy of the store, every version bound to it.
        let differences: [[String]]
        do {
            differences = try CoreDataStoreInspection.differences(ofStoreAt: path, models: loaded.map(\.2))
        } catch {
            differences = loaded.map { _ in ["the store cannot be bound: \(error)"] }
        }
        candidates = zip(loaded, differences).map { entry, found in
            Candidate(
                version: entry.0.name, schemaDifferences: found.filter { !$0.contains("model cache describes") },
                cacheDifferences: report.compiledModel.map { Self.differences($0, entry.1) })
        }
    }

    /// The versions that wrote the store: schema and model cache (where there is one) both equal.
    var matches: [Candidate] {
        candidates.filter { $0.schemaDifferences.isEmpty && ($0.cacheDifferences?.isEmpty ?? true) }
    }

    /// What differs between the compiled model and `model` in what Core Data stores and hashes
    /// (`versionFeatures` of each side).
    static func differences(_ compiled: CoreDataCompiledModel, _ model: ObjectModel) -> [String] {
        let cached = Set(compiled.versionFeatures)
        let modeled = Set(model.coreDataVersionFeatures)
        return cached.subtracting(modeled).sorted().map { "the cache has \($0)" }
            + modeled.subtracting(cached).sorted().map { "the model has \($0)" }
    }
}
