import Foundation
import GeneratedModels
import TestSupport
import Testing

@_spi(Generated) @_spi(Database) @testable import ModelGenRuntime

/// A class written the way the generator will write it for PersonData's `SamplePerson`
/// (`name` String optional, `ssn` Integer 16 required with default 0).
final class SamplePerson: ManagedObject {
    static let entity = EntityDescription(
        // The number the reference DDL's CHECK allows: the generated model's.
        name: "Person", table: "person",
        entityID: PersonDataModel.model.entities.first { $0.name == "Person" }!.entityID,
        attributes: [
            AttributeDescription(name: "name", column: "name", type: .string, isOptional: true, hasDefault: false),
            AttributeDescription(name: "ssn", column: "ssn", type: .int16, isOptional: false, hasDefault: true),
        ])

    private var _name: String?
    private var _ssn: Int16 = 0

    var name: String? {
        get { _name }
        set {
            _name = newValue
            didChange(slot: 0)
        }
    }

    var ssn: Int16 {
        get { _ssn }
        set {
            _ssn = newValue
            didChange(slot: 1)
        }
    }

    override class var entityDescription: EntityDescription { entity }

    override func read(from row: Statement, startingAt column: Int32) {
        _name = row.isNull(column) ? nil : row.string(column)
        _ssn = Int16(truncatingIfNeeded: row.int64(column + 1))
    }

    override func bind(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 {
        var index = index
        if mask & 1 != 0 {
            if let _name { statement.bind(_name, at: index) } else { statement.bindNull(index) }
            index += 1
        }
        if mask & 2 != 0 {
            statement.bind(Int64(_ssn), at: index)
            index += 1
        }
        return index
    }

    override func value(atSlot slot: Int) -> Any? {
        switch slot {
        case 0: _name
        case 1: _ssn
        default: nil
        }
    }

    override func setValue(_ value: Any?, atSlot slot: Int) throws(DatabaseError) {
        switch slot {
        case 0:
            guard value == nil || value is String else {
                throw DatabaseError(.wrongType, "name takes a String", entity: "SamplePerson", property: "name")
            }
            name = value as? String
        case 1:
            guard let number = value as? Int16 else {
                throw DatabaseError(.wrongType, "ssn takes an Int16", entity: "SamplePerson", property: "ssn")
            }
            ssn = number
        default:
            throw DatabaseError(.unknownKey, "SamplePerson has no property at slot \(slot)", entity: "SamplePerson")
        }
    }
}

/// An entity with a required attribute and no default, for validation.
final class Badge: ManagedObject {
    static let entity = EntityDescription(
        name: "Badge", table: "badge", entityID: 1,
        attributes: [
            AttributeDescription(name: "code", column: "code", type: .string, isOptional: false, hasDefault: false)
        ])
    private var _code = ""
    var code: String {
        get { _code }
        set {
            _code = newValue
            didChange(slot: 0)
        }
    }
    override class var entityDescription: EntityDescription { entity }
    override func read(from row: Statement, startingAt column: Int32) { _code = row.string(column) }
    override func bind(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 {
        guard mask & 1 != 0 else { return index }
        statement.bind(_code, at: index)
        return index + 1
    }
}

@Suite struct ObjectContextTests {
    static let referenceDDL = PackagePaths.tests("ModelGenCoreTests", "Reference/PersonData/sqlite.sql")

    static func personModel() throws -> PersistentStore.Model {
        let ddl = try String(contentsOf: referenceDDL, encoding: .utf8)
        let hash = try #require(ddl.firstMatch(of: /'schema_hash', '([0-9a-f]{64})'/)?.1)
        return PersistentStore.Model(
            name: "PersonData", sqliteDDL: ddl, schemaHash: String(hash), entities: [SamplePerson.entity])
    }

    func withStorePath(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("people.sqlite").path)
    }

    @Test func insertSaveFetchUpdateDeleteAcrossReopens() throws {
        try withStorePath { path in
            let model = try Self.personModel()
            do {
                let context = try PersistentStore(path: path, model: model).newContext()
                let ada = context.insert(SamplePerson.self)
                ada.name = "Ada"
                ada.ssn = 12
                let anonymous = context.insert(SamplePerson.self)
                #expect(ada.objectID.isTemporary)
                #expect(context.hasChanges)
                try context.save()
                #expect(!context.hasChanges)
                #expect(!ada.objectID.isTemporary)
                #expect(anonymous.ssn == 0 && anonymous.name == nil)
                let fetched = try context.fetchAll(SamplePerson.self)
                #expect(fetched.count == 2)
                #expect(fetched[0] === ada, "one object per row in a context")
            }
            let store = try PersistentStore(path: path, model: model)
            let context = store.newContext()
            let people = try context.fetchAll(SamplePerson.self)
            #expect(people.map(\.name) == ["Ada", nil])
            #expect(people.map(\.ssn) == [12, 0])
            people[0].name = "Ada Lovelace"
            context.delete(people[1])
            try context.save()
            let other = store.newContext()
            #expect(try other.fetchAll(SamplePerson.self).map(\.name) == ["Ada Lovelace"])
        }
    }

    @Test func requiredAttributesNeverSetFailTheWholeSave() throws {
        let ddl = """
            CREATE TABLE "badge" ("_pk" INTEGER PRIMARY KEY, "_entity" INTEGER NOT NULL, "_version" INTEGER NOT NULL DEFAULT 1, "code" TEXT NOT NULL);
            CREATE TABLE "_modelgen_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
            INSERT INTO "_modelgen_metadata" VALUES ('schema_hash', 'h');
            """
        let store = try PersistentStore(
            path: ":memory:", model: .init(name: "Badges", sqliteDDL: ddl, schemaHash: "h", entities: [Badge.entity]))
        let context = store.newContext()
        context.insert(Badge.self).code = "ok"
        _ = context.insert(Badge.self)
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? DatabaseError
            return error?.code == .validation && error?.entity == "Badge" && error?.property == "code"
        }
        #expect(context.hasChanges, "a failed save keeps the unsaved changes")
        #expect(try store.newContext().fetchAll(Badge.self).isEmpty, "nothing was stored")
    }

