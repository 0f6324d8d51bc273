import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// Observed results (`ResultsObservation`) against brute force: after every save, the delivered
/// sections must be what reading every student in a fresh context and filtering, sorting and
/// grouping them in Swift gives, and the delivered change set applied to the previous sections
/// (as a plain array, by the rules `ResultsChanges` documents) must give them too.
@Suite struct ObservedResultsTests {
    /// Students whose first name sorts before "m", in sections by last name, by first name.
    static var observation: ResultsObservation<Student> {
        ResultsObservation(
            FetchRequest<Student>(
                predicate: \Student.first_name < "m", sortDescriptors: [ObjectSortDescriptor(\Student.first_name)]),
            sectionedBy: \Student.last_name)
    }

    /// The observation's rule in Swift: the filter, and the order by bytes then row.
    static func selects(_ first: String) -> Bool { Array(first.utf8).lexicographicallyPrecedes(Array("m".utf8)) }

    /// Every student, read in a fresh context, filtered, sorted and grouped here.
    static func expected(_ store: PersistentStore) throws -> [Section] {
        let all = try store.newContext().fetchAll(Student.self).filter { selects($0.first_name) }
        let sorted = all.sorted { lhs, rhs in
            let left = (Array(lhs.last_name.utf8), Array(lhs.first_name.utf8))
            let right = (Array(rhs.last_name.utf8), Array(rhs.first_name.utf8))
            if left.0 != right.0 { return left.0.lexicographicallyPrecedes(right.0) }
            if left.1 != right.1 { return left.1.lexicographicallyPrecedes(right.1) }
            return lhs.objectID.rowID < rhs.objectID.rowID
        }
        var sections: [Section] = []
        for student in sorted {
            if sections.last?.name != student.last_name { sections.append(Section(name: student.last_name, ids: [])) }
            sections[sections.count - 1].ids.append(student.objectID)
        }
        return sections
    }

    struct Section: Equatable, CustomStringConvertible {
        var name: String
        var ids: [ObjectID]
        var description: String { "\(name): \(ids.map(\.stringValue))" }
    }

    /// Follows the observation on a queue of its own, where its context is used, applying each
    /// change set to the sections it showed before.
    final class Observer: @unchecked Sendable {
        let queue = DispatchQueue(label: "observer")
        private var context: ObjectContext?
        private var handle: ObservationHandle?
        /// Touched only on `queue`.
        private var shown: [Section] = []
        private var delivered: [Section] = []
        private var lastChanges = ResultsChanges()
        private var count = 0
        private var problems: [String] = []

        init(_ store: PersistentStore, _ observation: ResultsObservation<Student> = ObservedResultsTests.observation)
            throws
        {
            try queue.sync {
                let context = store.newContext()
                self.context = context
                handle = try observation.start(in: context, on: queue) { [unowned self] results in receive(results) }
            }
        }

        private func receive(_ results: ObservedResults<Student>) {
            count += 1
            let now = results.sections.map { Section(name: $0.name, ids: $0.objects.map(\.objectID)) }
            if results.objects.map(\.objectID) != now.flatMap(\.ids) {
                problems.append("objects and sections disagree")
            }
            if results.isInitial {
                shown = now
            } else {
                shown = Self.apply(results.changes, to: shown, new: now)
                if shown != now {
                    problems.append(
                        String("the changes \(results.changes) applied give \(shown), not \(now)".prefix(1_500)))
                }
                shown = now
            }
            delivered = now
            lastChanges = results.changes
        }

        /// The rules of `ResultsChanges`, applied to plain arrays: removals, deleted sections,
        /// inserted sections (whole), insertions; moved objects are the ones removed.
        static func apply(_ changes: ResultsChanges, to old: [Section], new: [Section]) -> [Section] {
            var sections = old
            var movedObjects: [ResultPosition: ObjectID] = [:]
            for move in changes.moved { movedObjects[move.to] = old[move.from.section].ids[move.from.item] }
            for position in (changes.deleted + changes.moved.map(\.from)).sorted(by: >) {
                sections[position.section].ids.remove(at: position.item)
            }
            for section in changes.deletedSections.sorted(by: >) { sections.remove(at: section) }
            for section in changes.insertedSections.sorted() { sections.insert(new[section], at: section) }
            for position in (changes.inserted + changes.moved.map(\.to)).sorted() {
                let id = movedObjects[position] ?? new[position.section].ids[position.item]
                sections[position.section].ids.insert(id, at: position.item)
            }
            return sections
        }

