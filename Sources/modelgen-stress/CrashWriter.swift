import Foundation
import GeneratedModels
import ModelGenRuntime

/// Saves in a loop until killed. Save `n` inserts quiz `n` with its grades, renames quiz `n - 1`
/// ("sealed"), deletes quiz `n - 3` (its grades go by the Cascade rule) and sets the counter
/// grade's points to `n`: inserts, updates and deletes in every transaction.
struct CrashWriter {
    var path: String

    func run() throws {
        let store = try openStore(path)
        try Ledger.prepare(store)
        while true {
            let context = store.newContext()
            guard let counter = try Grade.find(id: Ledger.counterGrade, in: context),
                let student = try Student.find(id: Ledger.writerStudent, in: context)
            else { throw DatabaseError(.missingObject, "the counter grade is gone") }
            let number = Int(counter.points) + 1
            let quiz = Quiz(in: context, id: Ledger.quizID(save: number), name: "save \(number)")
            for item in 0..<Ledger.grades(inSave: number) {
                let grade = Grade(in: context, id: Ledger.gradeID(save: number, item: item))
                grade.points = Int32(item)
                grade.quiz = quiz
                grade.student = student
            }
            if number > 1, let previous = try Quiz.find(id: Ledger.quizID(save: number - 1), in: context) {
                previous.name = "save \(number - 1) sealed"
            }
            if number > 3, let old = try Quiz.find(id: Ledger.quizID(save: number - 3), in: context) {
                context.delete(old)
            }
            counter.points = Int32(number)
            emit("begin \(number)")
            try context.save()
            emit("done \(number)")
        }
    }
}
