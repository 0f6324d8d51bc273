import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// The generated API of `Models/Library` beyond relationships: validation on save, the
/// convenience initializers, `find`, fetch request templates, fetched properties, composite,
/// transient and category entities, dynamic access.
@Suite struct LibraryGeneratedAPITests {
    typealias Store = LibraryRelationshipTests

    @Test(arguments: Backend.allCases) func validationRefusesEachBrokenRuleAndStoresNothing(_ backend: Backend) throws {
        try Store.withStore(backend) { store, path in
            let cases: [(String, (ObjectContext) -> Void)] = [
                ("title", { context in _ = context.insert(Book.self) }),  // required, never set
                ("title", { context in _ = Book(in: context, title: "") }),  // shorter than 1
                // Longer than 200.
                ("title", { context in _ = Book(in: context, title: String(repeating: "x", count: 201)) }),
                ("isbn", { context in Book(in: context, title: "T").isbn = "12-34" }),  // pattern
                ("year", { context in Book(in: context, title: "T").year = 1200 }),  // below 1450
                ("pages", { context in Book(in: context, title: "T").pages = -1 }),  // below 0
                ("email", { context in _ = Member(in: context, email: "no at sign", name: "N") }),  // pattern
                (
                    "member",
                    { context in  // required to-one never set
                        let loan = Loan(in: context, due: Date())
                        loan.item = Book(in: context, title: "T")
                    }
                ),
            ]
            for (property, make) in cases {
                let context = store.newContext()
                _ = Book(in: context, title: "Valid")
                make(context)
                let error = try #require(throws: DatabaseError.self) { try context.save() }
                #expect(error.code == .validation, "\(property): \(error)")
                #expect(error.property == property, "\(error)")
                #expect(
                    try Store.rows(path, #"SELECT count(*) FROM "media""#) == [["0"]],
                    "nothing of a failed save is stored")
            }
        }
    }