        /// What was delivered last, once the deliveries scheduled so far have run.
        var state: (sections: [Section], changes: ResultsChanges, deliveries: Int, problems: [String]) {
            queue.sync { (delivered, lastChanges, count, problems) }
        }

        /// Waits (up to `seconds`) for a delivery after the `count`th.
        func waitForDelivery(after count: Int, seconds: Double = 5) -> Bool {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if state.deliveries > count { return true }
                usleep(5_000)
            }
            return false
        }

        func stop() {
            queue.sync {
                handle?.cancel()
                handle = nil
                context = nil
            }
        }
    }

    static func student(_ first: String, _ last: String, in context: ObjectContext) -> Student {
        Student(in: context, first_name: first, id: UUID(), last_name: last)
    }

    static func find(_ first: String, in context: ObjectContext) throws -> Student {
        try #require(try context.fetch(FetchRequest<Student>(predicate: \Student.first_name == first)).first)
    }

    @Test(arguments: Backend.allCases) func everyKindOfChangeIsDeliveredAsATableViewApplies(_ backend: Backend) throws {
        try TemporaryStore.with(GradeBookModel.model, on: backend) { store, _ in
            let writer = store.newContext()
            for (first, last) in [("ada", "lovelace"), ("alan", "turing"), ("grace", "hopper"), ("zoe", "hopper")] {
                _ = Self.student(first, last, in: writer)
            }
            try writer.save()
            let observer = try Observer(store)
            defer { observer.stop() }
            var state = observer.state
            #expect(state.sections == (try Self.expected(store)))
            #expect(state.sections.map(\.name) == ["hopper", "lovelace", "turing"])
            #expect(state.changes.insertedSections == [0, 1, 2])

            func step(_ what: String, _ change: () throws -> Void, check: (ResultsChanges) -> Void) throws {
                let before = observer.state.deliveries
                try change()
                try writer.save()
                state = observer.state
                #expect(state.deliveries == before + 1, "\(what): one delivery")
                #expect(state.problems.isEmpty, "\(what): \(state.problems)")
                #expect(state.sections == (try Self.expected(store)), "\(what)")
                check(state.changes)
            }
            try step("insert inside the predicate", { _ = Self.student("ella", "hopper", in: writer) }) { changes in
                #expect(changes.inserted == [ResultPosition(section: 0, item: 0)])
                #expect(changes.deleted.isEmpty && changes.moved.isEmpty && changes.updated.isEmpty)
            }
            let deliveries = observer.state.deliveries
            _ = Self.student("otto", "hopper", in: writer)
            try writer.save()
            #expect(observer.state.deliveries == deliveries, "an insert outside the predicate changes nothing")
            try step("a sort key moves within a section", { try Self.find("ella", in: writer).first_name = "hanna" }) {
                changes in
                #expect(
                    changes.moved == [
                        ResultsChanges.Move(
                            from: ResultPosition(section: 0, item: 0), to: ResultPosition(section: 0, item: 1))
                    ])
                #expect(changes.updated == [ResultPosition(section: 0, item: 1)])
            }
            try step("an update in place", { try Self.find("alan", in: writer).id = UUID() }) { changes in
                #expect(changes.updated == [ResultPosition(section: 2, item: 0)])
                #expect(changes.moved.isEmpty && changes.inserted.isEmpty && changes.deleted.isEmpty)
            }
            try step("a move between sections", { try Self.find("hanna", in: writer).last_name = "lovelace" }) {
                changes in
                #expect(
                    changes.moved == [
                        ResultsChanges.Move(
                            from: ResultPosition(section: 0, item: 1), to: ResultPosition(section: 1, item: 1))
                    ])
            }
            try step("leaving the predicate", { try Self.find("grace", in: writer).first_name = "xena" }) { changes in
                // The section "hopper" had only grace left: it goes, item and all.
                #expect(changes.deletedSections == [0])
                #expect(changes.deleted.isEmpty)
            }
            try step("entering the predicate", { try Self.find("otto", in: writer).first_name = "bea" }) { changes in
                #expect(changes.insertedSections == [0])
                #expect(changes.inserted.isEmpty)
            }
            try step("a delete", { writer.delete(try Self.find("ada", in: writer)) }) { changes in
                #expect(changes.deleted == [ResultPosition(section: 1, item: 0)])
            }
            try step(
                "many changes in one save",
                {
                    for index in 0..<300 {
                        _ = Self.student(
                            String(UnicodeScalar(UInt8(97 + index % 26))) + "\(index)", "family\(index % 7)", in: writer
                        )
                    }
                    writer.delete(try Self.find("alan", in: writer))
                    try Self.find("hanna", in: writer).last_name = "family3"
                }
            ) { changes in
                #expect(!changes.insertedSections.isEmpty)
            }
        }
    }
}

