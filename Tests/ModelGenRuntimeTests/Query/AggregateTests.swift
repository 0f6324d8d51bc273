import Foundation
import GeneratedModels
import TestSupport
import Testing

@_spi(Generated) @_spi(Database) @testable import ModelGenRuntime

/// Values fetches (`ValuesRequest`: aggregates, groups, `having`, distinct values, selected
/// attributes) on `Models/Library`, random data of several seeds, every answer compared with the
/// same computation done here over plain Swift values kept beside the store: after a save (one
/// SQL statement) and with unsaved inserts, changes and deletes in the context (computed from
/// objects).
@Suite struct AggregateTests {
    /// What the test knows of a book, independently of the runtime.
    struct Plain {
        var title: String
        var pages: Int32
        var year: Int16?
        var shelf: String?
        var authors: Set<Int> = []
    }

    static let titles = ["Dune", "dune", "Émile", "E\u{301}mile", "Zazie", "Ada", "Ulysses", "Kim"]
    static let labels = ["A", "B", "b", "Ç", "Z"]

    @Test(arguments: Backend.allCases, [UInt64(1), 2, 3]) func valuesAgreeWithBruteForce(
        _ backend: Backend, seed: UInt64
    )
        throws
    {
        var random = SplitMix(seed: seed)
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            let shelves = Self.labels.map { Shelf(in: context, label: $0) }
            var books: [(Book, Plain)] = []
            for _ in 0..<Int.random(in: 40...160, using: &random) {
                let plain = Plain(
                    title: Self.titles.randomElement(using: &random)!, pages: Int32.random(in: 0...900, using: &random),
                    year: Bool.random(using: &random) ? nil : Int16.random(in: 1990...1999, using: &random),
                    shelf: Int.random(in: 0...5, using: &random) == 0 ? nil : Self.labels.randomElement(using: &random))
                let book = Book(in: context, title: plain.title)
                Self.apply(plain, to: book, shelves)
                books.append((book, plain))
            }
            let authors = (0..<4).map { Author(in: context, name: "Author \($0)") }
            for index in books.indices {
                books[index].1.authors = Set((0..<4).filter { _ in Int.random(in: 0...2, using: &random) == 0 })
                books[index].0.authors = books[index].1.authors.sorted().map { authors[$0] }
            }
            for number in 0..<7 {
                let audiobook = Audiobook(in: context, title: "Audio \(number)")
                audiobook.duration = Double(number) * 1.25
            }
            try context.save()
            try Self.compare(store.newContext(), books.map(\.1), label: "saved, seed \(seed)")
            try Self.compareCollectionAggregates(store.newContext(), books.map(\.1), label: "saved, seed \(seed)")

            // Unsaved: changed, inserted, deleted objects.
            for index in books.indices where Int.random(in: 0...3, using: &random) == 0 {
                books[index].1.pages = Int32.random(in: 0...900, using: &random)
                books[index].1.year = Bool.random(using: &random) ? nil : 1995
                Self.apply(books[index].1, to: books[index].0, shelves)
            }
            for _ in 0..<5 {
                let plain = Plain(title: "New", pages: 77, year: 1999, shelf: "Z")
                let book = Book(in: context, title: plain.title)
                Self.apply(plain, to: book, shelves)
                books.append((book, plain))
            }
            for _ in 0..<4 {
                let (book, _) = books.remove(at: Int.random(in: 0..<books.count, using: &random))
                context.delete(book)
            }
            try Self.compare(context, books.map(\.1), label: "unsaved, seed \(seed)")
            try Self.compareCollectionAggregates(context, books.map(\.1), label: "unsaved, seed \(seed)")
            try context.save()
            try Self.compare(store.newContext(), books.map(\.1), label: "saved again, seed \(seed)")

            // Object IDs without objects, in the request's order (ties by row).
            let ids = try store.newContext().fetchObjectIDs(
                FetchRequest<Book>(
                    predicate: \Book.pages > 300, sortDescriptors: [ObjectSortDescriptor(\Book.pages, ascending: false)]
                ))
            let expectedIDs = books.filter { $0.1.pages > 300 }.sorted { a, b in
                a.1.pages != b.1.pages ? a.1.pages > b.1.pages : a.0.objectID.rowID < b.0.objectID.rowID
            }.map(\.0.objectID)
            #expect(ids == expectedIDs)
        }
    }

    static func apply(_ plain: Plain, to book: Book, _ shelves: [Shelf]) {
        book.pages = plain.pages
        book.year = plain.year
        book.shelf = plain.shelf.map { label in shelves.first { $0.label == label }! }
    }

    /// Strings as SQL orders them: by their UTF-8 bytes.
    static func precedes(_ a: String?, _ b: String?) -> Bool {
        guard let b else { return false }
        guard let a else { return true }
        return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }

    static func compare(_ context: ObjectContext, _ books: [Plain], label: Comment) throws {
        // One row over all books.
        let count = Aggregate<Book, Int>.count()
        let pages = Aggregate.sum(\Book.pages)
        let mean = Aggregate.average(\Book.pages)
        let earliest = Aggregate.min(\Book.year)
        let latest = Aggregate.max(\Book.year)
        let dated = Aggregate.count(\Book.year)
        let titles = Aggregate.count(distinct: \Book.title)
        let firstTitle = Aggregate.min(\Book.title)
        let all = try context.fetchValues(
            ValuesRequest<Book>(columns: [count, pages, mean, earliest, latest, dated, titles, firstTitle]))
        #expect(all.count == 1, label)
        let years = books.compactMap(\.year)
        let total = books.reduce(0) { $0 + Int($1.pages) }
        #expect(all[0][count] == books.count, label)
        #expect(all[0][pages] == total, label)
        #expect(abs((all[0][mean] ?? -1) - Double(total) / Double(books.count)) < 1e-9, label)
        #expect(all[0][earliest] == years.min() && all[0][latest] == years.max(), label)
        #expect(all[0][dated] == years.count, label)
        #expect(all[0][titles] == Set(books.map { Array($0.title.utf8) }).count, label)
        #expect(all[0][firstTitle] == books.map(\.title).min(by: precedes), label)
        let long = books.filter { $0.pages > 450 }.reduce(0) { $0 + Int($1.pages) }
        #expect(try context.aggregate(pages, where: \Book.pages > 450) == long, label)
        #expect(try context.aggregate(mean, where: \Book.pages > 5_000) == nil, label)
        #expect(try context.aggregate(Aggregate<Media, Int>.count()) == books.count + 7, label)

        // Grouped by year, with a having.
        let year = ValueColumn(\Book.year)
        var byYear = ValuesRequest<Book>(groupBy: [year], columns: [year, count, pages, firstTitle])
        byYear.having = pages > 1_000 && count >= 2
        let groups = Dictionary(grouping: books, by: \.year)
        let expected = groups.keys.sorted { ($0 ?? .min) < ($1 ?? .min) || ($0 == nil && $1 != nil) }.compactMap {
            key -> (Int16?, Int, Int, String?)? in
            let members = groups[key]!
            let sum = members.reduce(0) { $0 + Int($1.pages) }
            guard sum > 1_000, members.count >= 2 else { return nil }
            return (key, members.count, sum, members.map(\.title).min(by: precedes))
        }
        let rows = try context.fetchValues(byYear)
        #expect(rows.map { $0[year] } == expected.map(\.0), label)
        #expect(rows.map { $0[count] } == expected.map(\.1), label)
        #expect(rows.map { $0[pages] } == expected.map(\.2), label)
        #expect(rows.map { $0[firstTitle] } == expected.map(\.3), label)

        // Grouped through a to-one key path, and by two keys.
        let shelf = ValueColumn(\Book.shelf, \Shelf.label)
        let byShelf = try context.fetchValues(ValuesRequest<Book>(groupBy: [shelf], columns: [shelf, count]))
        let shelfKeys = Set(books.map(\.shelf)).sorted(by: precedes)
        #expect(byShelf.map { $0[shelf] } == shelfKeys, label)
        #expect(byShelf.map { $0[count] } == shelfKeys.map { key in books.filter { $0.shelf == key }.count }, label)
        let title = ValueColumn(\Book.title)
        let pairs = try context.fetchValues(ValuesRequest<Book>(groupBy: [shelf, title], columns: [count]))
        // By bytes: "Émile" precomposed and decomposed are two groups, though Swift's `==` equates them.
        let pairKeys = Set(books.map { [Array(($0.shelf ?? "\u{0}nil").utf8), Array($0.title.utf8)] })
        #expect(pairs.count == pairKeys.count, label)
        #expect(pairs.map { $0[count] }.reduce(0, +) == books.count, label)

        // Distinct values and selected attributes.
        let distinct = try context.distinctValues(of: \Book.title)
        let distinctTitles = Set(books.map { Array($0.title.utf8) }).map { String(decoding: $0, as: UTF8.self) }
        #expect(distinct == distinctTitles.sorted(by: precedes), label)
        let request = FetchRequest<Book>(
            predicate: \Book.pages > 300, sortDescriptors: [ObjectSortDescriptor(\Book.pages, ascending: false)],
            fetchLimit: 10)
        let selected = try context.fetchValues(\Book.pages, request)
        let longest: [Int32] = Array(books.map(\.pages).filter { $0 > 300 }.sorted(by: >).prefix(10))
        #expect(selected == longest, label)
    }

    /// `@sum`, `@avg`, `@min`, `@max` over to-many relationships in format predicates: through an
    /// inverse key (`Shelf.items`) and a join table (`Author.books`).
    static func compareCollectionAggregates(_ context: ObjectContext, _ books: [Plain], label: Comment) throws {
        func shelves(_ format: String, _ holds: ([Plain]) -> Bool) throws {
            let found = try context.fetch(FetchRequest<Shelf>(predicate: try ObjectPredicate(format: format)))
            let expected = labels.filter { label in holds(books.filter { $0.shelf == label }) }
            #expect(found.map(\.label).sorted(by: precedes) == expected.sorted(by: precedes), "\(format); \(label)")
        }
        let threshold = Double(books.count) / 5 * 450
        try shelves("items.@max.year >= 1995") { ($0.compactMap(\.year).max() ?? 0) >= 1995 }
        try shelves("items.@avg.year < 1994.5") { members in
            let years = members.compactMap(\.year)
            return !years.isEmpty && Double(years.reduce(0) { $0 + Int($1) }) / Double(years.count) < 1994.5
        }
        try shelves("items.@min.title == 'Ada'") { $0.map(\.title).min(by: precedes) == "Ada" }
        try shelves("items.@sum.year > 20000") { $0.compactMap(\.year).reduce(0) { $0 + Int($1) } > 20_000 }
        try shelves("items.@avg.year == nil") { $0.allSatisfy { $0.year == nil } }
        let authors = try context.fetch(
            FetchRequest<Author>(predicate: try ObjectPredicate(format: "books.@sum.pages > %f", threshold)))
        let expected = (0..<4).filter { author in
            Double(books.filter { $0.authors.contains(author) }.reduce(0) { $0 + Int($1.pages) }) > threshold
        }
        #expect(authors.map(\.name).sorted() == expected.map { "Author \($0)" }, label)
    }

    @Test(arguments: Backend.allCases) func misusedRequestsThrow(_ backend: Backend) throws {
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            let loose = ValuesRequest<Book>(groupBy: [ValueColumn(\Book.year)], columns: [ValueColumn(\Book.title)])
            #expect(throws: DatabaseError.self) { _ = try context.fetchValues(loose) }
            let transient = ValuesRequest<Member>(columns: [ValueColumn(\Member.isPinned)])
            #expect {
                _ = try context.fetchValues(transient)
            } throws: { error in
                (error as? DatabaseError)?.code == .misuse
            }
            // Nothing to aggregate: one row, with 0 and nil.
            let row = try context.fetchValues(
                ValuesRequest<Book>(columns: [Aggregate.sum(\Book.pages), Aggregate.max(\Book.title)]))
            let sum: Int = row[0][Aggregate.sum(\Book.pages)]
            let last: String? = row[0][Aggregate.max(\Book.title)]
            #expect(row.count == 1 && sum == 0 && last == nil)
            // A NULL where the column's type takes none (written past the CHECK constraints, as
            // another program could): an error from the fetch, not a stop when the row is read.
            if backend == .sqlite {
                try store.withConnection { connection throws(DatabaseError) in
                    try connection.execute("PRAGMA ignore_check_constraints = ON")
                    try connection.execute(
                        "INSERT INTO \"media\" (\"_entity\", \"title\", \"pages\") VALUES (\(Book.entityDescription.entityID), 'Null', NULL)"
                    )
                    try connection.execute("PRAGMA ignore_check_constraints = OFF")
                }
                #expect {
                    _ = try store.newContext().fetchValues(ValuesRequest<Book>(columns: [ValueColumn(\Book.pages)]))
                } throws: { error in
                    (error as? DatabaseError)?.code == .conversion
                }
                let years = try store.newContext().fetchValues(ValuesRequest<Book>(columns: [ValueColumn(\Book.year)]))
                #expect(years.count == 1)
                try store.withConnection { connection throws(DatabaseError) in
                    try connection.execute("DELETE FROM \"media\"")
                }
            }
            // Grouped over nothing: no rows.
            #expect(
                try context.fetchValues(ValuesRequest<Book>(groupBy: [ValueColumn(\Book.year)], columns: [])).isEmpty)
        }
    }
}
