import Foundation
import GeneratedModels
import Synchronization
import TestSupport
import Testing

@_spi(Generated) @_spi(Database) @testable import ModelGenRuntime

/// Batch delete, update and insert on `Models/Library` (Cascade: Shelf.items, Member.loans,
/// Loan.reminders; Deny: Media.loans; Nullify elsewhere, a join table for Author.books), random
/// data of several seeds: after each operation the whole store, read back through a fresh
/// context, equals what the test works out itself by applying the model's deletion rules to plain
/// values; a context holding objects sees them go or change.
@Suite struct BatchOperationTests {
    /// The library as plain values: every object by its unique name.
    struct World: Equatable {
        var shelves: Set<String> = []
        /// Media title → shelf label.
        var media: [String: String?] = [:]
        var pages: [String: Int32] = [:]
        /// Author → titles of their books.
        var authors: [String: Set<String>] = [:]
        var members: Set<String> = []
        /// Loan number → (item title, member name).
        var loans: [Int: Pair] = [:]
        /// Reminder number → loan number.
        var reminders: [Int: Int?] = [:]

        struct Pair: Equatable {
            var item: String?
            var member: String?
        }

        /// Deletes `shelves` as the rules say, or `nil` when Deny refuses (a deleted medium on loan).
        func deletingShelves(_ labels: Set<String>) -> World? {
            let gone = Set(media.filter { $0.value.map(labels.contains) ?? false }.keys)
            if loans.values.contains(where: { $0.item.map(gone.contains) ?? false }) { return nil }
            var next = self
            next.shelves.subtract(labels)
            for title in gone {
                next.media[title] = nil
                next.pages[title] = nil
            }
            for author in next.authors.keys { next.authors[author]!.subtract(gone) }
            return next
        }

        /// Deletes `members`: their loans go (Cascade), and those loans' reminders.
        func deletingMembers(_ names: Set<String>) -> World {
            var next = self
            next.members.subtract(names)
            let loans = Set(loans.filter { $0.value.member.map(names.contains) ?? false }.keys)
            return next.deletingLoans(loans)
        }

        func deletingLoans(_ numbers: Set<Int>) -> World {
            var next = self
            for number in numbers { next.loans[number] = nil }
            next.reminders = next.reminders.filter { !($0.value.map(numbers.contains) ?? false) }
            return next
        }
    }

