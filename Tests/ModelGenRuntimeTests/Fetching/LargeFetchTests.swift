import Foundation
import GeneratedModels
import Testing

@_spi(Generated) @_spi(Database) @testable import ModelGenRuntime

/// Fetches of more rows than `ObjectContext.largeFetch`, which go straight into an array sized by
/// the table's range of `_pk`s: every row once, in order, through the identity map, and no
/// oversized array kept when a sub-entity has only part of the table.
@Suite struct LargeFetchTests {
    typealias Store = LibraryRelationshipTests

    static let count = ObjectContext.largeFetch * 2 + 37

    @Test(arguments: Backend.allCases) func aLargeFetchReturnsEveryRowOnceInRowOrder(_ backend: Backend) throws {
        try Store.withStore(backend) { store, _ in
            let writer = store.newContext()
            for index in 0..<Self.count {
                _ = Book(in: writer, title: "Book \(index)")
                if index % 100 == 0 { _ = Audiobook(in: writer, title: "Audiobook \(index)") }
            }
            try writer.save()

            let context = store.newContext()
            let books = try context.fetchAll(Book.self)
            #expect(books.map(\.title) == (0..<Self.count).map { "Book \($0)" })
            #expect(zip(books, books.dropFirst()).allSatisfy { $0.objectID.rowID < $1.objectID.rowID })
            // Registered: fetching again, or through the base entity, gives the same objects.
            let again = try context.fetchAll(Book.self)
            #expect(again.count == books.count && zip(again, books).allSatisfy { $0 === $1 })
            let media = try context.fetchAll(Media.self)
            #expect(media.count == Self.count + (Self.count + 99) / 100)
            let booksAmongMedia = media.compactMap { $0 as? Book }
            #expect(booksAmongMedia.count == books.count && zip(booksAmongMedia, books).allSatisfy { $0 === $1 })
        }
    }

    /// Rows changed after they were written sit elsewhere in PostgreSQL's heap than their `_pk`
    /// says, and a fetch in row order without a window is put in order after the query there
    /// (`StoreDialect.ordersByKeyForFree`): still ascending rows, with a predicate too, and the
    /// same order SQL gives where it orders (a limit).
    @Test(arguments: Backend.allCases) func rowsChangedAfterTheyWereWrittenStillComeInRowOrder(_ backend: Backend)
        throws
    {
        try Store.withStore(backend) { store, _ in
            let writer = store.newContext()
            let books = (0..<Self.count).map { Book(in: writer, title: "Book \($0)") }
            try writer.save()
            // Two of every three books changed, from the last to the first, in two saves.
            for part in 0..<2 {
                for (index, book) in books.enumerated().reversed() where index % 3 == part { book.title += "*" }
                try writer.save()
            }
            let expected = (0..<Self.count).map { "Book \($0)" + ($0 % 3 == 2 ? "" : "*") }
            let fetched = try store.newContext().fetchAll(Book.self)
            #expect(fetched.map(\.title) == expected)
            #expect(zip(fetched, fetched.dropFirst()).allSatisfy { $0.objectID.rowID < $1.objectID.rowID })
            let starred = try store.newContext().fetch(FetchRequest<Book>(predicate: .endsWith(\Book.title, "*")))
            #expect(starred.map(\.objectID) == books.enumerated().filter { $0.offset % 3 != 2 }.map(\.element.objectID))
            // A required String attribute takes every text predicate an optional one does.
            let middle = try store.newContext().count(FetchRequest<Book>(predicate: .contains(\Book.title, "k 1")))
            #expect(middle == expected.filter { $0.contains("k 1") }.count)
            let windowed = try store.newContext().fetch(FetchRequest<Book>(fetchLimit: Self.count - 1))
            #expect(windowed.map(\.objectID) == books.dropLast().map(\.objectID))
            let ids = try store.newContext().fetchObjectIDs(FetchRequest<Book>())
            #expect(ids == books.map(\.objectID))
        }
    }

