import Foundation
import GeneratedModels
@_spi(Generated) @_spi(Database) import ModelGenRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The child process of the bounded-memory test: a GradeBook store of many grades, made with
/// plain SQL (`seed`), then walked through the runtime (`walk`) — in batches, or materialized as
/// one array — printing what it read and the process's peak resident memory.
enum Walker {
    /// Inserts one student, one quiz and `count` grades (points `n % 100`) into a new store.
    static func seed(path: String, count: Int) throws -> String {
        let store = try PersistentStore(path: path, model: GradeBookModel.model)
        let context = store.newContext()
        let student = Student(in: context, first_name: "Walk", id: UUID(), last_name: "Er")
        let quiz = Quiz(in: context, id: UUID(), name: "walk")
        try context.save()
        let connection = try Connection(path: path)
        try connection.execute("BEGIN")
        try connection.execute(
            """
            WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x + 1 < \(count))
            INSERT INTO "grade" ("_entity", "id", "points", "quiz_pk", "student_pk")
            SELECT \(Grade.entityDescription.entityID), randomblob(16), x % 100, \(quiz.objectID.rowID),
                \(student.objectID.rowID) FROM n
            """)
        try connection.execute("COMMIT")
        return #"{"seeded": \#(count)}"#
    }

    /// Reads every grade and sums their points: through `fetchBatched` (and drops nothing it
    /// read until the end), or through one `fetchAll` array kept to the end.
    static func walk(path: String, batchSize: Int?) throws -> String {
        let store = try PersistentStore(path: path, model: GradeBookModel.model)
        let context = store.newContext()
        var count = 0
        var sum = 0
        var last: Grade?
        if let batchSize {
            let results = try context.fetchBatched(FetchRequest<Grade>(), batchSize: batchSize)
            for grade in results {
                count += 1
                sum += Int(grade.points)
                last = grade
            }
            if let error = results.lastError { throw error }
        } else {
            let grades = try context.fetchAll(Grade.self)
            for grade in grades {
                count += 1
                sum += Int(grade.points)
            }
            last = grades.last
        }
        let lastPoints = last.map { Int($0.points) } ?? -1
        return #"{"count": \#(count), "sum": \#(sum), "last": \#(lastPoints), "maxRSSKB": \#(peakResidentKB())}"#
    }

    /// The process's peak resident memory in KB: `VmHWM` of `/proc/self/status`, which counts
    /// this program only. `getrusage`'s `ru_maxrss` is the fallback: on Linux it keeps, across
    /// `exec`, the peak of the process that spawned this one (a test runner's, often larger).
    static func peakResidentKB() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        {
            return kilobytes
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