    static func date(_ number: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(number)) }

    /// The store as `World` sees it, read through a fresh context.
    static func read(_ store: PersistentStore) throws -> World {
        let context = store.newContext()
        var world = World()
        world.shelves = Set(try context.fetchAll(Shelf.self).map(\.label))
        for medium in try context.fetchAll(Media.self) {
            world.media.updateValue(medium.shelf?.label, forKey: medium.title)
            if let book = medium as? Book { world.pages[book.title] = book.pages }
        }
        for author in try context.fetchAll(Author.self) { world.authors[author.name] = Set(author.books.map(\.title)) }
        world.members = Set(try context.fetchAll(Member.self).map(\.name))
        for loan in try context.fetchAll(Loan.self) {
            world.loans[Int(loan.due.timeIntervalSinceReferenceDate)] = .init(
                item: loan.item?.title, member: loan.member?.name)
        }
        for reminder in try context.fetchAll(Reminder.self) {
            world.reminders[Int(reminder.sent.timeIntervalSinceReferenceDate)] = reminder.loan.map {
                Int($0.due.timeIntervalSinceReferenceDate)
            }
        }
        return world
    }

    /// Rows of the Author.books join table: exactly one per link, none left over.
    static func joinRows(_ store: PersistentStore) throws -> Int {
        let storage = Author.entityDescription.relationships[Author.relationshipIndex(for: \Author.books)!].storage
        guard case .joinTable(let table, _, _, _) = storage else { return -1 }
        return try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement("SELECT count(*) FROM \(EntityDescription.quoted(table))")
            defer { statement.reset() }
            _ = try statement.step()
            return Int(statement.int64(0))
        }
    }

    /// Fills the store at random and returns what it holds.
    static func seed(_ context: ObjectContext, _ random: inout SplitMix) throws -> World {
        var world = World()
        let shelves = (0..<6).map { Shelf(in: context, label: "S\($0)") }
        world.shelves = Set(shelves.map(\.label))
        var media: [Media] = []
        for number in 0..<Int.random(in: 30...80, using: &random) {
            let isBook = number % 4 != 3
            let medium: Media =
                isBook ? Book(in: context, title: "B\(number)") : Audiobook(in: context, title: "B\(number)")
            let shelf = Int.random(in: 0...6, using: &random)
            medium.shelf = shelf < 6 ? shelves[shelf] : nil
            world.media.updateValue(medium.shelf?.label, forKey: medium.title)
            if let book = medium as? Book {
                book.pages = Int32.random(in: 1...500, using: &random)
                world.pages[book.title] = book.pages
            }
            media.append(medium)
        }
        let books = media.compactMap { $0 as? Book }
        for number in 0..<5 {
            let author = Author(in: context, name: "A\(number)")
            let written = books.filter { _ in Int.random(in: 0...3, using: &random) == 0 }
            for book in written { book.authors.append(author) }
            world.authors[author.name] = Set(written.map(\.title))
        }
        let members = (0..<8).map { Member(in: context, email: "m\($0)@example.org", name: "M\($0)") }
        world.members = Set(members.map(\.name))
        var reminderNumber = 0
        for number in 0..<Int.random(in: 5...20, using: &random) {
            let loan = Loan(in: context, due: date(number))
            loan.item = media.randomElement(using: &random)
            loan.member = members.randomElement(using: &random)
            world.loans[number] = .init(item: loan.item?.title, member: loan.member?.name)
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let reminder = Reminder(in: context, sent: date(reminderNumber))
                reminder.loan = loan
                world.reminders[reminderNumber] = number
                reminderNumber += 1
            }
        }
        try context.save()
        return world
    }

    @Test(arguments: Backend.allCases, [UInt64(1), 2, 3]) func batchDeletesApplyTheDeletionRules(
        _ backend: Backend, seed: UInt64
    ) throws {
        var random = SplitMix(seed: seed)
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            var world = try Self.seed(context, &random)
            #expect(try Self.read(store) == world)
            let holder = store.newContext()
            let held = try holder.fetchAll(Member.self)

            // Shelves: refused by Deny while a medium on them is on loan, else cascaded.
            for _ in 0..<3 {
                let labels = Set(world.shelves.filter { _ in Bool.random(using: &random) })
                let expected = world.deletingShelves(labels)
                let predicate = ObjectPredicate<Shelf>.keyPath(\Shelf.label, in: Array(labels))
                if let expected {
                    let count = try context.batchDelete(Shelf.self, where: predicate)
                    #expect(count == labels.count + world.media.count - expected.media.count)
                    world = expected
                } else {
                    #expect {
                        try context.batchDelete(Shelf.self, where: predicate)
                    } throws: { error in
                        (error as? DatabaseError)?.code == .deny
                    }
                }
                #expect(try Self.read(store) == world, "shelves \(labels.sorted())")
                #expect(try Self.joinRows(store) == world.authors.values.reduce(0) { $0 + $1.count })
            }

            // Members cascade to their loans and the loans' reminders; a context holding the
            // members sees the deleted ones go.
            let names = Set(world.members.filter { _ in Bool.random(using: &random) })
            let expected = world.deletingMembers(names)
            let count = try context.batchDelete(Member.self, where: .keyPath(\Member.name, in: Array(names)))
            #expect(
                count == names.count + world.loans.count - expected.loans.count + world.reminders.count
                    - expected.reminders.count)
            world = expected
            #expect(try Self.read(store) == world, "members \(names.sorted())")
            holder.mergeChangesFromStore()
            #expect(Set(held.filter { $0.context != nil }.map(\.name)) == world.members)
            #expect(Set(try holder.fetchAll(Member.self).map(\.name)) == world.members)

            // Now nothing is on loan on the shelves whose loans went: delete every shelf left
            // that Deny allows, then the rest of the loans, then every shelf.
            let late = Set(world.loans.keys.filter { $0 >= 3 })
            try context.batchDelete(Loan.self, where: \Loan.due >= Self.date(3))
            world = world.deletingLoans(late)
            #expect(try Self.read(store) == world)
            try context.batchDelete(Loan.self)
            world = world.deletingLoans(Set(world.loans.keys))
            try context.batchDelete(Shelf.self)
            world = world.deletingShelves(world.shelves)!
            #expect(try Self.read(store) == world)
            #expect(try Self.joinRows(store) == world.authors.values.reduce(0) { $0 + $1.count })
        }
    }

    @Test(arguments: Backend.allCases) func batchUpdatesAndInsertsCheckValuesAndReachContexts(_ backend: Backend)
        throws
    {
        var random = SplitMix(seed: 7)
        try TemporaryStore.with(LibraryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            var world = try Self.seed(context, &random)
            let holder = store.newContext()
            let books = try holder.fetchAll(Book.self)
            var heard: [ObjectsDidChange] = []
            let handle = holder.observeObjects { heard.append($0) }
            defer { handle.cancel() }

            let short = Set(world.pages.filter { $0.value < 200 }.keys)
            let updated = try context.batchUpdate(Book.self, set: [BatchValue(\.pages, 7)], where: \Book.pages < 200)
            #expect(updated == short.count)
            for title in short { world.pages[title] = 7 }
            #expect(try Self.read(store) == world)
            holder.mergeChangesFromStore()
            #expect(Dictionary(uniqueKeysWithValues: books.map { ($0.title, $0.pages) }) == world.pages)
            #expect(Set(heard.flatMap(\.updated).compactMap { ($0 as? Book)?.title }) == short)

            // Values are checked as a save checks them; nothing changes when one is refused.
            for values in [[BatchValue(\Book.title, "")], [BatchValue(\Book.year, 3000)]] {
                #expect {
                    try context.batchUpdate(Book.self, set: values)
                } throws: { error in
                    (error as? DatabaseError)?.code == .validation
                }
            }
            #expect {
                try context.batchUpdate(Member.self, set: [BatchValue(\.email, "not an address")])
            } throws: { error in
                (error as? DatabaseError)?.code == .validation
            }
            #expect(try Self.read(store) == world)

            // Inserts from values: defaults for what a row does not name.
            let ids = try context.batchInsert(
                Book.self, rows: (0..<25).map { [BatchValue(\.title, "N\($0)"), BatchValue(\.year, 1999)] })
            #expect(ids.count == 25)
            for number in 0..<25 {
                world.media.updateValue(nil, forKey: "N\(number)")
                world.pages["N\(number)"] = 0
            }
            #expect(try Self.read(store) == world)
            let inserted = try ids.map { id in try store.newContext().existingObject(with: id, as: Book.self) }
            #expect(inserted.map(\.title) == (0..<25).map { "N\($0)" } && inserted.allSatisfy { $0.year == 1999 })
            // An entity no relationship leads from (one DELETE): rows, a holding context, the log.
            let notes = try context.batchInsert(
                Note.self, rows: (0..<40).map { [BatchValue(\.text, "n\($0)"), BatchValue(\.created, Self.date($0))] })
            let heldNotes = try holder.fetchAll(Note.self)
            #expect(heldNotes.count == 40)
            let told = Mutex<[StoreChange]>([])
            let watch = store.observeChanges { change in told.withLock { $0.append(change) } }
            defer { watch.cancel() }
            let purged = try context.batchDelete(Note.self, where: \Note.created < Self.date(15))
            #expect(purged == 15)
            #expect(Set(told.withLock { $0 }.flatMap(\.deleted)) == Set(notes.prefix(15)))
            holder.mergeChangesFromStore()
            #expect(heldNotes.filter { $0.context != nil }.map(\.text) == (15..<40).map { "n\($0)" })
            #expect(try store.newContext().fetchAll(Note.self).map(\.text) == (15..<40).map { "n\($0)" })
            #expect {
                try context.batchInsert(Member.self, rows: [[BatchValue(\.name, "no email")]])
            } throws: { error in
                (error as? DatabaseError)?.code == .validation
            }
            #expect(try Self.read(store) == world)
        }
    }
}

