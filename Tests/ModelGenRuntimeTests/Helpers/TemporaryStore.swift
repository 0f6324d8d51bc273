import Foundation
import TestSupport
import Testing

@_spi(Database) @testable import ModelGenRuntime

/// The databases the runtime tests run on: each parameterized test runs once per backend.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }
}

/// Stores in fresh databases, removed afterwards, and a raw look at them: a file in a directory of
/// its own (SQLite), or a schema of its own in the tests' throwaway cluster (PostgreSQL).
enum TemporaryStore {
    /// Where a temporary store lives.
    enum Location: Sendable {
        case file(String)
        case postgres(cluster: PostgresCluster, schema: String, connectionString: String)

        var backend: Backend {
            if case .file = self { .sqlite } else { .postgres }
        }

        /// How `modelgen-stress --store` names it.
        var argument: String {
            switch self {
            case .file(let path): path
            case .postgres(_, _, let connectionString): "postgres:" + connectionString
            }
        }

        /// Opens another store on the same database.
        func open(_ model: PersistentStore.Model, options: PersistentStore.OpenOptions = .init()) throws
            -> PersistentStore
        {
            switch self {
            case .file(let path): try PersistentStore(path: path, model: model, options: options)
            case .postgres(_, _, let connectionString):
                try PersistentStore(postgres: connectionString, model: model, options: options)
            }
        }

        /// A raw connection to the database.
        func connect() throws -> Connection {
            switch self {
            case .file(let path): try Connection(path: path)
            case .postgres(_, _, let connectionString): try Connection(postgres: connectionString)
            }
        }
    }

    /// A fresh location on `backend`; `nil` (with a notice, or a failure when PostgreSQL is
    /// required) when the backend is not available. `cleanup` removes it.
    static func make(_ backend: Backend) throws -> (location: Location, cleanup: () -> Void)? {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return (
                .file(directory.appendingPathComponent("store.sqlite").path),
                { try? FileManager.default.removeItem(at: directory) }
            )
        case .postgres:
            guard let cluster = PostgresCluster.shared() else { return nil }
            let (schema, connectionString) = try cluster.freshSchema("store")
            return (
                .postgres(cluster: cluster, schema: schema, connectionString: connectionString),
                { _ = try? cluster.psql("DROP SCHEMA \"\(schema)\" CASCADE;") }
            )
        }
    }

    static func with(
        _ model: PersistentStore.Model, on backend: Backend = .sqlite,
        _ body: (PersistentStore, Location) throws -> Void
    ) throws {
        guard let (location, cleanup) = try make(backend) else { return }
        defer { cleanup() }
        try body(try location.open(model), location)
    }

    static func with(
        _ model: PersistentStore.Model, on backend: Backend = .sqlite, _ body: (PersistentStore) async throws -> Void
    ) async throws {
        guard let (location, cleanup) = try make(backend) else { return }
        defer { cleanup() }
        try await body(try location.open(model))
    }

    /// The rows `sql` returns from the store file at `path`, as text (`NULL` for null).
    static func rows(_ path: String, _ sql: String) throws -> [[String]] {
        let connection = try Connection(path: path)
        let statement = try connection.cachedStatement(sql)
        var rows: [[String]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.isNull($0) ? "NULL" : statement.string($0) })
        }
        return rows
    }

    /// The rows `sql` returns from the store at `location`, as text (`NULL` for null), read
    /// without the runtime: SQLite's C API for a file, `psql` for PostgreSQL.
    static func rows(_ location: Location, _ sql: String) throws -> [[String]] {
        switch location {
        case .file(let path):
            return try rows(path, sql)
        case .postgres(let cluster, let schema, _):
            return try cluster.rows("\\pset null NULL\n" + sql + ";", schema: schema, keepingEmptyRows: true)
        }
    }

    /// `rows` as `rows(_:_:)` gives them on `backend`, for expectations written as SQLite's
    /// text: PostgreSQL writes an integral `double precision` without `.0`.
    static func text(_ rows: [[String]], on backend: Backend) -> [[String]] {
        guard backend == .postgres else { return rows }
        return rows.map { row in row.map { $0.wholeMatch(of: /-?[0-9]+\.0/) != nil ? String($0.dropLast(2)) : $0 } }
    }
}
