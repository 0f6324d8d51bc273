import Foundation
import GeneratedModels
@_spi(Database) import ModelGenRuntime

/// Checks a store the crash writer was killed on: SQLite's own checks, then that it holds
/// exactly saves 1…n for the n its counter records — every row, rename and delete of each, and
/// nothing of save n + 1.
struct StoreVerifier {
    var path: String

    func report() throws -> String {
        var problems: [String] = []
        // SQLite's own checks (PostgreSQL checks its keys at every commit).
        if !path.hasPrefix(postgresPrefix) {
            let connection = try Connection(path: path)
            let integrity = try Self.strings("PRAGMA integrity_check", connection)
            if integrity != ["ok"] { problems.append("integrity_check: \(integrity.joined(separator: "; "))") }
            let foreignKeys = try Self.strings("PRAGMA foreign_key_check", connection)
            if !foreignKeys.isEmpty { problems.append("foreign_key_check: \(foreignKeys.count) rows") }
            connection.close()
        }

        let store = try openStore(path)
        let context = store.newContext()
        let counter = try Grade.find(id: Ledger.counterGrade, in: context)
        let saves = Int(counter?.points ?? 0)
        var expectedQuizzes: [UUID: String] = [:]
        var expectedGrades: [UUID: (quiz: UUID, points: Int32)] = [:]
        if let counter {
            expectedQuizzes[Ledger.counterQuiz] = "counter"
            expectedGrades[counter.id] = (Ledger.counterQuiz, Int32(saves))
            for number in max(1, saves - 2)...max(1, saves) where saves > 0 {
                expectedQuizzes[Ledger.quizID(save: number)] =
                    number < saves ? "save \(number) sealed" : "save \(number)"
                for item in 0..<Ledger.grades(inSave: number) {
                    expectedGrades[Ledger.gradeID(save: number, item: item)] = (
                        Ledger.quizID(save: number), Int32(item)
                    )
                }
            }
        }
        let quizzes = try Quiz.fetch(in: context)
        let actualQuizzes = Dictionary(quizzes.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        if actualQuizzes != expectedQuizzes {
            problems.append("quizzes \(Self.describe(actualQuizzes)) expected \(Self.describe(expectedQuizzes))")
        }
        let grades = try Grade.fetch(in: context)
        if grades.count != expectedGrades.count {
            problems.append("\(grades.count) grades, expected \(expectedGrades.count)")
        }
        for grade in grades {
            guard let expected = expectedGrades[grade.id] else {
                problems.append("unexpected grade \(grade.id)")
                continue
            }
            if grade.quiz?.id != expected.quiz || grade.points != expected.points
                || grade.student?.id != Ledger.writerStudent
            {
                problems.append("grade \(grade.id): quiz \(grade.quiz?.id.uuidString ?? "nil"), points \(grade.points)")
            }
        }
        let students = try Student.count(in: context)
        if students != (counter == nil ? 0 : 1) { problems.append("\(students) students") }
        let object: [String: Any] = ["saves": saves, "problems": problems]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func strings(_ sql: String, _ connection: Connection) throws -> [String] {
        let statement = try connection.makeStatement(sql)
        var rows: [String] = []
        while try statement.step() { rows.append(statement.string(0)) }
        return rows
    }

    private static func describe(_ quizzes: [UUID: String]) -> String {
        "[" + quizzes.values.sorted().joined(separator: ", ") + "]"
    }
}
