import Foundation
import GeneratedModels
import Synchronization
import Testing

@testable import ModelGenRuntime

/// `PersistentStore.trace` on the generated classes of `Models/GradeBook`: every statement is
/// reported once, with its SQL as prepared (never the bound values) and a duration; a fetch is one
/// query, loading a to-many is one query per object (what prefetching is to remove), a save is its
/// transaction; setting `nil` stops the reports.
@Suite struct SQLTraceTests {
    /// The events reported so far.
    final class Recorder: Sendable {
        private let events = Mutex<[SQLTraceEvent]>([])
        func record(_ event: SQLTraceEvent) { events.withLock { $0.append(event) } }
        var all: [SQLTraceEvent] { events.withLock { $0 } }
        func take() -> [SQLTraceEvent] {
            events.withLock { events in
                defer { events = [] }
                return events
            }
        }
    }

    static func isQuery(_ event: SQLTraceEvent) -> Bool { event.sql.uppercased().hasPrefix("SELECT") }

    @Test(arguments: Backend.allCases) func everyStatementIsReportedOnceWithoutItsValues(_ backend: Backend) throws {
        try TemporaryStore.with(GradeBookModel.model, on: backend) { store, _ in
            let recorder = Recorder()
            store.trace = { recorder.record($0) }
            #expect(store.trace != nil)
            let context = store.newContext()
            let quiz = Quiz(in: context, id: UUID(), name: "Quiz 1")
            var students: [Student] = []
            for index in 0..<5 {
                let student = Student(in: context, first_name: "First\(index)", id: UUID(), last_name: "Secret\(index)")
                students.append(student)
                for points in 0..<3 {
                    let grade = Grade(in: context, id: UUID())
                    grade.points = Int32(index * 10 + points)
                    grade.quiz = quiz
                    grade.student = student
                }
            }
            try context.save()
            let save = recorder.take()
            // 1 quiz + 5 students + 15 grades written; their values are bound, not in the SQL.
            let writes = save.filter { $0.sql.uppercased().hasPrefix("INSERT") }
            #expect(writes.count == 21, "\(save.map(\.sql))")
            #expect(!save.contains { $0.sql.contains("Secret") || $0.sql.contains("Quiz 1") })
            #expect(save.contains { $0.sql.uppercased().hasPrefix("COMMIT") })
            #expect(save.allSatisfy { $0.duration >= .zero })

            // A fetch is one query whatever its size; its argument is bound.
            let fresh = store.newContext()
            let fetched = try Student.fetch(
                in: fresh, where: \Student.last_name != "Secret4", sortedBy: [ObjectSortDescriptor(\.last_name)])
            #expect(fetched.count == 4)
            let fetch = recorder.take()
            #expect(fetch.filter(Self.isQuery).count == 1, "\(fetch.map(\.sql))")
            #expect(fetch.contains { $0.sql.contains("student") && ($0.sql.contains("?") || $0.sql.contains("$1")) })
            #expect(!fetch.contains { $0.sql.contains("Secret4") })

            // Each student's grades are read when first used: one query per student.
            let total = fetched.reduce(0) { $0 + $1.grades.count }
            #expect(total == 12)
            #expect(recorder.take().filter(Self.isQuery).count == 4)

            // A count is one query; nothing is reported once the trace is removed.
            #expect(try Grade.count(in: fresh, where: \Grade.points >= 20) == 9)
            #expect(recorder.take().filter(Self.isQuery).count == 1)
            store.trace = nil
            #expect(store.trace == nil)
            _ = try Grade.fetch(in: store.newContext())
            students[0].first_name = "Changed"
            try context.save()
            #expect(recorder.all.isEmpty)
        }
    }
}
