import Foundation
import ModelGenCore

#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

struct SQLCommand: Command {
    static let name = "sql"
    static let summary = "Write the SQL DDL that stores a model"
    static let help = """
        OVERVIEW: \(summary)

        Lowers the model to tables (one per root entity, join tables for many-to-many
        relationships, a _modelgen_metadata table) and writes the CREATE statements.
        With --layout coredata: the tables, columns and indexes of Core Data's own store
        (ZITEM, Z_PK, Z_ENT, Z_OPT, Z_1TAGS, ...) for SQLite, as Core Data writes them.

        USAGE: modelgen sql [<options>] <model>

        \(spec.help)
        EXIT STATUS: 0 success, 1 model errors or unwritable output, 64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--dialect", "dialect", "(default: sqlite)", choices: SQLDialect.allCases.map(\.rawValue)),
        .valued("--layout", "layout", "(default: modelgen)", choices: ["modelgen", "coredata"]),
        .valued(
            "--framework-version", "n",
            "Core Data's NSPersistenceFrameworkVersion to follow with --layout coredata (default: \(CoreDataLayout.currentFrameworkVersion))"
        ),
        .valued("--configuration", "name", "Only the entities of this configuration"),
        .valued("--model-version", "name", "Use this version instead of the current one"),
        .valued("--output", "file", "Write to a file instead of standard output"),
        .flag("--warnings-as-errors", "Treat warnings as errors"),
    ])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: arguments.positionals.isEmpty ? "missing model path" : "sql takes one model")
        }
        let dialect = SQLDialect(rawValue: arguments.options["--dialect"] ?? "sqlite")!
        let isCoreData = arguments.options["--layout"] == "coredata"
        var frameworkVersion = CoreDataLayout.currentFrameworkVersion
        if let text = arguments.options["--framework-version"] {
            guard isCoreData, let number = Int(text), number > 0 else {
                throw UsageError(
                    message: isCoreData
                        ? "--framework-version takes a positive number, not '\(text)'"
                        : "--framework-version applies to --layout coredata")
            }
            frameworkVersion = number
        }
        if isCoreData, dialect != .sqlite { throw UsageError(message: "Core Data's layout is for SQLite only") }
        let lowering =
            isCoreData ? SchemaLowering(layout: CoreDataLayout(frameworkVersion: frameworkVersion)) : SchemaLowering()
        let engine = DiagnosticEngine(warningsAsErrors: arguments.has("--warnings-as-errors"))
        var text: String?
        if let model = ModelLoader().load(
            path: path, version: arguments.options["--model-version"], diagnostics: engine),
            let schema = lowering.lower(
                model, configuration: arguments.options["--configuration"], diagnostics: engine),
            !engine.hasErrors
        {
            text =
                isCoreData
                ? CoreDataSQLWriter(frameworkVersion: frameworkVersion).emit(schema)
                : SQLEmitter(dialect: dialect).emit(schema)
        }
        if output.printDiagnostics(engine) { return .modelErrors }
        guard let text else { return .modelErrors }
        return output.deliver(text, to: arguments.options["--output"])
    }
}

extension Output {
    /// Prints `text`, or writes it to `path` (only when the bytes differ, so builds see no change).
    mutating func deliver(_ text: String, to path: String?) -> ExitCode {
        guard let path else {
            print(text)
            return .success
        }
        return deliver(bytes: Array(text.utf8), to: path)
    }

    /// Writes `bytes` to `path`, only when they differ from what is there (a file that is there is
    /// replaced atomically: a reader sees the old file or the new one).
    mutating func deliver(bytes: [UInt8], to path: String) -> ExitCode {
        guard let failure = Self.write(bytes, to: path) else { return .success }
        printError(failure)
        return .modelErrors
    }

    /// Each file written as `deliver` does, on all cores; the error message of each that failed
    /// (`nil` where it was written or already up to date), in the order given.
    static func write(_ files: [(path: String, bytes: [UInt8])]) -> [String?] {
        let results = UnsafeMutableBufferPointer<String?>.allocate(capacity: files.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        // Each iteration writes only its own slot; `concurrentPerform` returns after all of them.
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            slots[index] = write(files[index].bytes, to: files[index].path)
        }
        return Array(results)
    }

    /// Writes `bytes` to `path` unless they are already there; the error message when that fails.
    private static func write(_ bytes: [UInt8], to path: String) -> String? {
        let existing = FileManager.default.contents(atPath: path)
        if let existing, existing.count == bytes.count,
            bytes.isEmpty
                || existing.withUnsafeBytes({ old in
                    bytes.withUnsafeBytes { new in memcmp(old.baseAddress!, new.baseAddress!, new.count) == 0 }
                })
        {
            return nil
        }
        do {
            // The array's storage written as it is, without a copy into a `Data`.
            try bytes.withUnsafeBytes { buffer in
                let data =
                    buffer.baseAddress.map {
                        Data(
                            bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: buffer.count, deallocator: .none)
                    } ?? Data()
                if existing == nil, createNew(data, at: path) { return }
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            }
            return nil
        } catch {
            return "modelgen: error: cannot write '\(path)': \(error.localizedDescription)"
        }
    }

    /// Writes a file that does not exist yet in place, without the atomic write's sync and rename
    /// (2,000 new files took 1.3 s of `fsync`): no reader can have the old contents, and a file cut
    /// short by a crash differs from the output, so the next run writes it again. `false` when the
    /// file appeared meanwhile or cannot be made; the caller then writes it atomically.
    private static func createNew(_ data: Data, at path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return false }
        var written = 0
        let complete = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
        if close(descriptor) != 0 || !complete {
            // Never leave a partial file behind as if it were written.
            unlink(path)
            return false
        }
        return true
    }
}