    /// A table whose largest `_pk` is the largest integer has no number for a new row: the save
    /// fails with SQLite's "full" code, nothing is written, and the context keeps its insert.
    @Test func aTableWithoutRowNumbersLeftFailsTheSaveInsteadOfOverflowing() throws {
        let store = try PersistentStore(path: ":memory:", model: try Self.personModel())
        try store.withConnection { connection throws(DatabaseError) in
            try connection.execute(
                #"INSERT INTO "person" ("_pk", "_entity", "ssn") VALUES (9223372036854775807, \#(SamplePerson.entity.entityID), 0)"#
            )
        }
        let context = store.newContext()
        let person = context.insert(SamplePerson.self)
        person.name = "Overflow"
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? DatabaseError
            return error?.code == .sqlite && error?.sqliteCode == 13 && error?.entity == "Person"
        }
        #expect(context.hasChanges && person.objectID.isTemporary)
        #expect(try store.newContext().fetchAll(SamplePerson.self).count == 1)
    }

    /// SQLite numbers new rows; a save has already given each new object its number (foreign keys
    /// between new objects are bound with it). When something else inserts into the table during
    /// the save (here a trigger), the numbers would disagree: the save fails whole instead of
    /// leaving objects with the wrong identity.
    @Test func aRowNumberedOtherwiseThanAssignedFailsTheWholeSave() throws {
        let store = try PersistentStore(path: ":memory:", model: try Self.personModel())
        try store.withConnection { connection throws(DatabaseError) in
            try connection.execute(
                #"CREATE TRIGGER "echo" AFTER INSERT ON "person" WHEN NEW."name" = 'Echo' BEGIN INSERT INTO "person" ("_entity", "ssn") VALUES (\#(SamplePerson.entity.entityID), 99); END"#
            )
        }
        let context = store.newContext()
        let echo = context.insert(SamplePerson.self)
        echo.name = "Echo"
        let next = context.insert(SamplePerson.self)
        next.name = "Next"
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? DatabaseError
            return error?.code == .sqlite && error?.entity == "Person" && error?.message.contains("numbered") == true
        }
        #expect(context.hasChanges && echo.objectID.isTemporary && next.objectID.isTemporary)
        #expect(try store.newContext().fetchAll(SamplePerson.self).isEmpty, "nothing was stored")
        try store.withConnection { connection throws(DatabaseError) in try connection.execute(#"DROP TRIGGER "echo""#) }
        try context.save()
        #expect(echo.objectID.rowID == 1 && next.objectID.rowID == 2)
        #expect(try store.newContext().fetchAll(SamplePerson.self).map(\.name) == ["Echo", "Next"])
    }

    @Test func rollbackForgetsUnsavedWork() throws {
        let store = try PersistentStore(path: ":memory:", model: try Self.personModel())
        let context = store.newContext()
        let person = context.insert(SamplePerson.self)
        person.name = "Grace"
        try context.save()
        person.name = "Changed"
        _ = context.insert(SamplePerson.self)
        #expect(context.hasChanges)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(person.name == "Grace")
        #expect(try context.fetchAll(SamplePerson.self).count == 1)
    }

    @Test func aStaleUpdateIsDetected() throws {
        try withStorePath { path in
            let store = try PersistentStore(path: path, model: try Self.personModel())
            let first = store.newContext()
            first.insert(SamplePerson.self).name = "Ada"
            try first.save()
            let second = store.newContext()
            let mine = try first.fetchAll(SamplePerson.self)[0]
            let theirs = try second.fetchAll(SamplePerson.self)[0]
            theirs.ssn = 7
            try second.save()
            mine.ssn = 9
            #expect {
                try first.save()
            } throws: { ($0 as? DatabaseError)?.code == .conflict }
            try first.refresh(mine)
            #expect(mine.ssn == 7)
        }
    }

    @Test func aStoreOfAnotherModelVersionIsRefused() throws {
        try withStorePath { path in
            _ = try PersistentStore(path: path, model: try Self.personModel())
            var other = try Self.personModel()
            other.schemaHash = String(repeating: "0", count: 64)
            #expect {
                _ = try PersistentStore(path: path, model: other)
            } throws: { ($0 as? DatabaseError)?.code == .migration }
        }
    }
}

@Suite struct DynamicAccessTests {
    @Test func keysReachPropertiesAndBadKeysOrTypesThrow() throws {
        let store = try PersistentStore(path: ":memory:", model: try ObjectContextTests.personModel())
        let context = store.newContext()
        let person = context.insert(SamplePerson.self)
        try person.setValue("Ada", forKey: "name")
        try person.setValue(Int16(36), forKey: "ssn")
        #expect(try person.value(forKey: "name") as? String == "Ada")
        #expect(try person.value(forKey: "ssn") as? Int16 == 36)
        #expect {
            try person.setValue("x", forKey: "age")
        } throws: { ($0 as? DatabaseError)?.code == .unknownKey }
        #expect {
            try person.value(forKey: "age")
        } throws: { ($0 as? DatabaseError)?.code == .unknownKey }
        #expect {
            try person.setValue("36", forKey: "ssn")
        } throws: { ($0 as? DatabaseError)?.code == .wrongType }
        try context.save()
        try person.setValue(nil, forKey: "name")
        try context.save()
        #expect(try store.newContext().fetchAll(SamplePerson.self).first?.name == nil)
    }
}
