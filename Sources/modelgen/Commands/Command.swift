import ModelGenCore

/// Exit statuses, as `sysexits.h` and the project's conventions say.
enum ExitCode: Int32 {
    case success = 0
    case modelErrors = 1
    case usage = 64
}

/// A subcommand of `modelgen`.
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    static var help: String { get }
    static var spec: OptionSpec { get }
    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode
}

/// Where a command writes: its product to stdout, diagnostics to stderr.
struct Output {
    var stdout: String = ""
    var stderr: String = ""

    mutating func print(_ text: String) { stdout += text.hasSuffix("\n") ? text : text + "\n" }
    mutating func printError(_ text: String) { stderr += text.hasSuffix("\n") ? text : text + "\n" }

    /// Prints the diagnostics in canonical order and returns whether any is an error.
    mutating func printDiagnostics(_ engine: DiagnosticEngine) -> Bool {
        for diagnostic in engine.sorted { printError(diagnostic.rendered) }
        return engine.hasErrors
    }
}
