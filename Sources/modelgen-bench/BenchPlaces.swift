import CLibPQ
import CSQLite
import Foundation
@_spi(Database) import ModelGenRuntime

/// Two fresh places holding the same data for a phase that brings its own model: the store the
/// runtime side uses, and a raw handle on the other place for the baseline (a SQLite database
/// opened with the C API, or a libpq connection whose search path is the other schema). Both are
/// filled through the runtime, untimed; `close()` removes everything.
final class BenchPlaces {
    enum Raw {
        case sqlite(OpaquePointer?)
        case postgres(OpaquePointer)
    }

    let store: PersistentStore
    let raw: Raw
    /// Where the raw side's data is, for more connections to it: the SQLite file's path, or the
    /// libpq connection string whose search path is the raw schema.
    let rawLocation: String
    private let cleanup: () -> Void

    init(_ name: String, model: PersistentStore.Model, engine: BenchEngine, fill: (PersistentStore) throws -> Void)
        throws
    {
        switch engine {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "modelgen-\(name)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let remove = { _ = try? FileManager.default.removeItem(at: directory) }
            do {
                store = try PersistentStore(path: directory.appendingPathComponent("runtime.sqlite").path, model: model)
                try fill(store)
                let path = directory.appendingPathComponent("raw.sqlite").path
                rawLocation = path
                try fill(try PersistentStore(path: path, model: model))
                var db: OpaquePointer?
                let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
                guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
                    throw DatabaseError(.sqlite, "cannot open \(path)")
                }
                raw = .sqlite(db)
                cleanup = {
                    sqlite3_close(db)
                    remove()
                }
            } catch {
                remove()
                throw error
            }
        case .postgres(let connection):
            let admin = try Connection(postgres: connection)
            let suffix = UUID().uuidString.prefix(8).lowercased()
            let schemas = ["\(name)_raw_\(suffix)", "\(name)_runtime_\(suffix)"]
            let drop = { for schema in schemas { try? admin.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE") } }
            do {
                for schema in schemas { try admin.execute("CREATE SCHEMA \"\(schema)\"") }
                store = try PersistentStore(postgres: RuntimeBenchmark.searchPath(connection, schemas[1]), model: model)
                try fill(store)
                rawLocation = RuntimeBenchmark.searchPath(connection, schemas[0])
                try fill(try PersistentStore(postgres: rawLocation, model: model))
                guard let opened = PQconnectdb(RuntimeBenchmark.searchPath(connection, schemas[0])),
                    PQstatus(opened) == CONNECTION_OK
                else { throw DatabaseError(.postgres, "the baseline cannot connect") }
                raw = .postgres(opened)
                cleanup = {
                    PQfinish(opened)
                    drop()
                }
            } catch {
                drop()
                throw error
            }
        }
    }

    func close() { cleanup() }
}
