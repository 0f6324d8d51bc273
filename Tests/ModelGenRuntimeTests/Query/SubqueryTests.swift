import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// `SUBQUERY(collection, $x, predicate).@count op n` on random stores (several seeds) of
/// `Models/GradeBook` (a one-to-many) and `Models/Library` (a many-to-many): the objects fetched
/// are those a count over each object's destinations in Swift selects, saved and with unsaved
/// changes in the context.
@Suite struct SubqueryTests {
    /// A small deterministic generator (the seed decides the store).
    struct Numbers {
        var state: UInt64
        mutating func below(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    static var gradeCases: [(String, [Any?], (Int32) -> Bool, (Int) -> Bool)] {
        [
            ("SUBQUERY(grades, $g, $g.points > 50).@count > 2", [], { $0 > 50 }, { $0 > 2 }),
            (
                "SUBQUERY(grades, $g, $g.points >= %@ AND $g.points < 90).@count == 0", [40], { $0 >= 40 && $0 < 90 },
                { $0 == 0 }
            ),
            ("NOT (SUBQUERY(grades, $g, $g.points < 10).@count >= 1)", [], { $0 < 10 }, { !($0 >= 1) }),
            (
                "SUBQUERY(grades, $x, $x.points == 100 OR $x.points == 0).@count != 1", [], { $0 == 100 || $0 == 0 },
                { $0 != 1 }
            ),
        ]
    }

    @Test(arguments: Backend.allCases, [UInt64(1), 2, 3])
    func gradesCountedBySubqueryMatchSwift(_ backend: Backend, _ seed: UInt64) throws {
        try TemporaryStore.with(GradeBookModel.model, on: backend) { store, _ in
            var numbers = Numbers(state: seed)
            let context = store.newContext()
            let quiz = Quiz(in: context, id: UUID(), name: "Quiz")
            for index in 0..<40 {
                let student = Student(in: context, first_name: "S\(index)", id: UUID(), last_name: "L")
                for _ in 0..<numbers.below(7) {
                    let grade = Grade(in: context, id: UUID())
                    grade.points = Int32(numbers.below(101))
                    grade.quiz = quiz
                    grade.student = student
                }
            }
            try context.save()
            func check(_ context: ObjectContext, _ label: String) throws {
                let students = try context.fetch(FetchRequest<Student>())
                for (format, arguments, inner, count) in Self.gradeCases {
                    let expected = Set(
                        students.filter { count($0.grades.filter { inner($0.points) }.count) }.map(\.first_name))
                    let found = try context.fetch(
                        FetchRequest(predicate: try ObjectPredicate<Student>(format: format, arguments: arguments)))
                    #expect(Set(found.map(\.first_name)) == expected, "\(label): \(format)")
                    #expect(found.count == expected.count)
                }
            }
            try check(store.newContext(), "saved")
            // Unsaved: points changed, a grade deleted, a student with new grades.
            let pending = store.newContext()
            let grades = try pending.fetch(FetchRequest<Grade>())
            for grade in grades.prefix(15) { grade.points = Int32(numbers.below(101)) }
            if let last = grades.last { pending.delete(last) }
            let newcomer = Student(in: pending, first_name: "New", id: UUID(), last_name: "L")
            let pendingQuiz = try #require(try pending.fetch(FetchRequest<Quiz>()).first)
            for points in [95, 96, 97] {
                let grade = Grade(in: pending, id: UUID())
                grade.points = Int32(points)
                grade.quiz = pendingQuiz
                grade.student = newcomer
            }
            try check(pending, "unsaved")
        }
    }

    @Test(arguments: Backend.allCases) func booksCountedThroughAJoinTableMatchSwift(_ backend: Backend) throws {
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            var numbers = Numbers(state: 7)
            let context = store.newContext()
            let authors = (0..<12).map { Author(in: context, name: "A\($0)") }
            for index in 0..<40 {
                let book = Book(in: context, title: "B\(index)")
                book.pages = Int32(numbers.below(600))
                var chosen: [Author] = []
                for _ in 0..<numbers.below(4) {
                    let author = authors[numbers.below(authors.count)]
                    if !chosen.contains(where: { $0 === author }) { chosen.append(author) }
                }
                book.authors = chosen
            }
            try context.save()
            let fresh = store.newContext()
            let all = try fresh.fetch(FetchRequest<Author>())
            for threshold in [100, 300, 500] {
                for minimum in [1, 2, 3] {
                    let found = try fresh.fetch(
                        FetchRequest(
                            predicate: try ObjectPredicate<Author>(
                                format: "SUBQUERY(books, $b, $b.pages > %@).@count >= %@", threshold, minimum)))
                    let expected = all.filter { $0.books.filter { $0.pages > threshold }.count >= minimum }
                    #expect(Set(found.map(\.name)) == Set(expected.map(\.name)), "\(threshold), \(minimum)")
                }
            }
            #expect(throws: DatabaseError.self) {
                _ = try ObjectPredicate<Author>(format: "SUBQUERY(name, $b, $b.pages > 1).@count > 0")
            }
        }
    }
}
