import Foundation
import TestSupport
import Testing

/// The `modelgen-stress` executable (built because this test target depends on it) and what the
/// crash-safety and concurrency tests need from child processes.
enum StressTool {
    static let executable = BuiltProduct.url(
        "modelgen-stress", environment: "MODELGEN_STRESS_BIN",
        packageRoot: PackagePaths.root)

    /// A started child process whose standard output is collected (standard error discarded).
    static func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable.path, arguments, standardError: .discarded)
    }

    /// Runs the tool to completion and decodes the JSON object it prints last.
    static func run(_ arguments: [String]) throws -> [String: Any] {
        let result = try start(arguments).finish()
        try #require(
            result.status == 0,
            "modelgen-stress \(arguments.joined(separator: " ")) exited with \(result.status): \(result.stdout)")
        return try json(result.stdout)
    }

    static func json(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last, "no output")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// A positive number from the environment variable `name`, or `fallback`.
    static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? fallback
    }

    /// A fresh directory, removed after `body`.
    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }
}
