import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL 15 cluster for the tests of this process (its default collation is ICU's
/// en-US, as a server's usually is a language's, not byte order): `initdb` and `pg_ctl` (as the
/// `postgres` user when running as root) in a fresh temporary directory, reachable only through a
/// Unix socket there (no TCP), stopped and removed when the process exits.
///
/// When it cannot start, tests fail if `MODELGEN_REQUIRE_POSTGRES=1` (as in CI) and are skipped
/// with a printed notice otherwise.
public final class PostgresCluster: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let directory: URL
    public let binaries: URL

    nonisolated(unsafe) private static var started: Result<PostgresCluster, Failure>?
    private static let lock = NSLock()

    /// The process's cluster, started on first use; `nil` (with a notice or a recorded failure)
    /// when PostgreSQL is not available.
    public static func shared(sourceLocation: SourceLocation = #_sourceLocation) -> PostgresCluster? {
        lock.lock()
        defer { lock.unlock() }
        if started == nil {
            started = Result { try PostgresCluster() }.mapError { $0 as? Failure ?? Failure(description: "\($0)") }
            if case .success = started { atexit { PostgresCluster.stopShared() } }
        }
        switch started! {
        case .success(let cluster):
            return cluster
        case .failure(let failure):
            if ProcessInfo.processInfo.environment["MODELGEN_REQUIRE_POSTGRES"] == "1" {
                Issue.record("PostgreSQL could not start: \(failure)", sourceLocation: sourceLocation)
            } else {
                print("notice: skipping PostgreSQL checks, the server could not start: \(failure)")
            }
            return nil
        }
    }

    /// A cluster of the caller's own (the benchmark's), to `stop()` when done.
    public static func start() throws -> PostgresCluster { try PostgresCluster() }

    private static func stopShared() {
        if case .success(let cluster)? = started { cluster.stop() }
    }

    private static var isRoot: Bool { getuid() == 0 }

    private init() throws {
        let candidates = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") })
        else {
            throw Failure(description: "initdb not found (install the postgresql package)")
        }
        binaries = URL(fileURLWithPath: found)
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "modelgen-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if Self.isRoot {
            _ = try Self.run("/bin/chown", ["postgres:postgres", directory.path])
        }
        let data = directory.appendingPathComponent("data").path
        try runServerTool(
            "initdb",
            [
                "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--locale-provider=icu",
                "--icu-locale=en-US", "--no-sync",
            ])
        try startServer()
        // A watchdog stops the server and removes its directory once this process is gone, however
        // it ends (the test runner does not always run exit handlers).
        let stopCommand =
            (Self.isRoot ? "/usr/sbin/runuser -u postgres -- " : "") + binaries.appendingPathComponent("pg_ctl").path
            + " -D '\(data)' -m immediate -w stop"
        try Subprocess.detach(
            "/bin/sh",
            [
                "-c",
                "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stopCommand); rm -rf '\(directory.path)'",
            ])
    }

    /// Starts the server (again, after `stopServer()`), waiting until it accepts connections.
    public func startServer() throws {
        try runServerTool(
            "pg_ctl",
            [
                "-D", directory.appendingPathComponent("data").path, "-l", directory.appendingPathComponent("log").path,
                "-w", "-t", "60", "-o",
                "-k \(directory.path) -c listen_addresses='' -c fsync=off -c max_connections=100", "start",
            ])
    }

    /// Stops the server as a restart or failover does: every session is closed; the data stays.
    public func stopServer() throws {
        try runServerTool("pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"])
    }

    private func runServerTool(_ tool: String, _ arguments: [String]) throws {
        let path = binaries.appendingPathComponent(tool).path
        let result =
            Self.isRoot
            ? try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
            : try Self.run(path, arguments)
        guard result.status == 0 else { throw Failure(description: "\(tool) failed: \(result.stderr)\(result.stdout)") }
    }

    public func stop() {
        _ = try? runServerTool(
            "pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    public typealias Output = Subprocess.Output

    public static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> Output {
        try Subprocess.run(executable, arguments, input: input)
    }

    /// Runs SQL through `psql` in `schema` (created when missing); stops at the first error.
    @discardableResult
    public func psql(_ sql: String, schema: String? = nil) throws -> Output {
        var script = ""
        if let schema {
            script += "CREATE SCHEMA IF NOT EXISTS \"\(schema)\";\nSET search_path TO \"\(schema)\";\n"
        }
        script += sql
        return try Self.run(
            binaries.appendingPathComponent("psql").path,
            [
                "-X", "-q", "-h", directory.path, "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-A",
                "-t",
                "-F", "\t", "-f", "-",
            ],
            input: script)
    }

    /// The rows of a query, tab-separated columns.
    /// `keepingEmptyRows`: a row of one empty text is kept (else blank lines are left out).
    public func rows(_ sql: String, schema: String? = nil, keepingEmptyRows: Bool = false) throws -> [[String]] {
        let output = try psql(sql, schema: schema)
        guard output.status == 0 else { throw Failure(description: output.stderr) }
        var lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: !keepingEmptyRows)
        if keepingEmptyRows, lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// A libpq connection string to the cluster's `postgres` database with `search_path` set to
    /// `schema` (created when missing): each test works in a schema of its own.
    public func connectionString(schema: String) throws -> String {
        let output = try psql("CREATE SCHEMA IF NOT EXISTS \"\(schema)\";")
        guard output.status == 0 else { throw Failure(description: output.stderr) }
        return "host=\(directory.path) user=postgres dbname=postgres options='-c search_path=\(schema)'"
    }

    /// A new, empty schema with a unique name, and the connection string that works in it.
    public func freshSchema(_ prefix: String = "t") throws -> (schema: String, connectionString: String) {
        let schema = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        return (schema, try connectionString(schema: schema))
    }
}
