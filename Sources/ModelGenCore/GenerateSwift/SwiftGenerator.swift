import Mustache

/// One file the Swift generator writes.
public struct GeneratedFile: Sendable, Equatable {
    /// The file name (no directory), e.g. `Student.swift`.
    public var name: String
    /// The contents as UTF-8 (what is written; generated files of a large model are tens of
    /// megabytes, so they are not held as `String`s).
    public var bytes: [UInt8]

    public var contents: String {
        get { String(decoding: bytes, as: UTF8.self) }
        set { bytes = Array(newValue.utf8) }
    }

    public init(name: String, contents: String) {
        self.init(name: name, bytes: Array(contents.utf8))
    }

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}

/// Everything `modelgen generate` writes for a model.
public struct GenerationOutput: Sendable {
    /// The entity files in model order, then the model file (or the one file of `singleFile`).
    public var swiftFiles: [GeneratedFile]
    /// The SQLite DDL as UTF-8.
    public var sqliteDDLBytes: [UInt8]
    /// The PostgreSQL DDL as UTF-8; `nil` unless asked for.
    public var postgresDDLBytes: [UInt8]?

    public var sqliteDDL: String { String(decoding: sqliteDDLBytes, as: UTF8.self) }
    public var postgresDDL: String? { postgresDDLBytes.map { String(decoding: $0, as: UTF8.self) } }
}

/// Renders the Swift code of a model from templates: one file per entity and one for the model's
/// metadata. The built-in templates are embedded in the binary; any of them can be replaced by a
/// file of the same name (`entity.mustache`, …) in `templatesDirectory`.
public struct SwiftGenerator: Sendable {
    /// The template names; `entity` and `model` are rendered, the others are partials.
    public static let templateNames = [
        "entity", "storage", "description", "properties", "overrides", "initializer", "helpers", "model",
    ]

    public var options: SwiftGenerationOptions
    /// Template sources by name (built-in ones, with overrides applied).
    public var templates: [String: String]

    public init(options: SwiftGenerationOptions, templates overrides: [String: String] = [:]) {
        self.options = options
        var templates = Self.builtInTemplates
        for (name, source) in overrides { templates[name] = source }
        self.templates = templates
    }

    /// The built-in templates by name.
    public static var builtInTemplates: [String: String] {
        [
            "entity": String(decoding: PackageResources.entity_mustache, as: UTF8.self),
            "storage": String(decoding: PackageResources.storage_mustache, as: UTF8.self),
            "description": String(decoding: PackageResources.description_mustache, as: UTF8.self),
            "properties": String(decoding: PackageResources.properties_mustache, as: UTF8.self),
            "overrides": String(decoding: PackageResources.overrides_mustache, as: UTF8.self),
            "initializer": String(decoding: PackageResources.initializer_mustache, as: UTF8.self),
            "helpers": String(decoding: PackageResources.helpers_mustache, as: UTF8.self),
            "model": String(decoding: PackageResources.model_mustache, as: UTF8.self),
        ]
    }

    /// The context templates see: the model file's and one per entity (what `dump --stage swift`
    /// prints).
    public func context(model: ObjectModel, schema: RelationalSchema) -> MustacheValue {
        let trees = contextTrees(model: model, schema: schema)
        return .object(["model": trees.model.value, "entities": .list(trees.entities.map(\.value))])
    }

    /// The same contexts as the trees templates render against.
    public func contextTrees(model: ObjectModel, schema: RelationalSchema) -> (
        model: MustacheTree, entities: [MustacheTree]
    ) {
        let builder = SwiftContextBuilder(model: model, schema: schema, options: options)
        let snapshot = SchemaSnapshot.make(schema)
        let ddl = SQLEmitter(dialect: .sqlite).emitBytes(schema, snapshot: snapshot)
        let postgresDDL = SQLEmitter(dialect: .postgres).emitBytes(schema, snapshot: snapshot)
        return (
            builder.modelContext(sqliteDDL: ddl, postgresDDL: postgresDDL, schemaHash: snapshot.hash),
            builder.generatedEntities.map(builder.entityContext)
        )
    }

    /// Renders every file.
    /// - Throws: `MustacheError` (with the template's name) when a template does not compile.
    /// `snapshot` and `sqliteDDL` are `SchemaSnapshot.make(schema)` and the SQLite DDL, when the
    /// caller has them (they are costly for a large model).
    public func generate(
        model: ObjectModel, schema: RelationalSchema, snapshot: SchemaSnapshot.Value? = nil, sqliteDDL: [UInt8]? = nil,
        migrations: [StoreMigration] = []
    ) throws(SwiftGenerationError) -> [GeneratedFile] {
        try generateAll(
            model: model, schema: schema, migrations: migrations, includePostgres: false, snapshot: snapshot,
            sqliteDDL: sqliteDDL
        )
        .swiftFiles
    }

