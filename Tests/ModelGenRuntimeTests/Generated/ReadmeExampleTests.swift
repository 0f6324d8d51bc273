import Foundation
import GeneratedModels
import ModelGenRuntime
import Testing

/// The example of README.md ("Using the generated code"), as written there.
@Suite struct ReadmeExampleTests {
    @Test func theReadmeExampleRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("grades.sqlite").path

        let store = try PersistentStore(path: path, model: GradeBookModel.model)
        let context = store.newContext()
        let student = Student(in: context, first_name: "Ada", id: UUID(), last_name: "Lovelace")
        let quiz = Quiz(in: context, id: UUID(), name: "Quiz 1")
        let grade = Grade(in: context, id: UUID())
        grade.quiz = quiz
        grade.student = student  // student.grades now contains grade
        try await context.save()  // one transaction; validation, deletion rules, uniqueness
        let smiths = try Student.fetch(
            in: context, where: \.last_name == "Smith", sortedBy: [ObjectSortDescriptor(\.first_name)])
        let same = try Grade.fetch(in: context, where: try ObjectPredicate(format: "student.id == %@", student.id))
        try await store.perform { background in _ = try Student.count(in: background) }

        #expect(student.grades == [grade])
        #expect(smiths.isEmpty)
        #expect(same.map(ObjectIdentifier.init) == [ObjectIdentifier(grade)])
    }

    /// README.md's "Lists that follow the data" example, as written there (the hook's conformance
    /// aside: it would change `Student` for every test).
    @Test(.timeLimit(.minutes(20))) func theObservationExampleRuns() async throws {
        try await TemporaryStore.with(GradeBookModel.model) { store in
            let context = store.newContext()
            let student = Student(in: context, first_name: "Ada", id: UUID(), last_name: "Lovelace")
            try await context.save()
            let observation = ResultsObservation(Student.fetchRequest(), sectionedBy: \.last_name)
            var shown: [String] = []
            for try await results in observation.values(in: context) {
                shown = results.sections.map(\.name)
                #expect(results.changes.insertedSections == [0])
                break
            }
            #expect(shown == ["Lovelace"])
            var changes = store.changes.makeAsyncIterator()
            let other = store.newContext()
            let text = student.objectID.stringValue
            let same = try other.existingObject(with: try #require(ObjectID(stringValue: text)), as: Student.self)
            same.first_name = "Augusta"
            try await other.save()
            #expect(await changes.next()?.updated.map(\.stringValue) == [text])
            let form = context.newChildContext()
            #expect(form.parent === context)
        }
    }
}
