import Foundation
import Testing

@testable import ModelGenRuntime

/// Stores on fresh files in their own directories, removed afterwards, and a raw look at them.
enum TemporaryStore {
    static func with(_ model: PersistentStore.Model, _ body: (PersistentStore, String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        try body(try PersistentStore(path: path, model: model), path)
    }

    static func with(_ model: PersistentStore.Model, _ body: (PersistentStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try PersistentStore(path: directory.appendingPathComponent("store.sqlite").path, model: model))
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
}
