import Foundation
import TestSupport
import Testing

/// Several processes (two on a SQLite file, four on PostgreSQL), each with several threads and
/// one context per thread, increment one shared counter row and add rows of their own on one store. Every increment is a
/// read-modify-write: optimistic locking on `_version` must turn each race into a conflict the
/// thread retries (merge policy `.error`), so no update is lost; a busy database must be waited
/// for, never escape. `MODELGEN_CONCURRENCY_OPS` sets the saves per thread (default 100),
/// `MODELGEN_CONCURRENCY_THREADS` the threads per process (default 3).
@Suite(.serialized) struct ConcurrencyTests {
    @Test(arguments: Backend.allCases) func severalProcessesWithSeveralThreadsLoseNoUpdate(_ backend: Backend) throws {
        let operations = StressTool.setting("MODELGEN_CONCURRENCY_OPS", 100)
        let threads = StressTool.setting("MODELGEN_CONCURRENCY_THREADS", 3)
        let writers = Array(1...(backend == .sqlite ? 2 : 4))
        guard let (store, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        do {
            let arguments = [
                "--store", store.argument, "--threads", String(threads), "--operations", String(operations),
            ]
            let children = try writers.map { try StressTool.start(["hammer", "--writer", String($0)] + arguments) }
            var conflicts = 0
            for (writer, child) in zip(writers, children) {
                let result = child.finish()
                #expect(result.status == 0, "writer \(writer) exited with \(result.status): \(result.stderr)")
                let report = try StressTool.json(result.stdout)
                #expect(report["errors"] as? [String] == [], "writer \(writer): \(report["errors"] ?? "")")
                #expect(report["completed"] as? Int == threads * operations)
                conflicts += report["conflicts"] as? Int ?? 0
            }
            let total = writers.count * threads * operations
            // The counter grade is the first row written; every thread's grades are all there.
            #expect(
                try TemporaryStore.rows(store, "SELECT \"points\" FROM \"grade\" ORDER BY \"_pk\" LIMIT 1") == [
                    [String(total)]
                ])
            #expect(try TemporaryStore.rows(store, "SELECT count(*) FROM \"grade\"") == [[String(total + 1)]])
            let perStudent = try TemporaryStore.rows(
                store,
                "SELECT count(g.\"_pk\"), count(DISTINCT g.\"points\") FROM \"student\" s LEFT JOIN \"grade\" g ON g.\"student_pk\" = s.\"_pk\" GROUP BY s.\"_pk\" ORDER BY s.\"_pk\""
            )
            #expect(perStudent.count == 1 + writers.count * threads)
            #expect(
                perStudent.dropFirst().allSatisfy { $0 == [String(operations), String(operations)] }, "\(perStudent)")
            if backend == .sqlite { #expect(try TemporaryStore.rows(store, "PRAGMA integrity_check") == [["ok"]]) }
            print(
                "concurrency (\(backend.rawValue)): \(writers.count) processes × \(threads) threads × \(operations) saves, \(conflicts) conflicts retried"
            )
        }
    }
}
