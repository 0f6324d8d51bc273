import Foundation
import TestSupport
import Testing

/// Runs the built `modelgen` binary and captures what it prints.
struct CLIRunner {
    typealias Result = Subprocess.Output

    static let packageRoot = PackagePaths.root

    /// The `modelgen` executable next to the test bundle (SwiftPM builds it because this target
    /// depends on it), or `MODELGEN_BIN`.
    static let executable = BuiltProduct.url("modelgen", environment: "MODELGEN_BIN", packageRoot: packageRoot)

    /// A product built next to the test bundle (the example programs, `modelgen`).
    static func product(_ name: String) -> URL {
        BuiltProduct.url(name, packageRoot: packageRoot)
    }

    static func run(_ arguments: [String], in directory: URL? = nil) throws -> Result {
        try run(executable, arguments, in: directory)
    }

    /// Runs `program` in `directory` (the package root by default) with an empty standard input;
    /// after `timeout` seconds it is killed and the result says so.
    static func run(_ program: URL, _ arguments: [String], in directory: URL? = nil, timeout: Double = 600) throws
        -> Result
    {
        let result = try Subprocess.run(
            program.path, arguments, directory: (directory ?? packageRoot).path, timeout: timeout)
        if result.timedOut { Issue.record("timed out: \(result.stderr)") }
        return result
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