    @Test(arguments: Backend.allCases) func aLargeFetchIntoAContextWithObjectsKeepsThemAndLeavesOutTheDeleted(
        _ backend: Backend
    ) throws {
        try Store.withStore(backend) { store, _ in
            let writer = store.newContext()
            for index in 0..<Self.count { _ = Book(in: writer, title: "Book \(index)") }
            try writer.save()

            let context = store.newContext()
            let late = try context.fetch(FetchRequest<Book>(predicate: \Book.title == "Book \(Self.count - 5)"))
            let early = try context.fetch(FetchRequest<Book>(predicate: \Book.title == "Book 3"))
            let deleted = try context.fetch(
                FetchRequest<Book>(predicate: \Book.title == "Book \(ObjectContext.largeFetch + 1)"))
            context.delete(try #require(deleted.first))
            let books = try context.fetchAll(Book.self)
            #expect(books.count == Self.count - 1)
            #expect(!books.contains { $0.title == "Book \(ObjectContext.largeFetch + 1)" })
            #expect(books.contains { $0 === early.first } && books.contains { $0 === late.first })
            #expect(Set(books.map(\.objectID)).count == books.count)
        }
    }

    @Test(arguments: Backend.allCases) func aSubEntitysShareOfASharedTableIsNotKeptInAnOversizedArray(
        _ backend: Backend
    ) throws {
        try Store.withStore(backend) { store, _ in
            let writer = store.newContext()
            let books = ObjectContext.largeFetch + 100
            for index in 0..<books * 5 {
                if index % 5 == 0 {
                    _ = Book(in: writer, title: "Book \(index)")
                } else {
                    _ = Audiobook(in: writer, title: "Audiobook \(index)")
                }
            }
            try writer.save()

            let fetched = try store.newContext().fetchAll(Book.self)
            #expect(fetched.count == books)
            #expect(fetched.map(\.title) == stride(from: 0, to: books * 5, by: 5).map { "Book \($0)" })
            // The table's range is five times the result: the array is cut down to the result.
            #expect(fetched.capacity < 2 * books, "capacity \(fetched.capacity) for \(books) objects")
        }
    }

    @Test(arguments: Backend.allCases) func aTableWithFarApartRowsIsFetchedWithoutReservingItsRange(_ backend: Backend)
        throws
    {
        try Store.withStore(backend) { store, path in
            let writer = store.newContext()
            for index in 0..<Self.count { _ = Book(in: writer, title: "Book \(index)") }
            try writer.save()
            // One row far beyond the others (2^50): the table's range is no useful bound.
            try path.connect().execute(
                #"UPDATE "media" SET "_pk" = 1125899906842624 WHERE "_pk" = (SELECT max("_pk") FROM "media")"#)

            let fetched = try store.newContext().fetchAll(Book.self)
            #expect(fetched.map(\.title) == (0..<Self.count).map { "Book \($0)" })
            #expect(fetched.last?.objectID.rowID == 1 << 50)
            #expect(fetched.capacity < 2 * Self.count, "capacity \(fetched.capacity) for \(Self.count) objects")
        }
    }

    @Test(arguments: Backend.allCases) func rowsBeyondTheBoundAreStillCollected(_ backend: Backend) throws {
        try Store.withStore(backend) { store, _ in
            let writer = store.newContext()
            for index in 0..<40 { _ = Book(in: writer, title: "Book \(index)") }
            try writer.save()

            let context = store.newContext()
            let entity = Book.entityDescription
            let sql =
                "SELECT \(entity.selectColumnsSQL) FROM \"media\" WHERE \"_entity\" = \(entity.entityID) ORDER BY \"_pk\""
            let objects = try store.withConnection { connection throws in
                var rows = FetchCursor(
                    context, entity, Book.self, ownRowsOnly: false, try connection.cachedStatement(sql))
                var head = ObjectBuffer()
                for _ in 0..<3 { head.append(try #require(try rows.next())) }
                // A bound that is too small (as one from another snapshot could be).
                return try ObjectContext.collect(from: &rows, after: &head, capacity: 10)
            }
            #expect(objects.map { ($0 as? Book)?.title } == (0..<40).map { "Book \($0)" })
        }
    }
}
