import Foundation
import GeneratedModels
import ModelGenRuntime

/// The fixed objects both tools share, and stable identifiers for the rows they write.
enum Ledger {
    /// The one student every grade of the crash writer belongs to.
    static let writerStudent = stableID(0, 1)
    /// The quiz holding the counter grade.
    static let counterQuiz = stableID(0, 2)
    /// The grade whose `points` count the completed saves (crash writer) or increments (hammer).
    static let counterGrade = stableID(0, 3)

    /// A UUID made of two numbers, so a row written by save `a` can be found again.
    static func stableID(_ a: UInt32, _ b: UInt32) -> UUID {
        let a = a.bigEndian
        let b = b.bigEndian
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: a) { bytes.replaceSubrange(4..<8, with: $0) }
        withUnsafeBytes(of: b) { bytes.replaceSubrange(12..<16, with: $0) }
        bytes[6] = 0x40 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The quiz written by save `number` of the crash writer.
    static func quizID(save number: Int) -> UUID { stableID(UInt32(number), 0) }

    /// Grade `item` of save `number`.
    static func gradeID(save number: Int, item: Int) -> UUID { stableID(UInt32(number), UInt32(item + 1)) }

    /// How many grades save `number` writes (1 to 4, so saves differ in size).
    static func grades(inSave number: Int) -> Int { 1 + number % 4 }

    /// Inserts the writer student, the counter quiz and the counter grade in one save, unless
    /// they are there. Another process doing the same at the same time makes this save fail on
    /// the unique ids; the objects are then there.
    static func prepare(_ store: PersistentStore) throws {
        let context = store.newContext()
        guard try Grade.find(id: counterGrade, in: context) == nil else { return }
        let student = Student(in: context, first_name: "Writer", id: writerStudent, last_name: "Process")
        let quiz = Quiz(in: context, id: counterQuiz, name: "counter")
        let grade = Grade(in: context, id: counterGrade)
        grade.quiz = quiz
        grade.student = student
        do {
            try context.save()
        } catch let error as DatabaseError {
            guard error.code == .uniqueness, try Grade.find(id: counterGrade, in: store.newContext()) != nil else {
                throw error
            }
        }
    }
}

/// Writes one line to standard output at once, unbuffered (a kill may follow at any moment).
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
