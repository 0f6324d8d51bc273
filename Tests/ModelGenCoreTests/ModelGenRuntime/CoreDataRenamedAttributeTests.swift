import Foundation
import ModelGenRuntime
import Testing

@testable import ModelGenCore

/// A Core Data store written before an attribute was renamed (Xcode's "Renaming ID"): Core Data
/// kept the column under the old name (`ZTITLE`), and the new version's classes read and write
/// the renamed attribute there — unless the old name is still another property's.
@Suite struct CoreDataRenamedAttributeTests {
    static let titles = [1: "first", 2: "second", 3: "third"]

    /// A store of `Note { title, body }` as Core Data writes it.
    static func makeStore() throws -> String {
        let directory = try TestPaths.temporaryDirectory()
        let path = directory.appendingPathComponent("Notes.sqlite").path
        let database = try SQLiteDatabase(path: path)
        try database.execute(
            """
            CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBODY VARCHAR, ZTITLE VARCHAR);
            """)
        try database.execute(
            CoreDataBookkeeping.sql(uuid: "0D0C0B0A-0000-4000-8000-000000000001", entities: [(1, "Note", 3)]))
        for (key, title) in titles {
            try database.execute("INSERT INTO ZNOTE VALUES (\(key), 1, 1, 'body \(key)', '\(title)')")
        }
        return path
    }

    static func model(_ attributes: String) throws -> PersistentStore.Model {
        let (model, schema) = try MigrationSQLiteTests.load(MigrationSQLiteTests.entity("Note", attributes))
        return RuntimeSeeder.runtimeModel(model, schema, patterns: false)
    }

    static func values(_ store: PersistentStore, _ key: String) throws -> [Int64: String?] {
        let context = store.newContext()
        let entity = try #require(store.model.entities.first { $0.name == "Note" })
        var values: [Int64: String?] = [:]
        for object in try context.fetchAll(entity: entity) {
            values[object.objectID.rowID] = try object.value(forKey: key) as? String
        }
        return values
    }

    @Test func theRenamedAttributeReadsAndWritesItsOldColumn() throws {
        let path = try Self.makeStore()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let renamed = try Self.model(
            #"<attribute name="heading" optional="YES" attributeType="String" elementID="title"/><attribute name="body" optional="YES" attributeType="String"/>"#
        )
        let readOnly = try PersistentStore(coreDataStoreAt: path, model: renamed, options: .init(readOnly: true))
        #expect(readOnly.coreData?.mismatches == [])
        #expect(try Self.values(readOnly, "heading") == Self.titles.reduce(into: [:]) { $0[Int64($1.key)] = $1.value })
        // Writable: the one store layout both versions share, so saves go to ZTITLE.
        let store = try PersistentStore(coreDataStoreAt: path, model: renamed)
        let context = store.newContext()
        let entity = try #require(store.model.entities.first { $0.name == "Note" })
        let note = try #require(try context.fetchAll(entity: entity).first { $0.objectID.rowID == 2 })
        try note.setValue("renamed", forKey: "heading")
        try context.save()
        let raw = try SQLiteDatabase(path: path)
        #expect(
            try raw.rows("SELECT Z_PK, ZTITLE, Z_OPT FROM ZNOTE ORDER BY Z_PK") == [
                ["1", "first", "1"], ["2", "renamed", "2"], ["3", "third", "1"],
            ])
    }

    @Test func anOldNameStillInUseIsNotFollowed() throws {
        let path = try Self.makeStore()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        // `heading` was once `title`, and a new `title` took the name: ZTITLE is the new one's.
        let model = try Self.model(
            #"<attribute name="heading" optional="YES" attributeType="String" elementID="title"/><attribute name="title" optional="YES" attributeType="String"/><attribute name="body" optional="YES" attributeType="String"/>"#
        )
        let store = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
        #expect(store.coreData?.mismatches.contains { $0.contains("no column for heading") } == true)
        #expect(try Self.values(store, "title") == Self.titles.reduce(into: [:]) { $0[Int64($1.key)] = $1.value })
        #expect(try Self.values(store, "heading").values.allSatisfy { $0 == nil })
        #expect(throws: DatabaseError.self) { try PersistentStore(coreDataStoreAt: path, model: model) }
    }
}
