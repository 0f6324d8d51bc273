import Foundation
import ModelGenRuntime
import TestSupport
import Testing

/// The database an oracle case runs on: the same cases, and the same expected answers, on SQLite
/// and on PostgreSQL.
enum OracleBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// Where this backend's stores live for one test: a temporary directory, or the tests'
    /// PostgreSQL cluster; `nil` (with a notice, or a failure where PostgreSQL is required) when
    /// the backend is not available. `cleanup` removes what the test made.
    func place() throws -> (place: OraclePlace, cleanup: () -> Void)? {
        switch self {
        case .sqlite:
            let directory = try TestPaths.temporaryDirectory()
            return (.directory(directory), { try? FileManager.default.removeItem(at: directory) })
        case .postgres:
            guard let cluster = PostgresCluster.shared() else { return nil }
            // Tests share the cluster and may replay the same seeds at once: each place names its
            // schemas with a prefix of its own.
            let prefix = "p" + String(UInt32.random(in: 0...UInt32.max), radix: 36) + "_"
            return (.cluster(cluster, prefix: prefix), {})
        }
    }
}

/// Where an oracle case's stores are made.
enum OraclePlace: Sendable {
    case directory(URL)
    case cluster(PostgresCluster, prefix: String)

    /// A store location named `name`, empty.
    func store(_ name: String) throws -> OracleStore {
        switch self {
        case .directory(let directory):
            let store = OracleStore.file(directory.appendingPathComponent(name + ".sqlite").path)
            store.remove()
            return store
        case .cluster(let cluster, let prefix):
            let schema = prefix + name.lowercased().replacing(/[^a-z0-9_]/, with: "_")
            let store = OracleStore.schema(cluster, schema, try cluster.connectionString(schema: schema))
            store.remove()
            return store
        }
    }
}

/// One store location: a SQLite file, or a PostgreSQL schema.
enum OracleStore: Sendable {
    case file(String)
    case schema(PostgresCluster, String, String)

    func open(_ model: PersistentStore.Model) throws -> PersistentStore {
        switch self {
        case .file(let path): try PersistentStore(path: path, model: model)
        case .schema(_, _, let connectionString): try PersistentStore(postgres: connectionString, model: model)
        }
    }

    /// Empties the location (the file and its companions; the schema's tables).
    func remove() {
        switch self {
        case .file(let path):
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        case .schema(let cluster, let schema, _):
            _ = try? cluster.psql("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE; CREATE SCHEMA \"\(schema)\";")
        }
    }
}