/// Observed results hear of batch operations as of saves: inserted, updated and deleted rows.
@Suite struct BatchObservationTests {
    @Test(.timeLimit(.minutes(5)), arguments: Backend.allCases) func observedResultsFollowBatches(_ backend: Backend)
        async throws
    {
        try await TemporaryStore.with(LibraryModel.model, on: backend) { store in
            let main = store.newContext()
            var results = ResultsObservation(FetchRequest<Book>(sortDescriptors: [ObjectSortDescriptor(\Book.title)]))
                .values(in: main).makeAsyncIterator()
            #expect(try #require(try await results.next()).objects.isEmpty)
            let ids = try await store.perform { context in
                try context.batchInsert(Book.self, rows: (0..<5).map { [BatchValue(\.title, "T\($0)")] })
            }
            let inserted = try #require(try await results.next())
            #expect(inserted.objects.map(\.objectID) == ids)
            try await store.perform { context in
                try context.batchUpdate(Book.self, set: [BatchValue(\.pages, 9)], where: \Book.title >= "T3")
            }
            let updated = try #require(try await results.next())
            #expect(updated.changes.updated.map(\.item).sorted() == [3, 4])
            #expect(updated.objects.map(\.pages) == [0, 0, 0, 9, 9])
            try await store.perform { context in try context.batchDelete(Book.self, where: \Book.pages == 9) }
            let deleted = try #require(try await results.next())
            #expect(deleted.objects.map(\.title) == ["T0", "T1", "T2"])
            #expect(deleted.changes.deleted.map(\.item).sorted() == [3, 4])
        }
    }
}
