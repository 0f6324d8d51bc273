import Foundation
import GeneratedModels
import TestSupport
import Testing

@testable import ModelGenRuntime

/// A server that closes sessions (a restart, a failover, `pg_terminate_backend`) between any two
/// steps of a realistic request: no step stops the program, every error is retryable
/// (`.connectionLost`), a retried request completes, and the store holds each save whole or not
/// at all.
@Suite(.serialized) struct PostgresReconnectTests {
    /// One quiz and one student with three grades of 10 points.
    static func seed(_ store: PersistentStore) throws -> (student: UUID, quiz: UUID) {
        let context = store.newContext()
        let quiz = Quiz(in: context, id: UUID(), name: "Quiz")
        let student = Student(in: context, first_name: "Ada", id: UUID(), last_name: "Lovelace")
        for _ in 0..<3 {
            let grade = Grade(in: context, id: UUID())
            grade.points = 10
            grade.quiz = quiz
            grade.student = student
        }
        try context.save()
        return (student.id, quiz.id)
    }

    /// The request's steps: look the student up, read their grades and a grade's quiz (getters,
    /// which load from the store), count, change a grade and add one, save. `interrupt(step)`
    /// runs before each step.
    static func request(
        _ store: PersistentStore, _ ids: (student: UUID, quiz: UUID), interrupt: (Int) throws -> Void
    ) throws {
        try interrupt(0)
        let context = store.newContext()
        let student = try #require(try Student.find(id: ids.student, in: context))
        try interrupt(1)
        let grades = Array(student.gradesArray)
        try interrupt(2)
        let quiz = try #require(grades.first?.quiz)
        try interrupt(3)
        let count = try Grade.count(in: context)
        #expect(count >= 3)
        try interrupt(4)
        grades[0].points += 1
        let added = Grade(in: context, id: UUID())
        added.points = 1
        added.quiz = quiz
        try interrupt(5)
        added.student = student
        try interrupt(6)
        try context.save()
    }

    static let steps = 7

    /// The grades as the server holds them: how many, and their points' sum.
    static func stored(_ cluster: PostgresCluster, _ schema: String) throws -> (count: Int, points: Int) {
        let row = try cluster.rows("SELECT count(*), coalesce(sum(points), 0) FROM \"grade\";", schema: schema)
        return (Int(row.first?[0] ?? "") ?? -1, Int(row.first?[1] ?? "") ?? -1)
    }

    /// Runs `request` until it completes, at most `tries` times a quarter of a second apart (as
    /// a server retries a request); every failure must be retryable.
    static func untilDone(_ tries: Int, _ body: () throws -> Void) throws -> Int {
        for attempt in 1...tries {
            do {
                try body()
                return attempt
            } catch let error as DatabaseError {
                #expect(error.code == .connectionLost, "not retryable: \(error)")
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        Issue.record("the request did not complete in \(tries) tries")
        return tries
    }

    @Test func sessionsEndedBeforeAnyStepCostARetryAtMostAndNothingHalfWritten() throws {
        let application = "reconnect_\(UUID().uuidString.prefix(8))"
        try PostgresStoreTests.withSchema(application: application) { cluster, schema, connectionString in
            let store = try PersistentStore(postgres: connectionString, model: GradeBookModel.model)
            let ids = try Self.seed(store)
            var expected = (count: 3, points: 30)
            for killed in 0..<Self.steps {
                var ended = false
                let attempts = try Self.untilDone(3) {
                    let before = try Self.stored(cluster, schema)
                    do {
                        try Self.request(store, ids) { step in
                            guard step == killed, !ended else { return }
                            ended = true
                            // Every session of the store: the pool's and the change feed's.
                            try cluster.psql(
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(application)';"
                            )
                        }
                    } catch {
                        // A failed request stored nothing.
                        let after = try Self.stored(cluster, schema)
                        #expect(after == before, "a failed save left \(after), had \(before)")
                        throw error
                    }
                }
                expected = (expected.count + 1, expected.points + 2)
                let now = try Self.stored(cluster, schema)
                #expect(now == expected, "sessions ended before step \(killed)")
                // Reads and a save's first statement go to a new session by themselves.
                #expect(attempts == 1, "sessions ended before step \(killed)")
            }
        }
    }

    /// The server stops and starts again while a request runs: a getter waits for it, a call that
    /// throws throws `.connectionLost`, and a retried request completes.
    @Test func aServerRestartedMidRequestStopsNothing() throws {
        guard PostgresCluster.shared() != nil else { return }
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let (schema, connectionString) = try cluster.freshSchema("restart")
        let store = try PersistentStore(postgres: connectionString, model: GradeBookModel.model)
        let ids = try Self.seed(store)
        for stopped in 0..<Self.steps {
            var restarted = false
            let attempts = try Self.untilDone(20) {
                try Self.request(store, ids) { step in
                    guard step == stopped, !restarted else { return }
                    restarted = true
                    try cluster.stopServer()
                    // Back after a second, as a restart or failover would be.
                    let starter = Thread {
                        Thread.sleep(forTimeInterval: 1)
                        try? cluster.startServer()
                    }
                    starter.start()
                }
            }
            #expect(attempts <= 20)
            // Wait until the server is surely back before the next round.
            var tries = 0
            while (try? cluster.psql("SELECT 1;"))?.status != 0 && tries < 100 {
                Thread.sleep(forTimeInterval: 0.1)
                tries += 1
            }
        }
        let final = try Self.stored(cluster, schema)
        #expect(final == (3 + Self.steps, 30 + 2 * Self.steps))
        // The store works on as before.
        let context = store.newContext()
        let student = try #require(try Student.find(id: ids.student, in: context))
        try student.loadRelationships()
        #expect(student.grades.count == 3 + Self.steps)
    }

    /// `loadRelationships()` is the getters' read as a call that throws: while the server is
    /// down it throws `.connectionLost` instead of waiting, and afterwards the getters need no
    /// database.
    @Test func loadingRelationshipsThrowsWhereAGetterCannot() throws {
        guard PostgresCluster.shared() != nil else { return }
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let (_, connectionString) = try cluster.freshSchema("load")
        let store = try PersistentStore(postgres: connectionString, model: GradeBookModel.model)
        let ids = try Self.seed(store)
        let context = store.newContext()
        let student = try #require(try Student.find(id: ids.student, in: context))
        try cluster.stopServer()
        let error = try #require(throws: DatabaseError.self) { try student.loadRelationships() }
        #expect(error.code == .connectionLost, "\(error)")
        try cluster.startServer()
        try student.loadRelationships()
        try cluster.stopServer()
        // Loaded: no database needed.
        #expect(student.grades.count == 3)
        try cluster.startServer()
    }
}
