import Foundation
import GeneratedModels
import Testing

import ModelGenRuntime

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
        try context.save()  // one transaction; validation, deletion rules, uniqueness
        let smiths = try Student.fetch(in: context, where: \.last_name == "Smith", sortedBy: [ObjectSortDescriptor(\.first_name)])
        let same = try Grade.fetch(in: context, where: try ObjectPredicate(format: "student.id == %@", student.id))
        try await store.perform { background in _ = try Student.count(in: background) }

        #expect(student.grades == [grade])
        #expect(smiths.isEmpty)
        #expect(same.map(ObjectIdentifier.init) == [ObjectIdentifier(grade)])
    }
}
