import CDJournal
import Foundation
import ModelGenRuntime
import TestSupport
import Testing

/// The stores `HandBuiltCoreDataStores` writes as Core Data does — both join-table owners and
/// the self-referential join's two directions, sibling sub-entities' suffixed columns, a
/// many-to-many declared on an abstract parent, to-ones with their `Z<n>_` entity column, an
/// ordered one-to-many, framework-637 DDL (inline UNIQUE, its column order), rows only in the
/// `-wal` — are read value by value as written, inspected without anomaly, left untouched by a
/// read-only open, and written with the layout's bookkeeping intact (§7 and the invariants).
@Suite struct CoreDataHandBuiltTests {
    typealias Contents = HandBuiltCoreDataStores.Contents

    @Test(arguments: HandBuiltCoreDataStores.variants)
    func readsInspectsAndWrites(_ variant: HandBuiltCoreDataStores.Variant) throws {
        let directory = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Journal.sqlite").path
        try HandBuiltCoreDataStores.make(variant, at: path)
        try? FileManager.default.removeItem(atPath: path + ".building")
        try? FileManager.default.removeItem(atPath: path + ".building-wal")
        try? FileManager.default.removeItem(atPath: path + ".building-shm")
        let before = try CoreDataUntouchedTests.snapshot(directory)

        let report = try CoreDataStoreInspection.inspect(path: path)
        #expect(report.anomalies == [], "\(variant)")
        #expect(report.entities.map(\.name) == ["Container", "Folder", "Person", "Record", "Note", "Task", "Tag"])
        #expect(report.entities.reduce(0) { $0 + $1.rows } == 2 + 3 + 4 + 2, "\(variant): rows")

        do {
            let store = try PersistentStore(
                coreDataStoreAt: path, model: JournalModel.model, options: .init(readOnly: true))
            #expect(store.coreData?.mismatches == [], "\(variant)")
            try Self.expectContents(store.newContext(), variant, added: nil)
        }
        #expect(try CoreDataUntouchedTests.snapshot(directory) == before, "\(variant): a read-only open changed files")

        let added = try Self.write(path)
        let oracle = try StoreOracle(path: path, model: JournalModel.model)
        #expect(try oracle.invariantViolations() == [], "\(variant)")
        try Self.expectWritten(oracle, variant, added: added)
        let reopened = try PersistentStore(coreDataStoreAt: path, model: JournalModel.model)
        #expect(reopened.coreData?.mismatches == [])
        try Self.expectContents(reopened.newContext(), variant, added: added)
    }

