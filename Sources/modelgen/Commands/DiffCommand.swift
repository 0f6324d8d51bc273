import Foundation
import ModelGenCore

struct DiffCommand: Command {
    static let name = "diff"
    static let summary = "Write the migration from one model version to another"
    static let help = """
        OVERVIEW: \(summary)

        Compares the two versions' tables (entities, attributes and relationships are matched by
        their renaming ID, else by name) and writes the SQL that turns a database of OLD into one
        of NEW without losing data. Every step has a safety class and a stable code, printed on
        standard error: safe, rewrite (rows copied into a new table shape), data-dependent (a
        preflight query stops the migration when the data does not fit), lossy (refused without
        --allow-data-loss), needs-input (give --default), refused. The SQL runs in one transaction.

        USAGE: modelgen diff [<options>] <old-model> <new-model>
               modelgen diff [<options>] <bundle.xcdatamodeld> --from <version> --to <version>

        \(spec.help)
        EXIT STATUS: 0 success (or, with --check, no changes), 1 model errors, a plan that cannot
        run as asked, or changes found with --check, 64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--from", "version", "The version of the bundle to migrate from (its name, e.g. \"Model 2\")"),
        .valued("--to", "version", "The version of the bundle to migrate to"),
        .valued("--dialect", "dialect", "(default: sqlite)", choices: SQLDialect.allCases.map(\.rawValue)),
        .valued("--format", "format", "(default: sql)", choices: ["sql", "json"]),
        .flag("--allow-data-loss", "Run lossy steps (dropped entities, attributes, relationships)"),
        .valued(
            "--default", "Entity.attribute=value",
            "A value for a new required attribute without a default:\na constant, uuid() (one per row) or now() (repeatable)",
            repeatable: true),
        .flag("--check", "Print the plan's summary only; exit 1 when it is not empty"),
        .valued("--configuration", "name", "Only the entities of this configuration"),
        .flag(
            "--legacy-entity-numbers",
            "OLD's database was made by modelgen 0.1, which numbered\nentities by position in _entity"),
        .valued("--output", "file", "Write to a file instead of standard output"),
    ])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        let paths: (String, String?, String, String?)
        switch (arguments.positionals.count, arguments.options["--from"], arguments.options["--to"]) {
        case (1, let from?, let to?): paths = (arguments.positionals[0], from, arguments.positionals[0], to)
        case (2, nil, nil): paths = (arguments.positionals[0], nil, arguments.positionals[1], nil)
        case (1, _, _): throw UsageError(message: "a single model needs both --from and --to")
        case (2, _, _): throw UsageError(message: "--from and --to are for versions of one bundle, not two models")
        default:
            throw UsageError(
                message: arguments.positionals.isEmpty ? "missing models" : "diff takes an old and a new model")
        }
        let defaults = try migrationDefaults(arguments)
        let engine = DiagnosticEngine()
        let configuration = arguments.options["--configuration"]
        let loader = ModelLoader()
        guard let oldModel = loader.load(path: paths.0, version: paths.1, diagnostics: engine),
            let newModel = loader.load(path: paths.2, version: paths.3, diagnostics: engine),
            let oldSchema = SchemaLowering(
                layout: StandardLayout(
                    entityCodes: arguments.has("--legacy-entity-numbers") ? .sortedPositions : .nameHashes)
            ).lower(oldModel, configuration: configuration, diagnostics: engine),
            let newSchema = SchemaLowering().lower(newModel, configuration: configuration, diagnostics: engine),
            !engine.hasErrors
        else {
            _ = output.printDiagnostics(engine)
            return .modelErrors
        }
        _ = output.printDiagnostics(engine)
        let plan = MigrationPlanner(defaults: defaults).plan(from: oldModel, oldSchema, to: newModel, newSchema)
        printSummary(plan, to: &output)
        if arguments.has("--check") {
            // No step, but another recorded schema (a column's source moved in the hierarchy) is
            // still a change: stores record the schema's hash.
            let same = plan.isEmpty && SchemaSnapshot.make(oldSchema).hash == SchemaSnapshot.make(newSchema).hash
            if plan.isEmpty && !same { output.printError("modelgen: the recorded schema changes (no data changes)") }
            return same ? .success : .modelErrors
        }
        let blocking = plan.blockingSteps(allowDataLoss: arguments.has("--allow-data-loss"))
        for step in blocking {
            let hint = step.safety == .lossy ? " (pass --allow-data-loss to drop it)" : ""
            output.printError("modelgen: error: [\(step.code)] \(step.subject): \(step.message)\(hint)")
        }
        guard blocking.isEmpty else { return .modelErrors }
        let renderer = (SQLDialect(rawValue: arguments.options["--dialect"] ?? "sqlite") ?? .sqlite).migrationRenderer
        let text =
            arguments.options["--format"] == "json" ? json(plan, renderer.statements(plan)) : renderer.script(plan)
        return output.deliver(text, to: arguments.options["--output"])
    }

    /// The values of `--default Entity.attribute=value` (the planner's input for new required
    /// attributes), by `Entity.attribute`.
    static func migrationDefaults(_ arguments: ParsedArguments) throws(UsageError) -> [String: String] {
        var defaults: [String: String] = [:]
        for item in arguments.repeated["--default"] ?? [] {
            guard let equals = item.firstIndex(of: "="), item[..<equals].contains(".") else {
                throw UsageError(message: "--default takes Entity.attribute=value, not '\(item)'")
            }
            defaults[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return defaults
    }

    private static func printSummary(_ plan: MigrationPlan, to output: inout Output) {
        guard !plan.isEmpty else {
            output.printError("modelgen: no changes")
            return
        }
        let counts = MigrationPlan.Safety.allCases.compactMap { safety -> String? in
            let count = plan.steps.filter { $0.safety == safety }.count
            return count == 0 ? nil : "\(count) \(safety.rawValue)"
        }
        output.printError("modelgen: \(plan.steps.count) step(s): \(counts.joined(separator: ", "))")
        for step in plan.steps {
            output.printError("  [\(step.safety.rawValue)] \(step.code) \(step.subject): \(step.message)")
        }
    }

    private struct PlanJSON: Encodable {
        var from: String
        var to: String
        var safety: String
        var steps: [MigrationPlan.Step]
        var statements: [String]
    }

    private static func json(_ plan: MigrationPlan, _ statements: [String]) -> String {
        let value = PlanJSON(
            from: plan.oldSchema.versionName ?? plan.oldSchema.modelName,
            to: plan.newSchema.versionName ?? plan.newSchema.modelName,
            safety: plan.safety.rawValue,
            steps: plan.steps,
            statements: statements)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }
}
