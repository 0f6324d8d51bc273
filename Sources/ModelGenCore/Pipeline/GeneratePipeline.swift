import Foundation

/// `modelgen generate` as one value: load the model, lower it, plan the migrations from the
/// bundle's other versions, and render the Swift code (and, when asked, the DDL of both dialects).
/// The CLI, the reference tests and the benchmark all run it, so they generate the same way.
///
/// ```swift
/// let pipeline = GeneratePipeline(options: SwiftGenerationOptions(access: .public, sourceName: "Shop.xcdatamodeld"))
/// let engine = DiagnosticEngine()
/// let files = try pipeline.run(path: "Shop.xcdatamodeld", diagnostics: engine)   // nil: see engine
/// ```
public struct GeneratePipeline: Sendable {
    public var options: SwiftGenerationOptions
    /// Templates that replace built-in ones, by name (`entity`, `model`, …).
    public var templates: [String: String]
    /// Only the entities of this configuration of the model.
    public var configuration: String?
    /// Also `<Model>.sqlite.sql` and `<Model>.postgres.sql`.
    public var includesSQL: Bool

    public init(
        options: SwiftGenerationOptions, templates: [String: String] = [:], configuration: String? = nil,
        includesSQL: Bool = false
    ) {
        self.options = options
        self.templates = templates
        self.configuration = configuration
        self.includesSQL = includesSQL
    }

    /// The files of the model at `path` (a bundle, a `.xcdatamodel` or a `contents` file), in the
    /// order they are named; `nil` when the model has errors (they are in `diagnostics`). Migrations
    /// are planned from every other version of a bundle.
    /// - Parameters:
    ///   - path: the model on disk.
    ///   - version: the bundle's version to generate instead of its current one.
    ///   - name: the model's name in the generated code, instead of its own.
    ///   - diagnostics: where the model's errors and warnings go.
    /// - Returns: the files to write, or `nil` when the model has errors.
    /// - Throws: `SwiftGenerationError` when a replacement template does not compile.
    public func run(
        path: String, version: String? = nil, name: String? = nil, diagnostics: DiagnosticEngine
    ) throws(SwiftGenerationError) -> [GeneratedFile]? {
        guard var model = ModelLoader().load(path: path, version: version, diagnostics: diagnostics) else { return nil }
        if let name { model.modelName = name }
        return try run(model: model, bundle: path, diagnostics: diagnostics)
    }

    /// The files of the merged model of several (each a bundle's current version, a `.xcdatamodel`
    /// or a `contents` file), called `name`: one store holding the entities of several models, as
    /// Core Data's merged models make. No migrations (a merge has no versions).
    public func run(paths: [String], name: String, diagnostics: DiagnosticEngine) throws(SwiftGenerationError)
        -> [GeneratedFile]?
    {
        var models: [ObjectModel] = []
        for path in paths {
            guard let model = ModelLoader().load(path: path, diagnostics: diagnostics) else { return nil }
            models.append(model)
        }
        guard let merged = ObjectModel.merging(models, name: name, diagnostics: diagnostics) else { return nil }
        return try run(model: merged, bundle: nil, diagnostics: diagnostics)
    }

    /// The files of a loaded model; `bundle` (when the model came from one) supplies the versions
    /// whose migrations the generated code carries.
    /// - Parameters:
    ///   - model: the resolved model.
    ///   - bundle: the bundle it came from, if any.
    ///   - diagnostics: where the model's errors and warnings go.
    /// - Returns: the files to write, or `nil` when the model has errors.
    /// - Throws: `SwiftGenerationError` when a replacement template does not compile.
    public func run(model: ObjectModel, bundle: String?, diagnostics: DiagnosticEngine) throws(SwiftGenerationError)
        -> [GeneratedFile]?
    {
        guard let schema = SchemaLowering().lower(model, configuration: configuration, diagnostics: diagnostics),
            !diagnostics.hasErrors
        else { return nil }
        let migrations =
            bundle.map { StoreMigration.all(to: model, schema, bundle: $0, configuration: configuration) } ?? []
        let generated = try SwiftGenerator(options: options, templates: templates).generateAll(
            model: model, schema: schema, migrations: migrations, includePostgres: includesSQL)
        var files = generated.swiftFiles
        if includesSQL, let postgres = generated.postgresDDLBytes {
            let base = Self.fileBase(model.modelName ?? "Model")
            files.append(GeneratedFile(name: base + ".sqlite.sql", bytes: generated.sqliteDDLBytes))
            files.append(GeneratedFile(name: base + ".postgres.sql", bytes: postgres))
        }
        return files
    }

    /// A model name as a file name: letters, digits, `_` and `-` kept, anything else `_`.
    static func fileBase(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
    }
}
