import ModelGenCore
import ModelGenRuntime

/// Which version of a model bundle wrote a Core Data store: the versions whose Core Data layout
/// (`CoreDataLayout`, at the store's framework version) is the store's schema — up to the digit
/// suffixes of colliding join columns, which Core Data picks in no derivable order — narrowed by
/// the store's model cache where it has one (it tells apart versions of one schema, such as a
/// changed `versionHashModifier`). The metadata's version identifiers are not used: stores often
/// say "1" whatever wrote them.
struct StoreVersionMatch {
    struct Candidate {
        var version: String
        var schemaDifferences: [String]
        /// nil without a model cache.
        var cacheDifferences: [String]?
    }

    var candidates: [Candidate]

    init(report: CoreDataStoreReport, versions: [(ModelSource.Version, ObjectModel?)]) {
        let layout = CoreDataLayout(frameworkVersion: report.frameworkVersion ?? CoreDataLayout.currentFrameworkVersion)
        let writer = CoreDataSQLWriter(frameworkVersion: layout.frameworkVersion)
        let stored = Set(report.tableStatements.map(Self.withoutJoinSuffixes))
        candidates = versions.compactMap { version, model in
            guard let model,
                let schema = SchemaLowering(layout: layout).lower(model, diagnostics: DiagnosticEngine())
            else { return nil }
            let predicted = Set(
                (schema.tables.map(writer.createTable)
                    + CoreDataSQLWriter.bookkeepingTables(withModelCache: writer.writesModelCache)).map(
                        Self.withoutJoinSuffixes))
            let differences =
                stored.subtracting(predicted).sorted().map { "the store has: \($0)" }
                + predicted.subtracting(stored).sorted().map { "the model has: \($0)" }
            return Candidate(
                version: version.name, schemaDifferences: differences,
                cacheDifferences: report.compiledModel.map { Self.differences($0, model) })
        }
    }

    /// The versions that wrote the store: schema and model cache (where there is one) both equal.
    var matches: [Candidate] {
        candidates.filter { $0.schemaDifferences.isEmpty && ($0.cacheDifferences?.isEmpty ?? true) }
    }

    /// A join column's name without its collision suffix (`Z_3ARTWORKS2` → `Z_3ARTWORKS`).
    static func withoutJoinSuffixes(_ statement: String) -> String {
        statement.replacing(/(Z_\d+[A-Z_]*[A-Z])\d+\b/) { $0.output.1 }
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
