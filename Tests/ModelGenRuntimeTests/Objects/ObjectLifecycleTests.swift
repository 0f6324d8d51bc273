import Foundation
import Testing

@_spi(Generated) @testable import ModelGenRuntime

/// A note whose class takes part in its life (`ObjectLifecycle`), written as the generator writes
/// an entity class, with a model of its own (no other test sees its hooks).
final class LifecycleNote: ManagedObject, ObjectLifecycle {
    static let entity = EntityDescription(
        name: "Note", table: "note", entityID: 1,
        attributes: [
            AttributeDescription(name: "title", column: "title", type: .string, isOptional: false, hasDefault: false),
            AttributeDescription(name: "pinned", column: "pinned", type: .bool, isOptional: false, hasDefault: true),
            AttributeDescription(name: "created", column: "created", type: .date, isOptional: true, hasDefault: false),
            AttributeDescription(name: "saves", column: "saves", type: .int64, isOptional: false, hasDefault: true),
        ],
        objectType: LifecycleNote.self)
    static let model = PersistentStore.Model(
        name: "Lifecycle",
        sqliteDDL: """
            CREATE TABLE "note" ("_pk" INTEGER PRIMARY KEY, "_entity" INTEGER NOT NULL, "_version" INTEGER NOT NULL DEFAULT 1,
                "title" TEXT NOT NULL, "pinned" INTEGER NOT NULL DEFAULT 0, "created" REAL, "saves" INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE "_modelgen_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
            INSERT INTO "_modelgen_metadata" VALUES ('schema_hash', 'lifecycle');
            """,
        schemaHash: "lifecycle", entities: [entity])

    private var _title = ""
    private var _pinned = false
    private var _created: Date?
    private var _saves: Int64 = 0
    /// What happened to this object, in order (not stored).
    var events: [String] = []

    var title: String {
        get { _title }
        set {
            _title = newValue
            didChange(slot: 0)
        }
    }
    var pinned: Bool {
        get { _pinned }
        set {
            _pinned = newValue
            didChange(slot: 1)
        }
    }
    var created: Date? {
        get { _created }
        set {
            _created = newValue
            didChange(slot: 2)
        }
    }
    var saves: Int64 {
        get { _saves }
        set {
            _saves = newValue
            didChange(slot: 3)
        }
    }

    override class var entityDescription: EntityDescription { entity }

    override func read(from row: Statement, startingAt column: Int32) {
        _title = row.read(column + 0)
        _pinned = row.read(column + 1)
        _created = row.read(column + 2)
        _saves = row.read(column + 3)
    }

    override func bind(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 {
        var next = index
        if mask & 1 != 0 {
            statement.bind(_title, at: next)
            next += 1
        }
        if mask & 2 != 0 {
            statement.bind(_pinned, at: next)
            next += 1
        }
        if mask & 4 != 0 {
            statement.bind(_created, at: next)
            next += 1
        }
        if mask & 8 != 0 {
            statement.bind(_saves, at: next)
            next += 1
        }
        return next
    }

    override func value(atSlot slot: Int) -> Any? {
        switch slot {
        case 0: _title
        case 1: _pinned
        case 2: _created
        default: _saves
        }
    }

    // The hooks.
    func awakeFromInsert() {
        events.append("insert")
        created = Date(timeIntervalSinceReferenceDate: 0)
    }
    func awakeFromFetch() { events.append("fetch") }
    func willSave() {
        events.append("willSave")
        if !isDeletedBySave { saves += 1 }
    }
    func didSave() { events.append("didSave") }
    func validateForInsert() throws {
        if title.isEmpty { throw DatabaseError(.validation, "a note needs a title", entity: "Note", property: "title") }
    }
    func validateForUpdate() throws {
        struct TitleTooLong: Error {}
        if title.count > 20 { throw TitleTooLong() }
    }
    func validateForDelete() throws {
        if pinned { throw DatabaseError(.validation, "a pinned note cannot be deleted", entity: "Note") }
    }

    /// Whether the object is listed as deleted in its context.
    var isDeletedBySave: Bool { isListedAsDeleted }
}

@Suite struct ObjectLifecycleTests {
    @Test func theHooksAreCalledWhenTheObjectLives() throws {
        try TemporaryStore.with(LifecycleNote.model) { store, _ in
            let context = store.newContext()
            let note = context.insert(LifecycleNote.self)
            #expect(
                note.events == ["insert"] && note.created == Date(timeIntervalSinceReferenceDate: 0),
                "awakeFromInsert sets a value")
            note.title = "groceries"
            try context.save()
            #expect(note.events == ["insert", "willSave", "didSave"])
            #expect(note.saves == 1, "a change made in willSave is saved")

            let other = store.newContext()
            let copy = try other.existingObject(with: note.objectID, as: LifecycleNote.self)
            #expect(
                copy.events == ["fetch"] && copy.saves == 1 && copy.created == Date(timeIntervalSinceReferenceDate: 0))
            #expect(
                try other.fetchAll(LifecycleNote.self).first === copy && copy.events == ["fetch"],
                "an object already here is not awoken again")
            try other.refresh(copy)
            #expect(copy.events == ["fetch", "fetch"])

            // validateForUpdate: an error of the user's own type fails the save as .validation.
            note.title = String(repeating: "x", count: 30)
            let tooLong = #expect(throws: DatabaseError.self) { try context.save() }
            #expect(
                tooLong?.code == .validation && tooLong?.entity == "Note"
                    && tooLong?.message.contains("TitleTooLong") == true)
            note.title = "milk"
            try context.save()
            #expect(try store.newContext().fetchAll(LifecycleNote.self).map(\.title) == ["milk"])

            // validateForInsert and validateForDelete.
            let empty = context.insert(LifecycleNote.self)
            empty.title = ""
            let untitled = #expect(throws: DatabaseError.self) { try context.save() }
            #expect(untitled?.property == "title")
            context.delete(empty)
            note.pinned = true
            try context.save()
            context.delete(note)
            let pinned = #expect(throws: DatabaseError.self) { try context.save() }
            #expect(pinned?.message == "a pinned note cannot be deleted")
            context.rollback()
            #expect(
                try store.newContext().count(FetchRequest<LifecycleNote>()) == 1,
                "nothing of the refused saves was stored")
            note.pinned = false
            try context.save()
            context.delete(note)
            note.events = []
            try context.save()
            #expect(note.events == ["willSave", "didSave"])
            #expect(try store.newContext().count(FetchRequest<LifecycleNote>()) == 0)
        }
    }
}
