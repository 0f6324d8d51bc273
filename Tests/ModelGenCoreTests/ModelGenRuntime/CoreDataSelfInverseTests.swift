import Foundation
import ModelGenRuntime
import Testing

@testable import ModelGenCore

/// A many-to-many that is its own inverse (`Person.friends` ↔ `Person.friends`): Core Data's join
/// table names both columns after the one relationship, `Z_1FRIENDS (Z_1FRIENDS, Z_1FRIENDS1)`
/// (as `modelgen sql --layout coredata` prints it). Each stored row is a link both ways, whichever
/// way round the store keeps it; a save writes both rows, as the runtime's own layout does.
@Suite struct CoreDataSelfInverseTests {
    static let names: [Int64: String] = [1: "ann", 2: "bob", 3: "cat", 4: "dan"]

    static func makeStore(rows: [(Int64, Int64)]) throws -> String {
        let directory = try TestPaths.temporaryDirectory()
        let path = directory.appendingPathComponent("Friends.sqlite").path
        let database = try SQLiteDatabase(path: path)
        try database.execute(
            """
            CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE TABLE Z_1FRIENDS ( Z_1FRIENDS INTEGER, Z_1FRIENDS1 INTEGER, PRIMARY KEY (Z_1FRIENDS, Z_1FRIENDS1) );
            CREATE INDEX Z_1FRIENDS_Z_1FRIENDS1_INDEX ON Z_1FRIENDS (Z_1FRIENDS1, Z_1FRIENDS);
            """)
        try database.execute(
            CoreDataBookkeeping.sql(uuid: "0D0C0B0A-0000-4000-8000-000000000002", entities: [(1, "Person", 4)]))
        for (key, name) in names { try database.execute("INSERT INTO ZPERSON VALUES (\(key), 1, 1, '\(name)')") }
        for (a, b) in rows { try database.execute("INSERT INTO Z_1FRIENDS VALUES (\(a), \(b))") }
        return path
    }

    static func model() throws -> PersistentStore.Model {
        let (model, schema) = try MigrationSQLiteTests.load(
            MigrationSQLiteTests.entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="friends" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>"#
            ))
        return RuntimeSeeder.runtimeModel(model, schema, patterns: false)
    }

    /// Each person's friends as the store holds them: a row links its two people both ways.
    static func expected(_ rows: [(Int64, Int64)]) -> [Int64: Set<Int64>] {
        var friends = names.keys.reduce(into: [Int64: Set<Int64>]()) { $0[$1] = [] }
        for (a, b) in rows {
            friends[a]!.insert(b)
            friends[b]!.insert(a)
        }
        return friends
    }

    static func friends(_ store: PersistentStore) throws -> [Int64: Set<Int64>] {
        var result: [Int64: Set<Int64>] = [:]
        let context = store.newContext()
        for object in try context.fetchAll(entity: store.model.entities[0]) {
            let linked = try object.value(forKey: "friends") as? [ManagedObject] ?? []
            result[object.objectID.rowID] = Set(linked.map(\.objectID.rowID))
        }
        return result
    }

    static func rows(_ path: String) throws -> [(Int64, Int64)] {
        try SQLiteDatabase(path: path).rows("SELECT Z_1FRIENDS, Z_1FRIENDS1 FROM Z_1FRIENDS").map {
            (Int64($0[0]!)!, Int64($0[1]!)!)
        }
    }

    /// Stores keeping a link one way, the other way, or both ways read alike.
    @Test(arguments: [[(1, 2), (1, 3)], [(2, 1), (3, 1)], [(1, 2), (2, 1), (1, 3), (3, 1)], [(4, 4), (2, 3)]])
    func readsEachLinkBothWays(_ stored: [(Int64, Int64)]) throws {
        let path = try Self.makeStore(rows: stored)
        let store = try PersistentStore(coreDataStoreAt: path, model: Self.model(), options: .init(readOnly: true))
        #expect(store.coreData?.mismatches == [])
        #expect(try Self.friends(store) == Self.expected(stored))
    }

    @Test func writesLinksTheStoreReadsBack() throws {
        let path = try Self.makeStore(rows: [(1, 2), (1, 3)])
        let model = try Self.model()
        let store = try PersistentStore(coreDataStoreAt: path, model: model)
        #expect(store.coreData?.mismatches == [])
        let context = store.newContext()
        let people = Dictionary(
            uniqueKeysWithValues: try context.fetchAll(entity: model.entities[0]).map { ($0.objectID.rowID, $0) })
        // ann drops bob; dan befriends bob and cat.
        try people[1]!.setValue([people[3]!], forKey: "friends")
        try people[4]!.setValue([people[2]!, people[3]!], forKey: "friends")
        try context.save()
        let want: [(Int64, Int64)] = [(1, 3), (4, 2), (4, 3)]
        let pairs = Set(try Self.rows(path).map { [min($0.0, $0.1), max($0.0, $0.1)] })
        #expect(pairs == Set(want.map { [min($0.0, $0.1), max($0.0, $0.1)] }))
        let reopened = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
        #expect(try Self.friends(reopened) == Self.expected(want))
    }
}
