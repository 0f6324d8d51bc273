import Foundation
import Testing

/// The differential test of the runtime: random models, operations and queries, every answer
/// compared with brute force (`Oracle/`). A bounded run here; `Scripts/oracle.sh SECONDS` runs
/// longer (`MODELGEN_ORACLE_SECONDS`, `MODELGEN_ORACLE_SEED` for the first seed).
@Suite struct OracleTests {
    static var seconds: Double {
        ProcessInfo.processInfo.environment["MODELGEN_ORACLE_SECONDS"].flatMap(Double.init) ?? 40
    }

    /// The run stops after this many findings.
    static var findingLimit: Int {
        ProcessInfo.processInfo.environment["MODELGEN_ORACLE_FINDINGS"].flatMap { Int($0) } ?? 3
    }

    static var firstSeed: UInt64 {
        ProcessInfo.processInfo.environment["MODELGEN_ORACLE_SEED"].flatMap { UInt64($0) } ?? 1
    }

    @Test func randomModelsOperationsAndQueriesAgreeWithBruteForce() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let deadline = Date().addingTimeInterval(Self.seconds)
        var tally = OracleTally()
        var failures: [OracleCase.Failure] = []
        var seed = Self.firstSeed
        while Date() < deadline && failures.count < Self.findingLimit {
            let (caseTally, failure) = OracleCase(seed: seed, operationCount: 150).run(in: directory)
            tally = tally + caseTally
            if let failure { failures.append(failure) }
            seed += 1
        }
        print(
            "oracle: seeds \(Self.firstSeed)..<\(seed), \(tally.cases) cases, \(tally.operations) operations, \(tally.queries) queries (\(tally.predicates) with predicates), \(tally.comparedObjects) objects compared, \(tally.saves) saves (\(tally.refusedSaves) refused as expected), \(tally.reopens) reopens, \(failures.count) findings"
        )
        for failure in failures { Issue.record("\(failure)") }
        #expect(tally.queries > 0)
    }
}