    @Test(arguments: Backend.allCases) func aFailedSaveKeepsTheContextsChangesAndSucceedsOnceFixed(_ backend: Backend)
        throws
    {
        try Store.withStore(backend) { store, path in
            let context = store.newContext()
            let good = Book(in: context, title: "Good")
            let bad = Book(in: context, title: "Bad")
            bad.isbn = "not digits"
            #expect(throws: DatabaseError.self) { try context.save() }
            #expect(context.hasChanges)
            #expect(good.objectID.isTemporary)
            bad.isbn = "9780131103627"
            try context.save()
            #expect(!context.hasChanges)
            #expect(
                try Store.rows(path, #"SELECT "title", "isbn" FROM "media" ORDER BY "title""#) == [
                    ["Bad", "9780131103627"], ["Good", "NULL"],
                ])
        }
    }

    @Test(arguments: Backend.allCases) func findTemplatesAndFetchedProperties(_ backend: Backend) throws {
        try Store.withStore(backend) { store, _ in
            let context = store.newContext()
            let ada = Author(in: context, name: "Ada")
            for (title, pages) in [("Analytical", 420), ("Notes", 120), ("analysis", 310)] {
                let book = Book(in: context, title: title)
                book.pages = Int32(pages)
                ada.addToBooks(book)
            }
            try context.save()
            #expect(try Author.find(name: "Ada", in: context) === ada)
            #expect(try Author.find(name: "Bob", in: context) == nil)
            let matches = try Book.fetchBooksByPrefix(MIN_PAGES: 300, PREFIX: "ANAL", in: context)
            #expect(Set(matches.map(\.title)) == ["Analytical", "analysis"])
            #expect(Set(try ada.longBooks().map(\.title)) == ["Analytical", "analysis"])
            #expect(ada.booksArray.map(\.title) == ["Analytical", "Notes", "analysis"])  // -year (all nil), then title
            // Variables other than $FETCH_SOURCE are parameters, typed; so are variables compared
            // through a to-many (ANY) and objects tested for membership.
            let notes = try #require(try Book.fetch(in: context, where: \.title == "Notes").first)
            notes.year = 1843
            try context.save()
            #expect(try ada.booksSince(SINCE: 1800).map(\.title) == ["Notes"])
            let named: [Book] = try Book.fetchBooksByAuthorName(NAME: "Ada", in: context)
            #expect(named.count == 3)
            #expect(try Author.fetchAuthorsOf(BOOK: notes, in: context) == [ada])
            #expect(try Author.fetch(in: context, where: .contains(\.books, notes)) == [ada])
        }
    }

    /// What the type system cannot rule out is refused with an error, not a trap: a typed
    /// predicate or sort on a transient attribute, an abstract entity inserted, a relationship
    /// read once the object's context is gone.
    @Test(arguments: Backend.allCases) func misuseIsAnErrorNotATrap(_ backend: Backend) throws {
        try Store.withStore(backend) { store, _ in
            let context = store.newContext()
            _ = Member(in: context, email: "m@x", name: "M")
            try context.save()
            #expect(throws: DatabaseError.self) { try Member.fetch(in: context, where: \.displayName == "x") }
            #expect(throws: DatabaseError.self) { try Member.count(in: context, where: \.isPinned == true) }
            #expect(throws: DatabaseError.self) {
                try Member.fetch(in: context, sortedBy: [ObjectSortDescriptor(\.displayName)])
            }
            _ = context.insert(Media.self)
            #expect {
                try context.save()
            } throws: { error in
                (error as? DatabaseError)?.code == .misuse && (error as? DatabaseError)?.entity == "Media"
            }
            context.rollback()
            // A generated setter given an object of another context changes nothing and the next
            // save says so (a setter cannot throw; it does not trap either).
            let author = Author(in: context, name: "A")
            try context.save()
            let other = store.newContext()
            let foreignBook = Book(in: other, title: "Elsewhere")
            author.addToBooks(foreignBook)
            author.books = [foreignBook]
            #expect(author.books.isEmpty && foreignBook.authors.isEmpty)
            #expect {
                try context.save()
            } throws: { error in
                (error as? DatabaseError)?.code == .misuse
            }
            var member: Member?
            do {
                let scoped = store.newContext()
                member = try Member.first(in: scoped)
            }
            let orphan = try #require(member)
            #expect {
                _ = try orphan.value(forKey: "loans")
            } throws: { error in
                (error as? DatabaseError)?.code == .misuse
            }
        }
    }

    @Test(arguments: Backend.allCases) func compositeTransientAndCategoryEntities(_ backend: Backend) throws {
        try Store.withStore(backend) { store, path in
            let context = store.newContext()
            let member = Member(in: context, email: "m@x", name: "M")
            member.location = Address(city: "Oslo", street: nil)
            member.displayName = "Shown only"
            let note = context.insert(Note.self)
            note.text = "remember"
            note.created = Date(timeIntervalSinceReferenceDate: 60)
            try context.save()
            #expect(
                try Store.rows(path, #"SELECT "location_city", "location_street" FROM "member""#) == [["Oslo", "NULL"]])
            // A date is seconds since 2001 on SQLite, a `timestamptz` on PostgreSQL.
            let created = backend == .sqlite ? "60.0" : "2001-01-01 00:01:00+00"
            #expect(try Store.rows(path, #"SELECT "text", "created" FROM "note""#) == [["remember", created]])

            let other = store.newContext()
            let loaded = try #require(try Member.first(in: other))
            #expect(loaded.location == Address(city: "Oslo", street: nil))
            #expect(loaded.displayName == nil)
            // A required transient reads its default (not optional, not nil) and is known to
            // dynamic access.
            let pinned: Bool = loaded.isPinned
            #expect(pinned == false)
            #expect(try loaded.value(forKey: "isPinned") as? Bool == false)
            try loaded.setValue(true, forKey: "isPinned")
            #expect(loaded.isPinned)
            loaded.displayName = "x"
            #expect(try loaded.value(forKey: "displayName") as? String == "x")
            let loadedNote = try #require(try Note.first(in: other))
            #expect(loadedNote.text == "remember")
            #expect(try loadedNote.value(forKey: "text") as? String == "remember")
            #expect(try Note.fetch(in: other, where: \Note.text == "remember").count == 1)
            try loadedNote.setValue("changed", forKey: "text")
            #expect(throws: DatabaseError.self) { try loadedNote.setValue(3, forKey: "text") }
            try other.save()
            #expect(try Store.rows(path, #"SELECT "text" FROM "note""#) == [["changed"]])
        }
    }

    /// A `category` entity's attribute the model gives a default starts with it and is saved with
    /// it when never set (`Note.text`, required, default "").
    @Test(arguments: Backend.allCases) func aCategoryEntitysDefaultIsSavedWhenNeverSet(_ backend: Backend) throws {
        try Store.withStore(backend) { store, path in
            let context = store.newContext()
            let note = context.insert(Note.self)
            #expect(note.text == "")
            try context.save()
            #expect(try Store.rows(path, #"SELECT "text", "created" FROM "note""#) == [["", "NULL"]])
        }
    }

    @Test(arguments: Backend.allCases) func dynamicAccessCoversAttributesAndRelationships(_ backend: Backend) throws {
        try Store.withStore(backend) { store, _ in
            let context = store.newContext()
            let book = Book(in: context, title: "T")
            let author = Author(in: context, name: "A")
            try book.setValue(Int16(1999), forKey: "year")
            try book.setValue(500, forKey: "pages")  // an Int that fits Int32
            try book.setValue([author], forKey: "authors")
            #expect(book.year == 1999)
            #expect(book.pages == 500)
            #expect(author.books == [book])
            #expect((try book.value(forKey: "authors") as? [ManagedObject])?.count == 1)
            #expect(throws: DatabaseError.self) { try book.setValue("x", forKey: "pages") }
            #expect(throws: DatabaseError.self) { try book.setValue(Int64.max, forKey: "pages") }
            #expect(throws: DatabaseError.self) { try book.setValue(book, forKey: "authors") }
            let unknown = try #require(throws: DatabaseError.self) { try book.value(forKey: "nope") }
            #expect(unknown.code == .unknownKey)
        }
    }
}