    /// Every object, value and link of `Contents` (less the deleted note, plus what `write`
    /// added, where given).
    static func expectContents(
        _ context: ObjectContext, _ variant: HandBuiltCoreDataStores.Variant, added: Added?
    ) throws {
        let label = "\(variant)\(added == nil ? "" : ", written")"
        let containers = Dictionary(
            uniqueKeysWithValues: try context.fetchAll(Container.self).map { ($0.objectID.rowID, $0) })
        #expect(containers.count == Contents.containers.count, "\(label)")
        for (key, expected) in Contents.containers {
            let container = try #require(containers[key])
            #expect((container is Folder) == (expected.entity == "Folder"), "\(label): container \(key)")
            #expect(container.name == expected.name)
            #expect((container as? Folder)?.color == expected.color)
            var order = Contents.ordered[key]!
            if added != nil { order.removeAll { $0 == 3 } }
            if let added, key == 2 { order.append(added.task) }
            #expect(container.records.map(\.objectID.rowID) == order, "\(label): records of \(key) in order")
        }
        let records = Dictionary(
            uniqueKeysWithValues: try context.fetchAll(Record.self).map { ($0.objectID.rowID, $0) })
        var expectedRecords = Contents.records
        if let added {
            expectedRecords[3] = nil
            expectedRecords[added.task] = ("Task", "third task", 5, 2)
        }
        #expect(Set(records.keys) == Set(expectedRecords.keys), "\(label)")
        for (key, expected) in expectedRecords {
            let record = try #require(records[key])
            #expect(record.title == expected.title, "\(label): record \(key)")
            #expect(record.container?.objectID.rowID == expected.container, "\(label): record \(key)")
            if let task = record as? CDJournal.Task {
                #expect(expected.entity == "Task", "\(label): record \(key) read as a task")
                #expect(task.pendingState.map(Int64.init) == expected.pendingState, "\(label): task \(key)")
                if let values = Contents.tasks[key] {
                    #expect(task.due == Date(timeIntervalSinceReferenceDate: values.due))
                    #expect(task.amount == values.amount)
                }
            } else if let note = record as? Note {
                #expect(expected.entity == "Note", "\(label): record \(key) read as a note")
                #expect(note.pendingState.map(Int64.init) == expected.pendingState, "\(label): note \(key)")
            }
            var tags = Contents.recordTags.filter { $0.0 == key }.map(\.1)
            if let added, key == added.task { tags = [1] }
            #expect(Set(record.tags.map(\.objectID.rowID)) == Set(tags), "\(label): tags of \(key)")
        }
        let tags = try context.fetchAll(Tag.self)
        #expect(Set(tags.map { $0.label ?? "" }) == Set(Contents.tags.values))
        for tag in tags {
            var linked = Contents.recordTags.filter { $0.1 == tag.objectID.rowID && (added == nil || $0.0 != 3) }.map(
                \.0)
            if let added, tag.objectID.rowID == 1 { linked.append(added.task) }
            #expect(
                Set(tag.records.map(\.objectID.rowID)) == Set(linked), "\(label): records of tag \(tag.label ?? "")")
        }
        var blocking = Contents.blocking
        if let added { blocking.append((added.person, 1)) }
        for person in try context.fetchAll(Person.self) {
            let key = person.objectID.rowID
            #expect(
                Set(person.blocking.map(\.objectID.rowID)) == Set(blocking.filter { $0.0 == key }.map(\.1)),
                "\(label): whom \(person.name ?? "") blocks")
            #expect(
                Set(person.blockedBy.map(\.objectID.rowID)) == Set(blocking.filter { $0.1 == key }.map(\.0)),
                "\(label): who blocks \(person.name ?? "")")
        }
    }

    struct Added {
        var task: Int64
        var person: Int64
    }

    /// A new task appended to the folder's records and tagged, a new person blocking the first,
    /// and the inbox's note deleted, in one save.
    static func write(_ path: String) throws -> Added {
        let store = try PersistentStore(coreDataStoreAt: path, model: JournalModel.model)
        let context = store.newContext()
        let folder = try #require(try context.fetchAll(Folder.self).first)
        let task = CDJournal.Task(in: context)
        task.title = "third task"
        task.pendingState = 5
        folder.addToRecords(task)
        let urgent = try #require(try context.fetchAll(Tag.self).first { $0.objectID.rowID == 1 })
        task.addToTags(urgent)
        let person = Person(in: context)
        person.name = "dan"
        let ann = try #require(try context.fetchAll(Person.self).first { $0.name == "ann" })
        person.addToBlocking(ann)
        let note = try #require(try context.fetchAll(Note.self).first { $0.objectID.rowID == 3 })
        context.delete(note)
        try context.save()
        return Added(task: task.objectID.rowID, person: person.objectID.rowID)
    }

    /// The new rows as Core Data would have written them, read with plain SQL.
    static func expectWritten(
        _ oracle: StoreOracle, _ variant: HandBuiltCoreDataStores.Variant, added: Added
    ) throws {
        let label = "\(variant), written"
        #expect(added.task == 5, "\(label): the next key above Z_MAX")
        let row = try oracle.rows(
            "SELECT Z_ENT, ZPENDINGSTATE, ZPENDINGSTATE1, ZCONTAINER, Z1_CONTAINER, Z_FOK_CONTAINER FROM ZRECORD WHERE Z_PK = ?",
            [added.task])
        #expect(
            row.first == [.integer(6), .null, .integer(5), .integer(2), .integer(2), row.first?[5] ?? .null], "\(label)"
        )
        let positions = try oracle.rows("SELECT Z_PK FROM ZRECORD WHERE ZCONTAINER = 2 ORDER BY Z_FOK_CONTAINER")
        #expect(positions.last == [.integer(added.task)], "\(label): appended last")
        #expect(try oracle.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 4") == [[.integer(5)]], "\(label)")
        #expect(try oracle.rows("SELECT count(*) FROM ZRECORD WHERE Z_PK = 3") == [[.integer(0)]], "\(label)")
        let (tagJoin, blockJoin) =
            variant.owner == .lowerNumbered ? ("Z_4TAGS", "Z_3BLOCKEDBY") : ("Z_7RECORDS", "Z_3BLOCKING")
        #expect(
            try oracle.rows("SELECT Z_7TAGS FROM \(tagJoin) WHERE Z_4RECORDS = ?", [added.task]) == [[.integer(1)]],
            "\(label)")
        #expect(try oracle.rows("SELECT count(*) FROM \(tagJoin) WHERE Z_4RECORDS = 3") == [[.integer(0)]], "\(label)")
        #expect(
            try oracle.rows("SELECT Z_3BLOCKING FROM \(blockJoin) WHERE Z_3BLOCKEDBY = ?", [added.person])
                == [[.integer(1)]], "\(label): the new person blocks ann")
    }
}