/// Observed results fed by other contexts and other processes, as an asynchronous sequence too;
/// objects handed across contexts and processes by identifier.
@Suite struct ObservedResultsAcrossTests {
    @Test(.timeLimit(.minutes(20)), arguments: Backend.allCases)
    func theSequenceDeliversABackgroundContextsSave(_ backend: Backend) async throws {
        try await TemporaryStore.with(GradeBookModel.model, on: backend) { store in
            let main = store.newContext()
            var results = ResultsObservation(
                FetchRequest<Student>(sortDescriptors: [ObjectSortDescriptor(\Student.last_name)])
            ).values(in: main).makeAsyncIterator()
            let initial = try #require(try await results.next())
            #expect(initial.isInitial && initial.objects.isEmpty)
            let id = try await store.perform { context in
                let student = ObservedResultsTests.student("ada", "lovelace", in: context)
                try context.save()
                return student.objectID
            }
            let next = try #require(try await results.next())
            #expect(next.objects.map(\.objectID) == [id])
            #expect(next.changes.inserted == [ResultPosition(section: 0, item: 0)])
            #expect(next.objects.first?.context === main, "delivered in the observing context")
            try await store.perform { context in
                try context.existingObject(with: id, as: Student.self).last_name = "byron"
                try context.save()
            }
            let renamed = try #require(try await results.next())
            #expect(renamed.changes.updated == [ResultPosition(section: 0, item: 0)])
            #expect(renamed.objects.first?.last_name == "byron", "the object was merged into the observing context")
        }
    }

