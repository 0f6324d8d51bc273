import Foundation
import GeneratedModels
import ModelGenRuntime

/// Several threads, each with its own context on one store, each doing `operations` times: read
/// how many grades it has written (it must see all of them), then in one save increment the
/// shared counter grade and add a grade of its own. A version conflict (another thread or
/// process saved the counter first) or a busy database is retried with fresh objects, so every
/// increment lands exactly once.
struct Hammer {
    var path: String
    var writer: Int
    var threads: Int
    var operations: Int

    /// Counts shared by the threads.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var conflicts = 0
        private(set) var busy = 0
        private(set) var completed = 0
        private(set) var errors: [String] = []

        func add(conflicts: Int = 0, busy: Int = 0, completed: Int = 0, error: String? = nil) {
            lock.lock()
            defer { lock.unlock() }
            self.conflicts += conflicts
            self.busy += busy
            self.completed += completed
            if let error { errors.append(error) }
        }
    }

    func run() throws -> String {
        let store = try openStore(path)
        try Ledger.prepare(store)
        let tally = Tally()
        let (writer, operations) = (writer, operations)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                try Self.work(store, student: Ledger.stableID(UInt32(writer), UInt32(thread + 1)), operations, tally)
            } catch {
                tally.add(error: "thread \(thread): \(error)")
            }
        }
        let object: [String: Any] = [
            "writer": writer, "completed": tally.completed, "conflicts": tally.conflicts, "busy": tally.busy,
            "errors": tally.errors,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func work(_ store: PersistentStore, student id: UUID, _ operations: Int, _ tally: Tally) throws {
        while true {
            let setup = store.newContext()
            _ = Student(in: setup, first_name: "Thread", id: id, last_name: id.uuidString)
            guard let error = save(setup) else { break }
            guard isBusy(error) else { throw error }
            tally.add(busy: 1)
        }
        for operation in 0..<operations {
            while true {
                let context = store.newContext()
                guard let student = try Student.find(id: id, in: context),
                    let counter = try Grade.find(id: Ledger.counterGrade, in: context),
                    let quiz = try Quiz.find(id: Ledger.counterQuiz, in: context)
                else { throw DatabaseError(.missingObject, "the counter or the thread's student is gone") }
                let written = try Grade.count(in: context, where: \Grade.student == student)
                guard written == operation else {
                    throw DatabaseError(.misuse, "read \(written) grades of this thread after \(operation) saves")
                }
                counter.points += 1
                let grade = Grade(in: context, id: UUID())
                grade.points = Int32(operation)
                grade.quiz = quiz
                grade.student = student
                if let error = save(context) {
                    if error.code == .conflict {
                        tally.add(conflicts: 1)
                    } else if isBusy(error) {
                        tally.add(busy: 1)
                    } else {
                        throw error
                    }
                } else {
                    tally.add(completed: 1)
                    break
                }
            }
        }
    }

    /// Whether SQLite found the database locked for longer than the busy timeout.
    private static func isBusy(_ error: DatabaseError) -> Bool {
        error.code == .sqlite && (error.sqliteCode ?? 0) & 0xFF == 5
    }

    /// Saves `context`, returning the error instead of throwing it.
    private static func save(_ context: ObjectContext) -> DatabaseError? {
        do {
            try context.save()
            return nil
        } catch let error as DatabaseError {
            return error
        } catch {
            return DatabaseError(.misuse, "\(error)")
        }
    }
}
