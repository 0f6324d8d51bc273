import Foundation
import GeneratedModels
import TestSupport
import Testing

@testable import ModelGenRuntime

/// Random sequences of saves — from the observing context's neighbours, from a second store on
/// the same database (another process's saves, as the store sees them), small and large — and
/// after each one the observed results must equal brute force and the change set applied to
/// the previous results must give them.
@Suite struct ObservedResultsPropertyTests {
    static let firstNames = ["ann", "bob", "cy", "dan", "eve", "max", "ned", "ola", "zed", "Amy", "bo"]
    static let lastNames = ["a", "b", "c", "d", "e"]

    @Test(arguments: [(Backend.sqlite, 1), (.sqlite, 2), (.sqlite, 3), (.postgres, 4)])
    func randomSavesKeepTheResultsExact(_ backend: Backend, _ seed: Int) throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let options = PersistentStore.OpenOptions(externalChangeInterval: 0.02)
        let store = try location.open(GradeBookModel.model, options: options)
        let elsewhere = try location.open(GradeBookModel.model, options: options)
        var random = SplitMix(seed: UInt64(seed))
        let observer = try ObservedResultsTests.Observer(store)
        defer { observer.stop() }
        let neighbours = [store.newContext(), store.newContext(), elsewhere.newContext()]
        for context in neighbours { context.automaticallyMergesChangesFromStore = true }
        var operations = 0
        for step in 0..<40 {
            let index = Int.random(in: 0..<neighbours.count, using: &random)
            let context = neighbours[index]
            let count =
                Int.random(in: 0..<10, using: &random) == 0
                ? Int.random(in: 100..<700, using: &random) : Int.random(in: 1...5, using: &random)
            var students = try context.fetchAll(Student.self)
            for _ in 0..<count {
                operations += 1
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4 where true:
                    let student = ObservedResultsTests.student(
                        Self.firstNames.randomElement(using: &random)!, Self.lastNames.randomElement(using: &random)!,
                        in: context)
                    students.append(student)
                case 4..<6 where !students.isEmpty:
                    students.randomElement(using: &random)!.first_name = Self.firstNames.randomElement(using: &random)!
                case 6..<8 where !students.isEmpty:
                    students.randomElement(using: &random)!.last_name = Self.lastNames.randomElement(using: &random)!
                case 8..<10 where !students.isEmpty:
                    let victim = students.remove(at: Int.random(in: 0..<students.count, using: &random))
                    context.delete(victim)
                default:
                    _ = ObservedResultsTests.student("cy", "a", in: context)
                }
            }
            try context.save()
            let expected = try ObservedResultsTests.expected(store)
            // Saves of this store are delivered before `state` returns; the other store's are
            // noticed within its polling interval.
            var state = observer.state
            let start = Date()
            while state.sections != expected && Date().timeIntervalSince(start) < 5 {
                usleep(10_000)
                state = observer.state
            }
            try #require(state.problems.isEmpty, "seed \(seed) step \(step): \(state.problems)")
            try #require(state.sections == expected, "seed \(seed) step \(step) (context \(index), \(count) changes)")
        }
        #expect(operations > 40)
    }
}
