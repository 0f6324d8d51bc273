import Foundation
import Testing

/// Runs the built `modelgen` binary and captures what it prints.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `modelgen` executable next to the test bundle (SwiftPM builds it because this target
    /// depends on it), or `MODELGEN_BIN`.
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["MODELGEN_BIN"] { return URL(fileURLWithPath: path) }
        return product("modelgen")
    }()

    /// A product built next to the test bundle (the example programs, `modelgen`).
    static func product(_ name: String) -> URL {
        var candidates: [URL] = []
        if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            var current = directory
            for _ in 0..<4 {
                let binary = current.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                current = current.deletingLastPathComponent()
            }
        }
        return packageRoot.appendingPathComponent(".build/debug/" + name)
    }

    static func run(_ arguments: [String], in directory: URL? = nil) throws -> Result {
        try run(executable, arguments, in: directory)
    }

    static func run(_ program: URL, _ arguments: [String], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let start = Date()
        try process.run()
        // Read both pipes while the process runs, so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            seconds: Date().timeIntervalSince(start))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
