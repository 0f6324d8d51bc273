import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// The generated classes of `Models/Library` (see `Generated/Library/`) on real SQLite files:
/// relationships and their inverses, deletion rules, validation.
@Suite struct LibraryRelationshipTests {
    static func withStore(_ backend: Backend, _ body: (PersistentStore, TemporaryStore.Location) throws -> Void) throws
    {
        try TemporaryStore.with(LibraryModel.model, on: backend, body)
    }

    static func rows(_ location: TemporaryStore.Location, _ sql: String) throws -> [[String]] {
        try TemporaryStore.rows(location, sql)
    }

    @Test(arguments: Backend.allCases) func manyToManyKeepsBothSidesInStepAcrossSaves(_ backend: Backend) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let ada = Author(in: context, name: "Ada")
            let bob = Author(in: context, name: "Bob")
            let book = Book(in: context, title: "Engines")
            book.authors = [bob, ada]
            #expect(ada.books == [book])
            #expect(bob.books == [book])
            try context.save()
            #expect(try Self.rows(path, #"SELECT count(*) FROM "author_books""#) == [["2"]])

            let other = store.newContext()
            let loaded = try #require(try Book.first(in: other))
            #expect(loaded.authors.map(\.name) == ["Bob", "Ada"])
            let loadedAda = try #require(try Author.find(name: "Ada", in: other))
            #expect(loadedAda.books == [loaded])
            loadedAda.removeFromBooks(loaded)
            #expect(loaded.authors.map(\.name) == ["Bob"])
            try other.save()

