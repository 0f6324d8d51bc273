import Foundation
import ModelGenRuntime

/// What every example program does with its command line: `--store PATH` (or `--in-memory`
/// where allowed, or `--postgres URL` for a PostgreSQL database, also taken from the environment
/// variable `MODELGEN_POSTGRES_URL`) before the command, operands after it, failures as one line
/// on stderr with exit status 1, and usage errors with status 64.
public struct ExampleCommandLine {
    public let program: String
    /// The store file, or `":memory:"`.
    public let storePath: String
    /// The PostgreSQL connection string or URL, when the store is on a server.
    public let postgres: String?
    public let command: String?
    public let operands: [String]

    public init(program: String, defaultStore: String, allowsInMemory: Bool = false, usage: String) {
        self.program = program
        var arguments = Array(CommandLine.arguments.dropFirst())
        var path = defaultStore
        if let index = arguments.firstIndex(of: "--store") {
            guard index + 1 < arguments.count else {
                Self.exit(program, "--store needs a path", status: 64)
            }
            path = arguments[index + 1]
            arguments.removeSubrange(index...index + 1)
        }
        var postgres = ProcessInfo.processInfo.environment["MODELGEN_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if let index = arguments.firstIndex(of: "--postgres") {
            guard index + 1 < arguments.count else {
                Self.exit(program, "--postgres needs a URL or connection string", status: 64)
            }
            postgres = arguments[index + 1]
            arguments.removeSubrange(index...index + 1)
        }
        if let index = arguments.firstIndex(of: "--in-memory") {
            guard allowsInMemory else { Self.exit(program, "--in-memory is not an option of \(program)", status: 64) }
            path = ":memory:"
            postgres = nil
            arguments.remove(at: index)
        }
        self.postgres = postgres
        if arguments.isEmpty || ["--help", "-h", "help"].contains(arguments[0]) {
            print(usage, terminator: "")
            Foundation.exit(arguments.isEmpty ? 64 : 0)
        }
        storePath = path
        command = arguments.first
        operands = Array(arguments.dropFirst())
    }

    /// Opens the store the command line names: the PostgreSQL database of `--postgres`, else the
    /// SQLite file (or `path`, where the program chooses one).
    public func openStore(_ model: PersistentStore.Model, path: String? = nil) throws -> PersistentStore {
        if let postgres, path != ":memory:" { return try PersistentStore(postgres: postgres, model: model) }
        return try PersistentStore(path: path ?? storePath, model: model)
    }

    /// Prints `message` and ends the program with status 1.
    public func fail(_ message: String) -> Never {
        Self.exit(program, message, status: 1)
    }

    /// The element at the 1-based position `text` of `list`, or a clear failure (an empty list is
    /// reported as such).
    public func pick<T>(_ list: [T], _ text: String, _ what: String) -> T {
        guard !list.isEmpty else { fail("there are no \(what)s") }
        guard let position = Int(text), (1...list.count).contains(position) else {
            fail("no \(what) at position '\(text)' (1 to \(list.count))")
        }
        return list[position - 1]
    }

    private static func exit(_ program: String, _ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
        Foundation.exit(status)
    }
}
