import ModelGenCore

struct CheckCommand: Command {
    static let name = "check"
    static let summary = "Check models for errors and warnings"
    static let help = """
        OVERVIEW: \(summary)

        Reads each model (a .xcdatamodeld bundle, a .xcdatamodel folder or a contents file),
        resolves and validates it, lays it out in tables and generates its Swift in memory (so
        what 'sql' and 'generate' would refuse is reported here too), and prints every problem
        as 'path:line:column: severity: message [id]' on standard error.

        USAGE: modelgen check [<options>] <model> ...

        \(spec.help)
        EXIT STATUS: 0 no errors (warnings allowed), 1 errors, 64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--model-version", "name", "Check this version instead of the current one"),
        .flag("--all-versions", "Check every version of each bundle"),
        .flag("--warnings-as-errors", "Treat warnings as errors"),
    ])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing model path") }
        if arguments.has("--all-versions") && arguments.options["--model-version"] != nil {
            throw UsageError(message: "'--all-versions' and '--model-version' cannot be used together")
        }
        let engine = DiagnosticEngine(warningsAsErrors: arguments.has("--warnings-as-errors"))
        let loader = ModelLoader()
        var failures: [String] = []
        for path in arguments.positionals {
            let models: [ObjectModel]
            if arguments.has("--all-versions") {
                models = loader.loadAll(path: path, diagnostics: engine).compactMap(\.1)
            } else {
                models =
                    loader.load(path: path, version: arguments.options["--model-version"], diagnostics: engine).map {
                        [$0]
                    } ?? []
            }
            for model in models { failures += laterStages(model, path: path, engine) }
        }
        for failure in failures { output.printError(failure) }
        return output.printDiagnostics(engine) || !failures.isEmpty ? .modelErrors : .success
    }

    /// What `sql` and `generate` check after the front end: the layout's diagnostics, and the
    /// Swift generation's failures (returned as messages).
    private static func laterStages(_ model: ObjectModel, path: String, _ engine: DiagnosticEngine) -> [String] {
        let before = engine.errorCount
        guard let schema = SchemaLowering().lower(model, diagnostics: engine), engine.errorCount == before else {
            return []
        }
        do {
            _ = try SwiftGenerator(options: SwiftGenerationOptions(access: .public, sourceName: path)).generate(
                model: model, schema: schema)
            return []
        } catch {
            return ["modelgen: error: \(path): generating Swift failed: \(error)"]
        }
    }
}
