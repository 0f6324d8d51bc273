import ModelGenCore

struct DumpCommand: Command {
    static let name = "dump"
    static let summary = "Print a stage's view of a model"
    static let help = """
        OVERVIEW: \(summary)

        Prints the value a compiler stage produces, deterministically (same input, same bytes):
          parse    the raw elements and attributes of the contents file, with their lines
          resolve  the typed, resolved and validated model
          schema   the relational schema (tables, columns, keys, checks, indexes)
          swift    the context the Swift templates are rendered with (see `modelgen generate`)

        USAGE: modelgen dump [<options>] <model>

        \(spec.help)
        EXIT STATUS: 0 success, 1 model errors (nothing is printed on stdout), 64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--stage", "stage", "(default: resolve)", choices: ["parse", "resolve", "schema", "swift"]),
        .valued("--configuration", "name", "With --stage schema or swift: only this configuration's entities"),
        .valued(
            "--access", "level", "(default: public), with --stage swift",
            choices: SwiftGenerationOptions.Access.allCases.map(\.rawValue)),
        .valued("--format", "format", "(default: text)", choices: ["text", "json"]),
        .valued("--model-version", "name", "Dump this version instead of the current one"),
        .flag("--warnings-as-errors", "Treat warnings as errors"),
    ])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard let path = arguments.positionals.first else { throw UsageError(message: "missing model path") }
        guard arguments.positionals.count == 1 else {
            throw UsageError(message: "dump takes one model, got \(arguments.positionals.count)")
        }
        let engine = DiagnosticEngine(warningsAsErrors: arguments.has("--warnings-as-errors"))
        let loader = ModelLoader()
        let stage = arguments.options["--stage"] ?? "resolve"
        var value: DumpValue?
        if let source = loader.source(at: path, diagnostics: engine),
            let version = loader.selectVersion(
                of: source, requested: arguments.options["--model-version"], diagnostics: engine)
        {
            do {
                if stage == "parse" {
                    if let file = loader.sourceFile(for: version, diagnostics: engine),
                        let syntax = ModelParser().parse(file, diagnostics: engine), !engine.hasErrors
                    {
                        value = try DumpValue.from(syntax)
                    }
                } else if let model = loader.load(version, of: source, diagnostics: engine) {
                    if stage == "schema" || stage == "swift" {
                        if let schema = SchemaLowering().lower(
                            model, configuration: arguments.options["--configuration"], diagnostics: engine)
                        {
                            if stage == "schema" {
                                value = try DumpValue.from(schema)
                            } else if !engine.hasErrors {
                                let options = SwiftGenerationOptions(
                                    access: SwiftGenerationOptions.Access(
                                        rawValue: arguments.options["--access"] ?? "public")!,
                                    sourceName: GenerateCommand.sourceName(path))
                                value = DumpValue.from(
                                    SwiftGenerator(options: options).context(model: model, schema: schema))
                            }
                        }
                    } else {
                        value = try DumpValue.from(model)
                    }
                }
            } catch {
                preconditionFailure("dump encoding cannot fail: \(error)")
            }
        }
        if output.printDiagnostics(engine) { return .modelErrors }
        guard let value else { return .modelErrors }
        output.print(arguments.options["--format"] == "json" ? value.json : value.text)
        return .success
    }
}