    @Test(arguments: Backend.allCases) func anotherProcessesSavesAreObservedAndObjectsCrossByTheirText(
        _ backend: Backend
    ) throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model, options: .init(externalChangeInterval: 0.02))
        let observer = try ObservedResultsTests.Observer(store)
        defer { observer.stop() }
        // A student added by another process reaches the results; its identifier's text names it here.
        let before = observer.state.deliveries
        let added = try StressTool.run([
            "add-student", "--store", location.argument, "--first", "bea", "--last", "curie",
        ])
        let text = try #require(added["object"] as? String)
        #expect(observer.waitForDelivery(after: before), "another process's insert is delivered")
        #expect(observer.state.sections == (try ObservedResultsTests.expected(store)))
        let context = store.newContext()
        let id = try #require(ObjectID(stringValue: text))
        let student = try context.existingObject(with: id, as: Student.self)
        #expect(student.first_name == "bea" && student.objectID == id)

        // One made here, changed there through its text, then deleted there.
        let local = ObservedResultsTests.student("cleo", "curie", in: context)
        try context.save()
        let localText = local.objectID.stringValue
        var count = observer.state.deliveries
        _ = try StressTool.run(["edit-student", "--store", location.argument, "--object", localText, "--first", "dora"])
        #expect(observer.waitForDelivery(after: count))
        #expect(observer.state.sections == (try ObservedResultsTests.expected(store)))
        count = observer.state.deliveries
        _ = try StressTool.run(["edit-student", "--store", location.argument, "--object", localText, "--delete"])
        #expect(observer.waitForDelivery(after: count))
        #expect(observer.state.sections == (try ObservedResultsTests.expected(store)))
        let fresh = store.newContext()
        let missing = #expect(throws: DatabaseError.self) { try fresh.existingObject(with: local.objectID) }
        #expect(missing?.code == .missingObject)
        #expect(fresh.object(with: local.objectID) == nil)
        // The other process cannot find it either.
        let gone = try StressTool.start([
            "edit-student", "--store", location.argument, "--object", localText, "--first", "x",
        ]).finish()
        #expect(gone.status == 3 && gone.stdout.contains("missingObject"))
    }

    @Test func objectIdentifiersHaveOneTextEach() {
        for id in [ObjectID(entityID: 3, rowID: 42), ObjectID(entityID: 0, rowID: 1), ObjectID(entityID: 7, rowID: -5)]
        {
            #expect(ObjectID(stringValue: id.stringValue) == id)
        }
        #expect(ObjectID(entityID: 3, rowID: 42).stringValue == "3/42")
        #expect(ObjectID(entityID: 3, rowID: -2).stringValue == "3/t2")
        for text in ["", "3", "3/", "/4", "3/0", "3/-4", "3/+4", "03/4", "3/04", "3/t", "3/t0", "x/4", "3/4/5", "3/ 4"]
        {
            #expect(ObjectID(stringValue: text) == nil, "\(text)")
        }
    }

    @Test func objectsAreFoundByIdentifierInAnyContext() throws {
        try TemporaryStore.with(GradeBookModel.model) { store, _ in
            let first = store.newContext()
            let quiz = Quiz(in: first, id: UUID(), name: "algebra")
            let unsaved = quiz.objectID
            #expect(try first.existingObject(with: unsaved) === quiz, "a temporary identifier resolves in its context")
            #expect(store.newContext().object(with: unsaved) == nil, "and nowhere else")
            try first.save()
            let second = store.newContext()
            let copy = try second.existingObject(with: quiz.objectID, as: Quiz.self)
            #expect(copy !== quiz && copy.name == "algebra")
            #expect(try second.existingObject(with: quiz.objectID) === copy, "one object per row per context")
            #expect(second.object(with: quiz.objectID, as: Student.self) == nil)
            let notAStudent = #expect(throws: DatabaseError.self) {
                try second.existingObject(with: quiz.objectID, as: Student.self)
            }
            #expect(notAStudent?.code == .wrongType)
            let noEntity = #expect(throws: DatabaseError.self) {
                try second.existingObject(with: ObjectID(entityID: 99, rowID: 1))
            }
            #expect(noEntity?.code == .misuse)
            // An identifier of another entity's row number: not this quiz.
            #expect(
                second.object(
                    with: ObjectID(
                        entityID: try #require(store.model.entities.first { $0.name == "Student" }).entityID,
                        rowID: quiz.objectID.rowID)) == nil)
        }
    }
}

/// The store's stream of saves and a context's notifications of its objects' changes.
@Suite struct ChangeNotificationTests {
    @Test(.timeLimit(.minutes(20)), arguments: Backend.allCases) func theStoreTellsOfEverySave(_ backend: Backend)
        async throws
    {
        try await TemporaryStore.with(GradeBookModel.model, on: backend) { store in
            var changes = store.changes.makeAsyncIterator()
            let context = store.newContext()
            let ada = ObservedResultsTests.student("ada", "lovelace", in: context)
            let alan = ObservedResultsTests.student("alan", "turing", in: context)
            try await context.save()
            let first = try #require(await changes.next())
            #expect(Set(first.inserted) == [ada.objectID, alan.objectID])
            #expect(first.updated.isEmpty && first.deleted.isEmpty && first.isComplete && first.isLocal)
            #expect(store.entity(first.inserted[0].entityID)?.name == "Student")
            ada.first_name = "augusta"
            context.delete(alan)
            let deleted = alan.objectID
            try await context.save()
            let second = try #require(await changes.next())
            #expect(second.updated == [ada.objectID] && second.deleted == [deleted] && second.inserted.isEmpty)
            // A save that changes nothing is no save.
            try await context.save()
            let other = store.newContext()
            _ = ObservedResultsTests.student("grace", "hopper", in: other)
            try await other.save()
            let third = try #require(await changes.next())
            #expect(third.inserted.count == 1)
        }
    }