    /// Everything `modelgen generate` writes: the Swift files, the SQLite DDL (which the model file
    /// embeds) and, when `includePostgres`, the PostgreSQL DDL.
    ///
    /// The work is spread over the machine's cores: one job computes the snapshot, the DDL and
    /// the model file, the others render runs of entity files. Results are put together in model
    /// order, so the output does not depend on how the jobs were scheduled.
    /// - Throws: the first template error in file order (entity files, then the model file).
    public func generateAll(
        model: ObjectModel, schema: RelationalSchema, migrations: [StoreMigration] = [], includePostgres: Bool,
        snapshot: SchemaSnapshot.Value? = nil, sqliteDDL: [UInt8]? = nil
    ) throws(SwiftGenerationError) -> GenerationOutput {
        let builder = SwiftContextBuilder(model: model, schema: schema, options: options)
        let compiled = try compileAll()
        let entityTemplate = compiled["entity"]!
        let modelTemplate = compiled["model"]!
        let entities = builder.generatedEntities
        // Runs long enough that each job's own partials cache pays for itself.
        let runs = Parallel.runs(entities, minimumLength: 16)
        let templates = templates
        let results = Parallel.map(runs.count + 1) { job -> Job in
            // The partials cache is filled while rendering: one per job, never shared.
            let partials = MustachePartials(templates)
            if job == 0 {
                let snapshot = snapshot ?? SchemaSnapshot.make(schema)
                let sqlite = sqliteDDL ?? SQLEmitter(dialect: .sqlite).emitBytes(schema, snapshot: snapshot)
                // The model file carries both dialects' DDL: a store opens on SQLite or PostgreSQL.
                let postgresDDL = SQLEmitter(dialect: .postgres).emitBytes(schema, snapshot: snapshot)
                let postgres = includePostgres ? postgresDDL : nil
                let context = builder.modelContext(
                    sqliteDDL: sqlite, postgresDDL: postgresDDL, schemaHash: snapshot.hash, migrations: migrations)
                do throws(MustacheError) {
                    // The model file embeds the DDL: room for it and a line per entity.
                    let contents = try modelTemplate.renderBytes(
                        context, partials: partials, escapingHTML: false,
                        reservingCapacity: sqlite.count + postgresDDL.count + entities.count * 64 + 16_384)
                    return .model(
                        .success(GeneratedFile(name: builder.modelTypeName + ".swift", bytes: contents)), sqlite,
                        postgres)
                } catch {
                    return .model(.failure(SwiftGenerationError(template: "model", error: error)), sqlite, postgres)
                }
            }
            var files: [GeneratedFile] = []
            files.reserveCapacity(runs[job - 1].count)
            // Entities of one model have files of similar size: each starts with room for the last.
            var expectedSize = 4_096
            for index in runs[job - 1] {
                do throws(MustacheError) {
                    let contents = try entityTemplate.renderBytes(
                        builder.entityContext(index), partials: partials, escapingHTML: false,
                        reservingCapacity: expectedSize + expectedSize / 8)
                    expectedSize = contents.count
                    files.append(GeneratedFile(name: builder.classNames[index]! + ".swift", bytes: contents))
                } catch {
                    return .entities(.failure(SwiftGenerationError(template: "entity", error: error)))
                }
            }
            return .entities(.success(files))
        }
        var files: [GeneratedFile] = []
        files.reserveCapacity(entities.count + 1)
        for case .entities(let result) in results.dropFirst() { files += try result.get() }
        guard case .model(let modelResult, let sqlite, let postgres) = results[0] else {
            preconditionFailure("job 0 renders the model file")
        }
        let modelFile = try modelResult.get()
        if let single = options.singleFile {
            files = [GeneratedFile(name: single, bytes: Array(([modelFile] + files).map(\.bytes).joined()))]
        } else {
            files.append(modelFile)
        }
        return GenerationOutput(swiftFiles: files, sqliteDDLBytes: sqlite, postgresDDLBytes: postgres)
    }

    /// What one job of `generateAll` produced.
    private enum Job: Sendable {
        case model(Result<GeneratedFile, SwiftGenerationError>, [UInt8], [UInt8]?)
        case entities(Result<[GeneratedFile], SwiftGenerationError>)
    }

    /// Every template compiled once, so one that does not compile is reported by name before
    /// anything renders.
    private func compileAll() throws(SwiftGenerationError) -> [String: MustacheTemplate] {
        var compiled: [String: MustacheTemplate] = [:]
        for name in Self.templateNames {
            do {
                compiled[name] = try MustacheTemplate(templates[name] ?? "")
            } catch {
                throw SwiftGenerationError(template: name, error: error)
            }
        }
        return compiled
    }
}

/// A template that does not compile.
public struct SwiftGenerationError: Error, Sendable, CustomStringConvertible {
    public var template: String
    public var error: MustacheError

    public var description: String { "template '\(template).mustache': \(error)" }
}

extension DumpValue {
    /// A template context as a dump (object keys sorted, so the output is deterministic).
    public static func from(_ value: MustacheValue) -> DumpValue {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number):
            number.rounded() == number && abs(number) < 1e15 ? .integer(Int64(number)) : .double(number)
        case .string(let text): .string(text)
        case .list(let items): .array(items.map(from))
        case .object(let object):
            .object(object.uniqueMembers.sorted { $0.key < $1.key }.map { ($0.key, from($0.value)) })
        }
    }
}
