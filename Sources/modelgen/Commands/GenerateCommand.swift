import Foundation
import ModelGenCore

struct GenerateCommand: Command {
    static let name = "generate"
    static let summary = "Write the Swift code of a model (and optionally its SQL)"
    static let help = """
        OVERVIEW: \(summary)

        Writes one Swift file per entity (a class, or for entities whose code generation is
        "Category/Extension" an extension of your class) and one file with the model's metadata,
        for use with ModelGenRuntime. Files are rewritten only when their bytes change; files this
        model's generation wrote before and no longer writes (an entity removed) are removed.

        Several models are merged into one (as Core Data merges the models of an app whose store
        holds the entities of several bundles); --name names it. With one model, --name
        replaces the model's own name (the generated <Name>Model type and file).

        USAGE: modelgen generate [<options>] <model>... --output <directory>

        \(spec.help)
        EXIT STATUS: 0 success (with --check: the directory is up to date), 1 model errors, a bad
        configuration file or templates, unwritable output, or with --check files out of date,
        64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--output", "directory", "Where to write the files (created if missing)"),
        .valued(
            "--config", "file",
            "Options from a modelgen.json (access, configuration, templates relative\nto the file, observable, modelVersion); options given here win"
        ),
        .valued(
            "--templates", "directory",
            "Templates that replace built-in ones by file name (entity, storage,\ndescription, properties, overrides, initializer, helpers, model;\neach <name>.mustache)"
        ),
        .valued(
            "--access", "level", "(default: public)", choices: SwiftGenerationOptions.Access.allCases.map(\.rawValue)),
        .valued(
            "--single-file", "name",
            "Write all the Swift code into one file of this name (the fixed output\na build tool plugin declares)"),
        .flag(
            "--observable",
            "Make the classes Observable (the Observation framework), so SwiftUI\nand withObservationTracking see their properties"
        ),
        .flag("--sql", "Also write <Model>.sqlite.sql and <Model>.postgres.sql"),
        .valued("--configuration", "name", "Only the entities of this configuration"),
        .valued("--model-version", "name", "Use this version instead of the current one"),
        .valued(
            "--name", "name", "The model's name in the generated code (<name>Model); required\nto merge several models"),
        .flag("--warnings-as-errors", "Treat warnings as errors"),
        .flag(
            "--check",
            "Write nothing; list the files that differ from what would be written\n(for CI, where generated code is committed)"
        ),
    ])

    /// The model's file name as the generated header names it (no directories: output must not
    /// depend on where the model is).
    static func sourceName(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return URL(fileURLWithPath: trimmed).lastPathComponent
    }

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard let path = arguments.positionals.first else { throw UsageError(message: "missing model path") }
        let merged = arguments.positionals.count > 1
        if merged {
            guard arguments.options["--name"] != nil else {
                throw UsageError(message: "several models are merged into one: name it with --name")
            }
            guard arguments.options["--model-version"] == nil else {
                throw UsageError(
                    message: "with several models, give each version's .xcdatamodel folder instead of --model-version")
            }
        }
        if let name = arguments.options["--name"], name.isEmpty {
            throw UsageError(message: "--name takes a non-empty name")
        }
        guard let directory = arguments.options["--output"] else {
            throw UsageError(message: "missing --output <directory>")
        }
        let resolved: Resolved
        let source = merged ? arguments.positionals.map(sourceName).joined(separator: " + ") : sourceName(path)
        switch resolve(arguments, sourceName: source) {
        case .success(let value): resolved = value
        case .failure(let problem):
            output.printError("modelgen: error: \(problem.message)")
            return .modelErrors
        }
        let (options, configuration, overrides) = (resolved.options, resolved.configuration, resolved.templates)
        if let single = options.singleFile, single.isEmpty || single.contains("/") {
            throw UsageError(message: "--single-file takes a file name, not a path")
        }
        let engine = DiagnosticEngine(warningsAsErrors: arguments.has("--warnings-as-errors"))
        let pipeline = GeneratePipeline(
            options: options, templates: overrides, configuration: configuration, includesSQL: arguments.has("--sql"))
        let files: [GeneratedFile]?
        do {
            if merged, let name = arguments.options["--name"] {
                files = try pipeline.run(paths: arguments.positionals, name: name, diagnostics: engine)
            } else {
                files = try pipeline.run(
                    path: path, version: resolved.modelVersion, name: arguments.options["--name"], diagnostics: engine)
            }
        } catch {
            output.printError("modelgen: error: \(error)")
            return .modelErrors
        }
        if output.printDiagnostics(engine) { return .modelErrors }
        guard let files, !files.isEmpty else { return .modelErrors }
        let target = GeneratedDirectory(path: directory, sourceName: options.sourceName)
        if arguments.has("--check") {
            let stale = target.outOfDate(files)
            for name in stale { output.printError("modelgen: \(target.path(of: name)) is out of date") }
            if !stale.isEmpty {
                output.printError("modelgen: run 'modelgen generate' without --check to update \(stale.count) file(s)")
            }
            return stale.isEmpty ? .success : .modelErrors
        }
        if let failure = target.write(files) {
            output.printError(failure)
            return .modelErrors
        }
        return .success
    }

    /// What the generator runs with: the options given on the command line, else those of the
    /// `--config` file, else the defaults.
    private struct Resolved {
        var options: SwiftGenerationOptions
        var configuration: String?
        var templates: [String: String]
        var modelVersion: String?
    }

    private static func resolve(_ arguments: ParsedArguments, sourceName: String) -> Result<
        Resolved, GenerateConfiguration.Problem
    > {
        var file = GenerateConfiguration()
        var templatesDirectory = arguments.options["--templates"]
        if let config = arguments.options["--config"] {
            switch GenerateConfiguration.load(config) {
            case .success(let loaded): file = loaded
            case .failure(let problem): return .failure(problem)
            }
            if templatesDirectory == nil, let templates = file.templates {
                templatesDirectory =
                    URL(fileURLWithPath: config).deletingLastPathComponent().appendingPathComponent(templates).path
            }
        }
        var templates: [String: String] = [:]
        if let templatesDirectory {
            switch loadTemplates(templatesDirectory) {
            case .success(let loaded): templates = loaded
            case .failure(let message): return .failure(GenerateConfiguration.Problem(message))
            }
        }
        let access = arguments.options["--access"].flatMap(SwiftGenerationOptions.Access.init) ?? file.access ?? .public
        let options = SwiftGenerationOptions(
            access: access, sourceName: sourceName, singleFile: arguments.options["--single-file"],
            observable: arguments.has("--observable") || file.observable == true)
        return .success(
            Resolved(
                options: options, configuration: arguments.options["--configuration"] ?? file.configuration,
                templates: templates, modelVersion: arguments.options["--model-version"] ?? file.modelVersion))
    }

    private enum Loaded {
        case success([String: String])
        case failure(String)
    }

    private static func loadTemplates(_ directory: String) -> Loaded {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return .failure("templates directory '\(directory)' does not exist")
        }
        var loaded: [String: String] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasSuffix(".mustache") {
            let base = String(name.dropLast(".mustache".count))
            guard SwiftGenerator.templateNames.contains(base) else {
                return .failure(
                    "'\(name)' in '\(directory)' replaces no template; the templates are "
                        + SwiftGenerator.templateNames.map { $0 + ".mustache" }.joined(separator: ", "))
            }
            guard let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)),
                let text = String(data: data, encoding: .utf8)
            else { return .failure("cannot read '\(name)' in '\(directory)' as UTF-8") }
            loaded[base] = text
        }
        return .success(loaded)
    }
}
