import Foundation
import ModelGenCore

/// Runs the CLI on `arguments` (without the program name) and returns the exit status.
func runModelgen(_ arguments: [String], output: inout Output) -> ExitCode {
    guard let first = arguments.first else {
        output.printError(Help.overview)
        return .usage
    }
    switch first {
    case "-h", "--help":
        output.print(Help.overview)
        return .success
    case "--version":
        output.print("modelgen \(ModelGenVersion.current)")
        return .success
    case "help":
        guard arguments.count > 1 else {
            output.print(Help.overview)
            return .success
        }
        guard let command = Help.command(named: arguments[1]) else {
            output.printError("modelgen: error: unknown command '\(arguments[1])'")
            return .usage
        }
        output.print(command.help)
        return .success
    default:
        break
    }
    guard let command = Help.command(named: first) else {
        output.printError("modelgen: error: unknown command '\(first)'\nSee 'modelgen --help'.")
        return .usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("-h") || rest.contains("--help") {
        output.print(command.help)
        return .success
    }
    do {
        let parsed = try ArgumentParser.parse(rest, spec: command.spec)
        return try command.run(parsed, output: &output)
    } catch {
        output.printError("modelgen: error: \(error.message)\nSee 'modelgen help \(command.name)'.")
        return .usage
    }
}

// One compilation per process: keep freed memory for reuse (see BatchMemory).
BatchMemory.keepFreedMemory()
var output = Output()
let status = runModelgen(Array(CommandLine.arguments.dropFirst()), output: &output)
FileHandle.standardOutput.write(Data(output.stdout.utf8))
FileHandle.standardError.write(Data(output.stderr.utf8))
exit(status.rawValue)
