import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// What a user reads in a predicate is what it selects, and what it cannot mean is refused with
/// `.predicate` (Predicates.md): string options on every operator, numbers of any type against
/// numbers of any type, invalid patterns and to-many key paths. Each expectation is written out
/// by hand from the objects the test makes.
@Suite struct PredicateContractTests {
    /// Photos titled, priced and rated as given, saved; the body gets a fresh context.
    static func withPhotos(
        _ backend: Backend, _ rows: [(title: String, camera: String?, price: String?, rating: Int16?)],
        _ body: (ObjectContext) throws -> Void
    ) throws {
        try TemporaryStore.with(GalleryModel.model, on: backend) { store, _ in
            let context = store.newContext()
            for row in rows {
                let photo = context.insert(Photo.self)
                photo.title = row.title
                photo.camera = row.camera
                photo.price = row.price.flatMap { Decimal(string: $0) }
                photo.rating = row.rating
            }
            try context.save()
            try body(store.newContext())
        }
    }

    static let rows: [(title: String, camera: String?, price: String?, rating: Int16?)] = [
        ("a", "pending", "3.49", 2), ("b", "Pending", "3.5", 3), ("c", "COMPLETED", "0.1", nil),
        ("d", "completed", nil, -1), ("e", "Cancelled", "12345678901234567890.5", 100), ("f", "café", "2", 2),
    ]

    static func titles(_ context: ObjectContext, _ format: String, _ arguments: Any?...) throws -> [String] {
        let predicate = try ObjectPredicate<Photo>(format: format, arguments: arguments)
        return try context.fetch(FetchRequest<Photo>(predicate: predicate)).map(\.title).sorted()
    }

    @Test(arguments: Backend.allCases) func inTakesStringOptions(_ backend: Backend) throws {
        try Self.withPhotos(backend, Self.rows) { (context: ObjectContext) throws in
            #expect(try Self.titles(context, "camera IN[c] %@", ["pending", "COMPLETED"]) == ["a", "b", "c", "d"])
            #expect(try Self.titles(context, "camera IN %@", ["pending", "COMPLETED"]) == ["a", "c"])
            #expect(try Self.titles(context, "camera IN[d] %@", ["cafe", "Pending"]) == ["b", "f"])
            #expect(try Self.titles(context, "camera IN[cd] %@", ["CAFE"]) == ["f"])
            #expect(try Self.titles(context, "NOT (camera IN[c] %@)", ["pending"]) == ["c", "d", "e", "f"])
        }
    }

    @Test(arguments: Backend.allCases) func orderingTakesStringOptions(_ backend: Backend) throws {
        try Self.withPhotos(backend, Self.rows) { (context: ObjectContext) throws in
            // Folded: "cancelled" < "completed" < "pending"; by bytes "COMPLETED" < "Cancelled".
            #expect(try Self.titles(context, "camera <[c] %@", "completed") == ["e", "f"])
            #expect(try Self.titles(context, "camera < %@", "Cancelled") == ["c"])
            #expect(try Self.titles(context, "camera >=[c] %@", "PENDING") == ["a", "b"])
            #expect(try Self.titles(context, "camera ==[d] %@", "cafe") == ["f"])
        }
    }

    @Test(arguments: Backend.allCases) func numbersCompareAsWritten(_ backend: Backend) throws {
        try Self.withPhotos(backend, Self.rows) { (context: ObjectContext) throws in
            // A Double literal against a Decimal attribute: the number it prints as.
            #expect(try Self.titles(context, "price == 3.49") == ["a"])
            #expect(try Self.titles(context, "price == %@", 3.49) == ["a"])
            #expect(try Self.titles(context, "price == %@", 0.1 as Float) == ["c"])
            #expect(try Self.titles(context, "price < 3.5") == ["a", "c", "f"])
            #expect(try Self.titles(context, "price > 1e300") == [])
            #expect(try Self.titles(context, "price < 1e300") == ["a", "b", "c", "e", "f"])
            #expect(try Self.titles(context, "price != %@", Double.nan) == ["a", "b", "c", "d", "e", "f"])
            // Fractions against an integer attribute: by value.
            #expect(try Self.titles(context, "rating == 2.5") == [])
            #expect(try Self.titles(context, "rating != 2.5") == ["a", "b", "c", "d", "e", "f"])
            #expect(try Self.titles(context, "rating < 2.5") == ["a", "d", "f"])
            #expect(try Self.titles(context, "rating > %@", Decimal(string: "2.5")!) == ["b", "e"])
            #expect(try Self.titles(context, "rating == %@", Decimal(2)) == ["a", "f"])
            #expect(try Self.titles(context, "rating IN %@", [2.5, 3.0]) == ["b"])
            #expect(try Self.titles(context, "rating BETWEEN %@", [-0.5, 2.5]) == ["a", "f"])
            #expect(try Self.titles(context, "rating < 1e19") == ["a", "b", "d", "e", "f"])
        }
    }

    /// Every way a predicate cannot be used throws `.predicate`, naming the key where there is one.
    @Test func refusedPredicatesThrowPredicate() throws {
        let cases: [(String, [Any?], String?)] = [
            ("nosuch == 1", [], "nosuch"),
            ("title == %@", [Date()], "title"),
            ("title MATCHES %@", ["(unclosed"], nil),
            ("title MATCHES '[a-'", [], nil),
            ("rating BEGINSWITH 'a'", [], nil),
            ("artist.nosuch == 1", [], "nosuch"),
            ("title == ", [], nil),
        ]
        for (format, arguments, property) in cases {
            let error = try #require(throws: DatabaseError.self, "\(format)") {
                try ObjectPredicate<Photo>(format: format, arguments: arguments)
            }
            #expect(error.code == .predicate, "\(format): \(error)")
            if let property { #expect(error.property == property, "\(format): \(error)") }
        }
    }

    /// A to-many relationship inside a key path needs ANY, ALL, NONE, @count or an aggregate.
    @Test func toManyKeyPathsNeedAQuantifier() throws {
        for format in ["loans.member.name == 'x'", "loans.due > %@", "authors.name BEGINSWITH 'a'"] {
            let error = try #require(throws: DatabaseError.self, "\(format)") {
                try ObjectPredicate<Book>(format: format, Date())
            }
            #expect(error.code == .predicate, "\(format): \(error)")
        }
        // With a quantifier, or counted, they are read.
        _ = try ObjectPredicate<Book>(format: "ANY loans.member.name == 'x'")
        _ = try ObjectPredicate<Book>(format: "ALL authors.name BEGINSWITH 'a'")
        _ = try ObjectPredicate<Book>(format: "loans.@count > 1")
        // A second to-many behind ANY is refused too (Core Data: multiple to-many keys).
        #expect(throws: DatabaseError.self) { try ObjectPredicate<Member>(format: "ANY loans.reminders.note == 'x'") }
    }

    /// A batch update refuses what a save refuses, with the save's code.
    @Test(arguments: Backend.allCases) func batchUpdateRefusesNaNAsASaveDoes(_ backend: Backend) throws {
        try Self.withPhotos(backend, Self.rows) { (context: ObjectContext) throws in
            let photo = try #require(try context.fetch(FetchRequest<Photo>()).first)
            photo.exposure = .nan
            let saveError = try #require(throws: DatabaseError.self) { try context.save() }
            context.rollback()
            for value in [Double.nan, -0.0] {
                let batchError = try #require(throws: DatabaseError.self) {
                    try context.batchUpdate(Photo.self, set: [BatchValue(\.exposure, value)])
                }
                #expect(batchError.code == saveError.code && batchError.code == .validation, "\(batchError)")
            }
        }
    }
}
