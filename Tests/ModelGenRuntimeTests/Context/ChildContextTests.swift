import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// Scratch contexts: a child's save goes into its parent, not the store; dropping the child
/// drops its changes; the child sees the parent's unsaved state.
@Suite struct ChildContextTests {
    /// Every student's (first, last) name as the store holds them, read without the runtime's contexts.
    static func stored(_ location: TemporaryStore.Location) throws -> [[String]] {
        try TemporaryStore.rows(location, #"SELECT "first_name", "last_name" FROM "student" ORDER BY "first_name""#)
    }

    @Test(arguments: Backend.allCases) func anEditingFormIsCancelledOrSavedIntoItsParent(_ backend: Backend) throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model)
        let main = store.newContext()
        let ada = ObservedResultsTests.student("ada", "lovelace", in: main)
        try main.save()

        // Cancelled: the child goes away, nothing happened.
        do {
            let form = main.newChildContext()
            let draft = try form.existingObject(with: ada.objectID, as: Student.self)
            #expect(draft !== ada && draft.context === form && form.parent === main)
            draft.first_name = "augusta"
            #expect(form.hasChanges && !main.hasChanges)
        }
        #expect(ada.first_name == "ada" && !main.hasChanges)

        // Saved: into the parent only, then to the store with the parent.
        let form = main.newChildContext()
        let draft = try form.existingObject(with: ada.objectID, as: Student.self)
        draft.first_name = "augusta"
        let grace = ObservedResultsTests.student("grace", "hopper", in: form)
        let quiz = Quiz(in: form, id: UUID(), name: "algebra")
        let grade = Grade(in: form, id: UUID())
        grade.points = 9
        grade.student = draft
        grade.quiz = quiz
        try form.save()
        #expect(!form.hasChanges && main.hasChanges)
        #expect(ada.first_name == "augusta", "the parent's object has the child's change")
        #expect(try Self.stored(location) == [["ada", "lovelace"]], "nothing reached the store")
        let names = try main.fetch(FetchRequest<Student>(sortDescriptors: [ObjectSortDescriptor(\Student.first_name)]))
            .map(\.first_name)
        #expect(names == ["augusta", "grace"])
        try main.save()
        #expect(try Self.stored(location) == [["augusta", "lovelace"], ["grace", "hopper"]])
        let fresh = store.newContext()
        let stored = try #require(try fresh.existingObject(with: ada.objectID, as: Student.self).grades.first)
        #expect(stored.points == 9 && stored.quiz?.name == "algebra", "relationships made in the child were saved")
        _ = grace

        // A deletion in a child, pushed, then saved.
        let second = main.newChildContext()
        second.delete(try second.existingObject(with: ada.objectID))
        try second.save()
        #expect(ada.context === main && main.hasChanges)
        try main.save()
        #expect(try Self.stored(location) == [["grace", "hopper"]])
        #expect(try fresh.count(FetchRequest<Grade>()) == 0, "the cascade ran at the parent's save")
    }

    @Test func aChildSeesItsParentsUnsavedState() throws {
        try TemporaryStore.with(GradeBookModel.model) { store, _ in
            let main = store.newContext()
            let ada = ObservedResultsTests.student("ada", "lovelace", in: main)
            let alan = ObservedResultsTests.student("alan", "turing", in: main)
            try main.save()
            ada.first_name = "augusta"  // unsaved
            main.delete(alan)  // unsaved
            let bea = ObservedResultsTests.student("bea", "curie", in: main)  // unsaved
            let child = main.newChildContext()
            let request = FetchRequest<Student>(sortDescriptors: [ObjectSortDescriptor(\Student.first_name)])
            #expect(try child.fetch(request).map(\.first_name) == ["augusta", "bea"])
            #expect(try child.count(FetchRequest<Student>(predicate: \Student.first_name < "b")) == 1)
            let beaHere = try child.existingObject(with: bea.objectID, as: Student.self)
            #expect(beaHere.first_name == "bea" && beaHere !== bea)
            // The child's own changes on top.
            beaHere.first_name = "zoe"
            _ = ObservedResultsTests.student("cleo", "patra", in: child)
            #expect(try child.fetch(request).map(\.first_name) == ["augusta", "cleo", "zoe"])
            try child.save()
            #expect(bea.first_name == "zoe", "an unsaved object of the parent changed through the child")
            #expect(try main.fetch(request).map(\.first_name) == ["augusta", "cleo", "zoe"])
            // The same child again: its pushed new object is now an update of the parent's.
            let cleo = try #require(
                try child.fetch(FetchRequest<Student>(predicate: \Student.first_name == "cleo")).first)
            cleo.last_name = "cleopatra"
            try child.save()
            #expect(
                try main.fetch(FetchRequest<Student>(predicate: \Student.first_name == "cleo")).map(\.last_name) == [
                    "cleopatra"
                ])
            #expect(try main.fetch(request).count == 3, "not inserted twice")
            try main.save()
            #expect(try store.newContext().fetch(request).map(\.first_name) == ["augusta", "cleo", "zoe"])
        }
    }

    @Test func aChildsSaveReachesItsParentsObservedResults() throws {
        try TemporaryStore.with(GradeBookModel.model) { store, _ in
            let queue = DispatchQueue(label: "main")
            nonisolated(unsafe) var deliveries: [[String]] = []
            try queue.sync {
                let main = store.newContext()
                _ = ObservedResultsTests.student("ada", "lovelace", in: main)
                try main.save()
                let handle = try ResultsObservation(
                    FetchRequest<Student>(sortDescriptors: [ObjectSortDescriptor(\Student.first_name)])
                )
                .start(in: main, on: queue) { results in deliveries.append(results.objects.map(\.first_name)) }
                let form = main.newChildContext()
                _ = ObservedResultsTests.student("bea", "curie", in: form)
                try form.save()
                queue.async { handle.cancel() }
            }
            queue.sync {}
            #expect(
                deliveries == [["ada"], ["ada", "bea"]],
                "the child's save, unsaved in the parent, is in the parent's results")
        }
    }
}
