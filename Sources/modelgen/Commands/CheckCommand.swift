import ModelGenCore

struct CheckCommand: Command {
    static let name = "check"
    static let summary = "Check models for errors and warnings"
    static let help = """
        OVERVIEW: \(summary)

        Reads each model (a .xcdatamodeld bundle, a .xcdatamodel folder or a contents file),
        resolves and validates it, and prints every problem as
        'path:line:column: severity: message [id]' on standard error.

        USAGE: modelgen check [<options>] <model> ...

        OPTIONS:
          --model-version <name>  Check this version instead of the current one
          --all-versions          Check every version of each bundle
          --warnings-as-errors    Treat warnings as errors
          -h, --help              Show this help

        EXIT STATUS: 0 no errors (warnings allowed), 1 errors, 64 usage error.
        """
    static let spec = OptionSpec(
        valued: ["--model-version"], flags: ["--all-versions", "--warnings-as-errors"])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing model path") }
        if arguments.has("--all-versions") && arguments.options["--model-version"] != nil {
            throw UsageError(message: "'--all-versions' and '--model-version' cannot be used together")
        }
        let engine = DiagnosticEngine(warningsAsErrors: arguments.has("--warnings-as-errors"))
        let loader = ModelLoader()
        for path in arguments.positionals {
            if arguments.has("--all-versions") {
                _ = loader.loadAll(path: path, diagnostics: engine)
            } else {
                _ = loader.load(path: path, version: arguments.options["--model-version"], diagnostics: engine)
            }
        }
        return output.printDiagnostics(engine) ? .modelErrors : .success
    }
}
