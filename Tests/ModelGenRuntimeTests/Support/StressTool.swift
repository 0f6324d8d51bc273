import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `modelgen-stress` executable (built because this test target depends on it) and what the
/// crash-safety and concurrency tests need from child processes.
enum StressTool {
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["MODELGEN_STRESS_BIN"] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            var current = directory
            for _ in 0..<4 {
                let binary = current.appendingPathComponent("modelgen-stress")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                current = current.deletingLastPathComponent()
            }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/modelgen-stress")
    }()

    /// A started child process whose standard output is collected.
    final class Child {
        let process = Process()
        private let output = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = StressTool.executable
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Kills the process with SIGKILL (no chance to clean up) and waits for it.
        func kill() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Everything the process printed; waits for it to end.
        func finish() -> (status: Int32, output: String) {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    /// Runs the tool to completion and decodes the JSON object it prints last.
    static func run(_ arguments: [String]) throws -> [String: Any] {
        let (status, output) = try Child(arguments).finish()
        try #require(status == 0, "modelgen-stress \(arguments.joined(separator: " ")) exited with \(status): \(output)")
        return try json(output)
    }

    static func json(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last, "no output")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
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
