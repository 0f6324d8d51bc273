import CDBookmarks1
import CDBookmarks2
import CDBookmarks4
import Foundation
import ModelGenRuntime
import Testing

/// Opening a Core Data store with the generated code of another model version: refused with
/// `.migration` naming what differs — the schema, or where two versions share a schema
/// (`BookmarksModel` and `BookmarksModel 2` differ only in a version hash modifier) the model
/// cache — and opened read-only when asked, with the differences listed.
@Suite struct CoreDataVersionTests {
    @Test func anotherVersionIsRefusedUnlessReadOnly() throws {
        guard let (first, directory) = try CoreDataWriteTests.copy("Bookmarks_V1.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        // Same schema, another version: only the model cache tells.
        #expect {
            _ = try PersistentStore(coreDataStoreAt: first, model: CDBookmarks2.BookmarksModelModel.model)
        } throws: { error in
            (error as? DatabaseError)?.code == .migration
                && (error as? DatabaseError)?.message.contains("model cache describes another version") == true
        }
        let readOnly = try PersistentStore(
            coreDataStoreAt: first, model: CDBookmarks2.BookmarksModelModel.model, options: .init(readOnly: true))
        #expect(readOnly.coreData?.mismatches.count == 1)
        #expect(try readOnly.newContext().fetchAll(CDBookmarks2.BookmarkEntity.self).count == 10)
        // Its own version opens.
        let own = try PersistentStore(coreDataStoreAt: first, model: CDBookmarks1.BookmarksModelModel.model)
        #expect(own.coreData?.mismatches == [])
        // Another schema: the differing columns and tables are named.
        #expect {
            _ = try PersistentStore(coreDataStoreAt: first, model: CDBookmarks4.BookmarksModelModel.model)
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.code == .migration && error.message.contains("no column for")
        }
        let partial = try PersistentStore(
            coreDataStoreAt: first, model: CDBookmarks4.BookmarksModelModel.model, options: .init(readOnly: true))
        #expect(partial.coreData?.mismatches.isEmpty == false)
        #expect(try partial.newContext().fetchAll(CDBookmarks4.BookmarkEntity.self).count == 10)
        // A read-only open writes nothing.
        #expect {
            let context = readOnly.newContext()
            try context.fetchAll(CDBookmarks2.BookmarkEntity.self)[0].title = "changed"
            try context.save()
        } throws: { error in
            (error as? DatabaseError)?.code == .sqlite
        }
    }

    /// Values Core Data keeps in external files (`.<store>_SUPPORT/_EXTERNAL_DATA`) are reported
    /// when the store is opened or inspected: their columns hold references, not the values.
    @Test func externalBinaryDataIsReported() throws {
        guard let (path, directory) = try CoreDataWriteTests.copy("Bookmarks_V1.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        let external = directory.appendingPathComponent(".Bookmarks_V1_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: external.appendingPathComponent("2C7B2D7E-1B3F-4F0C-9E11-5C4A7A6B8D90"))
        let store = try PersistentStore(coreDataStoreAt: path, model: CDBookmarks1.BookmarksModelModel.model)
        let reported = store.coreData?.report.anomalies.filter { $0.table == "_EXTERNAL_DATA" } ?? []
        #expect(reported.count == 1)
        #expect(reported.first?.message.hasPrefix("1 value(s) are stored in files of") == true)
        #expect(try CoreDataStoreInspection.inspect(path: path).anomalies.contains { $0.table == "_EXTERNAL_DATA" })
    }
}