            let third = store.newContext()
            #expect(try Book.first(in: third)?.authors.map(\.name) == ["Bob"])
            #expect(try Author.find(name: "Ada", in: third)?.books.isEmpty == true)
        }
    }

    @Test(arguments: Backend.allCases) func orderedToManyKeepsItsOrderAndTheSortedWrapperSortsByTitle(
        _ backend: Backend
    ) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let shelf = Shelf(in: context, label: "A")
            let books = ["Cuckoo", "Apple", "Bee"].map { Book(in: context, title: $0) }
            shelf.items = [books[0], books[1], books[2]]
            #expect(books.allSatisfy { $0.shelf === shelf })
            try context.save()

            let other = store.newContext()
            let loaded = try #require(try Shelf.find(label: "A", in: other))
            #expect(loaded.items.map(\.title) == ["Cuckoo", "Apple", "Bee"])
            #expect(loaded.itemsArray.map(\.title) == ["Apple", "Bee", "Cuckoo"])
            loaded.items = loaded.items.reversed()
            try other.save()
            #expect(
                try Self.rows(path, #"SELECT "title", "shelf_position" FROM "media" ORDER BY "shelf_position""#) == [
                    ["Bee", "0"], ["Apple", "1"], ["Cuckoo", "2"],
                ])
            let third = store.newContext()
            #expect(try Shelf.find(label: "A", in: third)?.items.map(\.title) == ["Bee", "Apple", "Cuckoo"])
        }
    }

    @Test(arguments: Backend.allCases) func settingAToOneMovesTheObjectBetweenInverses(_ backend: Backend) throws {
        try Self.withStore(backend) { store, _ in
            let context = store.newContext()
            let first = Member(in: context, email: "a@x", name: "A")
            let second = Member(in: context, email: "b@x", name: "B")
            let book = Book(in: context, title: "T")
            let loan = Loan(in: context, due: Date(timeIntervalSinceReferenceDate: 0))
            loan.item = book
            loan.member = first
            #expect(first.loans == [loan])
            loan.member = second
            #expect(first.loans.isEmpty)
            #expect(second.loans == [loan])
            try context.save()
            let other = store.newContext()
            #expect(try Member.find(email: "b@x", in: other)?.loans.count == 1)
            #expect(try Member.find(email: "a@x", in: other)?.loans.isEmpty == true)
            #expect(try Loan.first(in: other)?.member?.name == "B")
        }
    }

    @Test(arguments: Backend.allCases) func cascadeDeletesRecursivelyAndNullifiesInverses(_ backend: Backend) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let member = Member(in: context, email: "m@x", name: "M")
            let book = Book(in: context, title: "T")
            let author = Author(in: context, name: "Ada")
            book.addToAuthors(author)
            for day in 0..<3 {
                let loan = Loan(in: context, due: Date(timeIntervalSinceReferenceDate: Double(day)))
                loan.member = member
                loan.item = book
                loan.addToReminders(Reminder(in: context, sent: Date(timeIntervalSinceReferenceDate: 0)))
            }
            let shelf = Shelf(in: context, label: "S")
            shelf.addToItems(book)
            try context.save()

            // Member → loans (Cascade) → reminders (Cascade); each loan leaves its book (Nullify).
            let other = store.newContext()
            let loaded = try #require(try Member.first(in: other))
            let loadedBook = try #require(try Book.first(in: other))
            #expect(loadedBook.loans.count == 3)
            other.delete(loaded)
            #expect(loadedBook.loans.isEmpty)
            try other.save()
            #expect(
                try Self.rows(
                    path,
                    #"SELECT (SELECT count(*) FROM "loan"), (SELECT count(*) FROM "reminder"), (SELECT count(*) FROM "media")"#
                ) == [["0", "0", "1"]])

            // Shelf → items (Cascade); the book leaves its author (Nullify, many-to-many).
            let third = store.newContext()
            let loadedShelf = try #require(try Shelf.first(in: third))
            let loadedAuthor = try #require(try Author.first(in: third))
            #expect(loadedAuthor.books.count == 1)
            third.delete(loadedShelf)
            #expect(loadedAuthor.books.isEmpty)
            try third.save()
            #expect(
                try Self.rows(
                    path,
                    #"SELECT (SELECT count(*) FROM "media"), (SELECT count(*) FROM "author_books"), (SELECT count(*) FROM "author")"#
                ) == [["0", "0", "1"]])
        }
    }

    @Test(arguments: Backend.allCases) func denyFailsTheSaveNamingTheRelationshipAndChangesNothing(_ backend: Backend)
        throws
    {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            let member = Member(in: context, email: "m@x", name: "M")
            let book = Book(in: context, title: "T")
            let loan = Loan(in: context, due: Date(timeIntervalSinceReferenceDate: 0))
            loan.member = member
            loan.item = book
            try context.save()

            context.delete(book)
            let error = try #require(throws: DatabaseError.self) { try context.save() }
            #expect(error.code == .deny)
            #expect(error.property == "loans")
            #expect(error.entity == "Book")
            #expect(try Self.rows(path, #"SELECT count(*) FROM "media""#) == [["1"]])
            context.rollback()
            #expect(!context.hasChanges)

            // Once the loan is gone the book may go.
            context.delete(loan)
            context.delete(book)
            try context.save()
            #expect(
                try Self.rows(path, #"SELECT (SELECT count(*) FROM "media"), (SELECT count(*) FROM "loan")"#) == [
                    ["0", "0"]
                ])
            #expect(member.loans.isEmpty)
        }
    }

    @Test(arguments: Backend.allCases) func subEntityRowsComeBackAsTheirOwnClasses(_ backend: Backend) throws {
        try Self.withStore(backend) { store, _ in
            let context = store.newContext()
            let book = Book(in: context, title: "Paper")
            book.pages = 320
            let audio = Audiobook(in: context, title: "Voice")
            audio.duration = 3.5
            try context.save()
            let other = store.newContext()
            let media = try Media.fetch(in: other, sortedBy: [ObjectSortDescriptor(\Media.title)])
            #expect(media.count == 2)
            #expect((media[0] as? Book)?.pages == 320)
            #expect((media[1] as? Audiobook)?.duration == 3.5)
            #expect(try Book.count(in: other) == 1)
            #expect(try Audiobook.fetch(in: other).map(\.title) == ["Voice"])
        }
    }
}
