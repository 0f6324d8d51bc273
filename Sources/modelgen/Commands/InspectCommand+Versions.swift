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

    /// What differs between the compiled model and `model` in what Core Data stores and hashes:
    /// entities and parents, each one's own persistent attributes (type, optionality, version
    /// hash modifier) and relationships (destination, inverse, cardinality, order).
    static func differences(_ compiled: CoreDataCompiledModel, _ model: ObjectModel) -> [String] {
        let cached = Set(compiled.entities.flatMap(features))
        let modeled = Set(model.entities.flatMap { features(of: $0, in: model) })
        return cached.subtracting(modeled).sorted().map { "the cache has \($0)" }
            + modeled.subtracting(cached).sorted().map { "the model has \($0)" }
    }

    private static func features(_ entity: CoreDataCompiledModel.Entity) -> [String] {
        ["entity \(entity.name) < \(entity.parent ?? "-") vhm \(entity.versionHashModifier ?? "-")"]
            + entity.attributes.map {
                "attribute \(entity.name).\($0.name) type \($0.typeCode) optional \($0.isOptional) vhm \($0.versionHashModifier ?? "-")"
            }
            + entity.relationships.map {
                "relationship \(entity.name).\($0.name) → \($0.destination) inverse \($0.inverse ?? "-") to-many \($0.isToMany) ordered \($0.isOrdered) optional \($0.isOptional) vhm \($0.versionHashModifier ?? "-")"
            }
    }

    private static func features(of entity: Entity, in model: ObjectModel) -> [String] {
        let parent = entity.parent.map { model.entities[$0].name } ?? "-"
        return ["entity \(entity.name) < \(parent) vhm \(entity.versionHashModifier ?? "-")"]
            + entity.attributes.filter { !$0.isTransient && $0.type.isStorable }.map {
                "attribute \(entity.name).\($0.name) type \(typeCode($0.type)) optional \($0.isOptional) vhm \($0.versionHashModifier ?? "-")"
            }
            + entity.relationships.filter { !$0.isTransient }.map {
                "relationship \(entity.name).\($0.name) → \($0.destinationName) inverse \($0.inverseName ?? "-") to-many \($0.isToMany) ordered \($0.isOrdered) optional \($0.isOptional) vhm \($0.versionHashModifier ?? "-")"
            }
    }

    /// `NSAttributeType` of an attribute type.
    static func typeCode(_ type: AttributeType) -> Int {
        switch type {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        case .undefined: 0
        }
    }
}
