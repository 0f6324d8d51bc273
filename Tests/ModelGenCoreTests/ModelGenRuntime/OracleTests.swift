import Foundation
import Testing

@testable import ModelGenCore

/// The differential test of the runtime: random models, operations and queries, every answer
/// compared with brute force (`Oracle/`). A bounded run here; `Scripts/oracle.sh SECONDS` runs
/// longer (`MODELGEN_ORACLE_SECONDS`, `MODELGEN_ORACLE_SEED` for the first seed,
/// `MODELGEN_ORACLE_BACKENDS=postgres` or `sqlite` for one backend only). Every case runs on SQLite
/// and on PostgreSQL, with the same expected answers.
@Suite struct OracleTests {
    /// The backends of the random run: both, unless `MODELGEN_ORACLE_BACKENDS` names some.
    static var backends: [OracleBackend] {
        let named = ProcessInfo.processInfo.environment["MODELGEN_ORACLE_BACKENDS"]?.split(separator: ",").compactMap {
            OracleBackend(rawValue: String($0))
        }
        return named.flatMap { $0.isEmpty ? nil : $0 } ?? OracleBackend.allCases
    }

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

    @Test(arguments: backends) func randomModelsOperationsAndQueriesAgreeWithBruteForce(_ backend: OracleBackend) throws
    {
        guard let (directory, cleanup) = try backend.place() else { return }
        defer { cleanup() }
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
            "oracle (\(backend.rawValue)): seeds \(Self.firstSeed)..<\(seed), \(tally.cases) cases, \(tally.operations) operations, \(tally.queries) queries (\(tally.predicates) with predicates), \(tally.comparedObjects) objects compared, \(tally.saves) saves (\(tally.refusedSaves) refused as expected), \(tally.reopens) reopens, \(failures.count) findings"
        )
        for failure in failures { Issue.record("\(failure)") }
        #expect(tally.queries > 0)
    }

    /// Seeds whose cases found a defect (each failed before its fix; see the commits): replayed
    /// in every run, as long as the generator makes the same cases from them.
    static let findings: [UInt64] = [
        1, 2, 3, 4, 5, 6, 8, 9, 10, 29, 31, 43, 52, 59, 63, 70, 97, 100, 112, 175, 256, 282, 358, 386, 5635, 7846, 8302,
        15628, 19672, 21457, 22882, 23377, 1_000_060, 1_006_123, 1_062_408,
    ]

    @Test(arguments: OracleBackend.allCases) func casesThatFoundDefectsStayFixed(_ backend: OracleBackend) throws {
        guard let (directory, cleanup) = try backend.place() else { return }
        defer { cleanup() }
        for seed in Self.findings {
            let (tally, failure) = OracleCase(seed: seed, operationCount: 150).run(in: directory)
            #expect(tally.cases == 1)
            if let failure { Issue.record("\(failure)") }
        }
    }

    /// The real models of the corpus with random data: every version the oracle can model
    /// (see `OracleModel.from`), one case each.
    @Test(arguments: OracleBackend.allCases) func corpusModelsWithRandomDataAgreeWithBruteForce(
        _ backend: OracleBackend
    ) throws {
        guard let root = TestPaths.sharedFolder("corpus") else { return }
        guard let (directory, cleanup) = try backend.place() else { return }
        defer { cleanup() }
        var tally = OracleTally()
        var skipped: [String: Int] = [:]
        var failures: [OracleCase.Failure] = []
        let files = TestPaths.files(named: "contents", under: root)
        for (number, file) in files.enumerated() {
            let engine = DiagnosticEngine()
            guard let bytes = try? [UInt8](Data(contentsOf: file)),
                var objectModel = FrontEnd().run(SourceFile(path: file.path, bytes: bytes), diagnostics: engine),
                case let schema = SchemaLowering().lower(objectModel, diagnostics: engine), let schema,
                !engine.hasErrors
            else {
                skipped["does not load", default: 0] += 1
                continue
            }
            objectModel.modelName = "Corpus"
            let (model, reason) = OracleModel.from(objectModel)
            guard let model else {
                skipped[reason ?? "?", default: 0] += 1
                continue
            }
            let seed = Self.firstSeed &+ UInt64(number) &* 7919
            var random = OracleRandom(seed: seed)
            let runtime = OracleCase.runtimeModel(objectModel, schema, model)
            let relative = String(file.path.dropFirst(root.path.count + 1))
            let (caseTally, failure) = OracleCase.run(
                model: model, runtime: runtime, random: &random, seed: seed, operationCount: 120, in: directory,
                label: relative)
            tally = tally + caseTally
            if let failure { failures.append(failure) }
        }
        print(
            "oracle on the corpus (\(backend.rawValue)): \(tally.cases) of \(files.count) model versions, \(tally.operations) operations, \(tally.queries) queries, \(tally.saves) saves (\(tally.refusedSaves) refused as expected), \(failures.count) findings; not modelled: "
                + skipped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for failure in failures.prefix(5) { Issue.record("\(failure)") }
        #expect(tally.cases > 0)
    }
}
