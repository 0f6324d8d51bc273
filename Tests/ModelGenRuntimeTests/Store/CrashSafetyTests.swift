import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A child process saves in a loop on one store file (inserts, an update, a cascading delete and
/// a counter update per save) and is killed with SIGKILL at random moments, from the first open
/// of a new file onwards. After every kill the store must open, pass SQLite's integrity and
/// foreign-key checks, and hold exactly saves 1…n: every save the child reported done, at most
/// the one it had begun, and no part of any other.
///
/// `MODELGEN_CRASH_KILLS` sets the number of kills (default 200), `MODELGEN_CRASH_SEED` the seed
/// of the kill times.
@Suite(.serialized) struct CrashSafetyTests {
    @Test(arguments: Backend.allCases) func killedSavesAreAllOrNothing(_ backend: Backend) throws {
        let kills = StressTool.setting("MODELGEN_CRASH_KILLS", backend == .sqlite ? 200 : 100)
        let seed = UInt64(StressTool.setting("MODELGEN_CRASH_SEED", Int(UInt32.random(in: 1...UInt32.max))))
        var random = SplitMix(seed: seed)
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        do {
            let store = location.argument
            var committed = 0
            var killedMidSave = 0
            for kill in 0..<kills {
                let child = try StressTool.start(["write-loop", "--store", store])
                // Up to 60 ms (300 ms on PostgreSQL, whose open takes longer: a connection, the
                // schema check, the change feed's own connection): the first kills land while the
                // schema is created and prepared.
                usleep(UInt32(random.next() % (backend == .sqlite ? 60_000 : 300_000)))
                child.kill()
                let lines = child.finish().stdout.split(separator: "\n")
                let done = lines.last { $0.hasPrefix("done ") }.flatMap { Int($0.dropFirst(5)) }
                let begun = lines.last { $0.hasPrefix("begin ") }.flatMap { Int($0.dropFirst(6)) }
                if let begun, begun != done { killedMidSave += 1 }

                let report = try StressTool.run(["verify", "--store", store])
                let problems = report["problems"] as? [String] ?? ["no problems list"]
                let saves = try #require(report["saves"] as? Int)
                #expect(problems.isEmpty, "kill \(kill) (seed \(seed)): \(problems)")
                #expect(
                    saves >= max(committed, done ?? 0), "kill \(kill) (seed \(seed)): a save reported done is missing")
                #expect(saves <= max(committed, begun ?? 0), "kill \(kill) (seed \(seed)): a save never begun is there")
                // An independent look at the database (SQLite alone, or psql).
                if backend == .sqlite {
                    #expect(try TemporaryStore.rows(location, "PRAGMA integrity_check") == [["ok"]])
                }
                if saves > 0 {
                    let quizzes = try TemporaryStore.rows(location, "SELECT count(*) FROM \"quiz\"")
                    #expect(quizzes == [[String(1 + min(saves, 3))]], "kill \(kill) (seed \(seed))")
                }
                committed = saves
                if !problems.isEmpty { break }
            }
            print(
                "crash safety (\(backend.rawValue)): \(kills) kills (seed \(seed)), \(killedMidSave) between begin and done, \(committed) saves kept"
            )
            #expect(committed > 0, "no save ever completed")
        }
    }
}
