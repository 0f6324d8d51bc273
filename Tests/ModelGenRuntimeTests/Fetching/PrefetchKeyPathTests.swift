import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// `FetchRequest.prefetch(_:)` on the generated classes of `Models/Library`: a relationship named
/// by key path is read with the fetch (one query per relationship, counted through the trace),
/// and a key path that is no relationship makes the fetch throw.
@Suite struct PrefetchKeyPathTests {
    @Test(arguments: Backend.allCases) func aKeyPathPrefetchesItsRelationship(_ backend: Backend) throws {
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            for number in 0..<6 {
                let shelf = Shelf(in: context, label: "S\(number)")
                let author = Author(in: context, name: "A\(number)")
                for copy in 0..<number {
                    let book = Book(in: context, title: "B\(number).\(copy)")
                    book.shelf = shelf
                    book.authors = [author]
                }
            }
            try context.save()
            let recorder = SQLTraceTests.Recorder()
            store.trace = { recorder.record($0) }
            let fresh = store.newContext()
            var request = FetchRequest<Shelf>(sortDescriptors: [ObjectSortDescriptor(\Shelf.label)])
            request.prefetch(\Shelf.items)
            let shelves = try fresh.fetch(request)
            #expect(recorder.take().filter(SQLTraceTests.isQuery).count == 2)
            #expect(shelves.map { $0.items.count } == [0, 1, 2, 3, 4, 5])
            #expect(shelves.map { $0.items.map { ($0 as? Book)?.title ?? "?" }.sorted() }[2] == ["B2.0", "B2.1"])
            var authors = FetchRequest<Author>()
            authors.prefetch(\Author.books)
            let found = try fresh.fetch(authors)
            #expect(recorder.take().filter(SQLTraceTests.isQuery).count == 2)
            #expect(found.map(\.books.count).sorted() == [0, 1, 2, 3, 4, 5])
            #expect(recorder.take().isEmpty)
            var wrong = FetchRequest<Shelf>()
            wrong.prefetch(\Shelf.label)
            #expect {
                _ = try fresh.fetch(wrong)
            } throws: { error in
                (error as? DatabaseError)?.code == .unknownKey
            }
        }
    }
}
