import Foundation
import GeneratedModels
import TestSupport
import Testing

@testable import ModelGenRuntime

/// Batched fetches (`fetchBatched`, `forEachObject`): the same objects in the same order as a
/// plain fetch, read a batch at a time; objects nothing else holds leave the context, held ones
/// stay the same objects; and walking 1,000,000 rows keeps a child process's peak memory
/// (`VmHWM`: `getrusage`'s maximum keeps the spawning test runner's across `exec`) under a fixed
/// bound, far below a fetch of them all.
@Suite struct BatchedFetchTests {
    @Test(arguments: Backend.allCases) func batchesGiveWhatAFetchGives(_ backend: Backend) throws {
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            for number in 0..<95 {
                let book = Book(in: context, title: "B\(number % 37)")
                book.pages = Int32(number * 7 % 50)
            }
            for number in 0..<10 { _ = Audiobook(in: context, title: "A\(number)") }
            try context.save()
            let request = FetchRequest<Media>(
                predicate: \Media.title != "B3",
                sortDescriptors: [ObjectSortDescriptor(\Media.title), ObjectSortDescriptor(\Media.year)])
            let expected = try store.newContext().fetch(request).map { ($0.objectID, $0.title) }

            let reader = store.newContext()
            let results = try reader.fetchBatched(request, batchSize: 8)
            #expect(results.count == expected.count)
            let kept = results[3]
            #expect(results.map { ($0.objectID, $0.title) }.elementsEqual(expected, by: ==))
            #expect(results.lastError == nil)
            // A held object stays the context's own; the others left it.
            #expect(kept.context === reader && results[3] === kept)
            #expect(try reader.existingObject(with: kept.objectID, as: Media.self) === kept)
            let resident = results.objectIDs.filter { reader.registeredObject($0) != nil }.count
            #expect(resident <= 2 * 8 + 1, "objects left in the context after the walk")

            // Unsaved changes count, as in a fetch.
            let changed = try reader.fetch(FetchRequest<Book>(predicate: \Book.title == "B5")).first!
            changed.title = "B3"
            _ = Book(in: reader, title: "B0 new")
            let pending = try reader.fetchBatched(request, batchSize: 5)
            #expect(pending.map(\.objectID) == (try reader.fetch(request)).map(\.objectID))

            // A row deleted after the IDs were read comes back detached.
            let later = try store.newContext().fetchBatched(request, batchSize: 4)
            let deleter = store.newContext()
            deleter.delete(try deleter.existingObject(with: later.objectIDs[9], as: Media.self))
            try deleter.save()
            #expect(later[9].context == nil && later[9].objectID == later.objectIDs[9])
            #expect(later[8].context != nil)

            var titles: [String] = []
            try store.newContext().forEachObject(request, batchSize: 6) { titles.append($0.title) }
            #expect(titles == expected.map(\.1).enumerated().filter { $0.offset != 9 }.map(\.element))
        }
    }

    @Test func walkingAMillionRowsKeepsMemoryBounded() throws {
        let count = StressTool.setting("MODELGEN_WALK_ROWS", 1_000_000)
        try StressTool.withDirectory { directory in
            let path = directory.appendingPathComponent("walk.sqlite").path
            _ = try StressTool.run(["walk-seed", "--store", path, "--count", String(count)])
            let expectedSum = (0..<count).reduce(0) { $0 + $1 % 100 }
            let batched = try StressTool.run(["walk", "--store", path, "--batch-size", "1000"])
            let whole = try StressTool.run(["walk", "--store", path, "--materialize"])
            for report in [batched, whole] {
                #expect(report["count"] as? Int == count)
                #expect(report["sum"] as? Int == expectedSum)
                #expect(report["last"] as? Int == (count - 1) % 100)
            }
            let batchedKB = try #require(batched["maxRSSKB"] as? Int)
            let wholeKB = try #require(whole["maxRSSKB"] as? Int)
            print(
                "walk of \(count) grades: peak RSS \(batchedKB / 1024) MB in batches of 1,000, \(wholeKB / 1024) MB as one array"
            )
            // The bound: the result's IDs (16 bytes a row), two batches of objects, and the
            // process itself (about 25 MB).
            #expect(batchedKB < 64 * 1024)
            #expect(wholeKB > 3 * batchedKB)
        }
    }
}