    @Test func aContextReportsItsSavesMergesAndRollbacks() throws {
        try TemporaryStore.with(GradeBookModel.model) { store, _ in
            let context = store.newContext()
            var reports: [ObjectsDidChange] = []
            let handle = context.observeObjects { reports.append($0) }
            let ada = ObservedResultsTests.student("ada", "lovelace", in: context)
            let alan = ObservedResultsTests.student("alan", "turing", in: context)
            try context.save()
            #expect(reports.count == 1 && reports[0].reason == .saved)
            #expect(reports[0].inserted.map(ObjectIdentifier.init) == [ada, alan].map(ObjectIdentifier.init))
            ada.first_name = "augusta"
            try context.save()
            #expect(reports.count == 2 && reports[1].updated.first === ada && reports[1].inserted.isEmpty)
            // Another context's save, merged: the object read again, the deleted one gone.
            let other = store.newContext()
            try other.existingObject(with: alan.objectID, as: Student.self).last_name = "mathison"
            try other.save()
            context.mergeChangesFromStore()
            #expect(reports.count == 3 && reports[2].reason == .merged && reports[2].updated.first === alan)
            other.delete(try other.existingObject(with: ada.objectID))
            try other.save()
            context.mergeChangesFromStore()
            #expect(reports.count == 4 && reports[3].deleted.first === ada)
            alan.first_name = "al"
            context.rollback()
            #expect(reports.count == 5 && reports[4].reason == .rolledBack && reports[4].updated.first === alan)
            #expect(alan.first_name == "alan")
            handle.cancel()
            _ = ObservedResultsTests.student("bea", "curie", in: context)
            try context.save()
            #expect(reports.count == 5, "nothing after cancel")
        }
    }
}

/// A merge that does not know which objects changed (another process saved to the file) reads
/// again only the rows whose version moved, and lets go of the rows that are gone.
@Suite struct UnlistedChangeMergeTests {
    @Test func onlyChangedRowsAreReadAgain() throws {
        guard let (location, cleanup) = try TemporaryStore.make(.sqlite) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model)
        let context = store.newContext()
        var students: [Student] = []
        for index in 0..<600 { students.append(ObservedResultsTests.student("s\(index)", "l", in: context)) }
        try context.save()
        var reports: [ObjectsDidChange] = []
        let handle = context.observeObjects { reports.append($0) }
        defer { handle.cancel() }
        // Another store on the file stands for another process: its saves are noticed, not listed.
        let elsewhere = try location.open(GradeBookModel.model).newContext()
        let changed = [3, 300, 599]
        let deleted = [0, 257, 598]
        for index in changed {
            try elsewhere.existingObject(with: students[index].objectID, as: Student.self).first_name =
                "changed \(index)"
        }
        for index in deleted { elsewhere.delete(try elsewhere.existingObject(with: students[index].objectID)) }
        try elsewhere.save()
        context.mergeChangesFromStore()
        let report = try #require(reports.last)
        #expect(report.reason == .merged && !report.isComplete)
        #expect(Set(report.updated.map(ObjectIdentifier.init)) == Set(changed.map { ObjectIdentifier(students[$0]) }))
        #expect(Set(report.deleted.map(ObjectIdentifier.init)) == Set(deleted.map { ObjectIdentifier(students[$0]) }))
        for index in changed { #expect(students[index].first_name == "changed \(index)") }
        for index in deleted { #expect(students[index].context == nil) }
        #expect(students[1].first_name == "s1" && students[1].context === context)
        #expect(try context.count(FetchRequest<Student>()) == 597)
    }
}

/// How observed results are kept: objects the saves name are placed again without fetching the
/// request again, whatever the result's size.
@Suite struct ResultsTrackerTests {
    @Test func savesOfListedObjectsArePlacedNotFetchedAgain() throws {
        try TemporaryStore.with(GradeBookModel.model) { store, _ in
            let writer = store.newContext()
            var students: [Student] = []
            for index in 0..<2_000 {
                students.append(ObservedResultsTests.student("s\(index % 97)", "l\(index % 13)", in: writer))
            }
            try writer.save()
            let tracker = ResultsTracker(
                context: store.newContext(),
                request: FetchRequest<Student>(sortDescriptors: [ObjectSortDescriptor(\Student.first_name)]),
                sectionSlot: nil)
            _ = try tracker.start()
            #expect(tracker.objects.count == 2_000)
            for index in 0..<200 {
                students[(index * 7) % students.count].first_name = "t\(index)"
                try writer.save()
                let changes = try #require(try tracker.update(), "save \(index) changed the results")
                #expect(changes.updated.count == 1)
            }
            #expect(tracker.placingUpdates == 200 && tracker.refetchingUpdates == 0)
            let expected = try store.newContext().fetch(
                FetchRequest<Student>(sortDescriptors: [ObjectSortDescriptor(\Student.first_name)]))
            #expect(tracker.objects.map(\.objectID) == expected.map(\.objectID))
        }
    }
}
