import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// SCENARIOS.md §5 on the generated classes of `Models/ShipsSingersCandy`: the sorted wrapper,
/// uniqueness merge policies, and every listed predicate as a format string and as a typed
/// predicate, with the same results.
@Suite struct ScenarioCandyShipsTests {
    static func withStore(_ backend: Backend, _ body: (PersistentStore, TemporaryStore.Location) throws -> Void) throws
    {
        try TemporaryStore.with(ShipsSingersCandyModel.model, on: backend, body)
    }

    /// Inserts candy that each creates its country anew, as the tutorial does.
    static func addCandy(_ names: [String], in context: ObjectContext) {
        for name in names {
            let candy = Candy(in: context)
            candy.name = name
            let country = Country(in: context, shortName: "UK")
            country.fullName = "United Kingdom"
            candy.origin = country
        }
    }

    @Test(arguments: Backend.allCases) func theDefaultPolicyFailsTheWholeSaveAndStoresNothing(_ backend: Backend) throws
    {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            Self.addCandy(["Wine Gums", "Fruit Pastilles"], in: context)
            let error = try #require(throws: DatabaseError.self) { try context.save() }
            #expect(error.code == .uniqueness)
            #expect(error.entity == "Country")
            #expect(error.property == "shortName")
            #expect(
                try LibraryRelationshipTests.rows(
                    path, #"SELECT (SELECT count(*) FROM "country"), (SELECT count(*) FROM "candy")"#) == [["0", "0"]])
            #expect(context.hasChanges)
        }
    }

    @Test(arguments: Backend.allCases) func objectTrumpMergesInsertsAndTakesOverTheStoredRow(_ backend: Backend) throws
    {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            context.mergePolicy = .objectTrump
            Self.addCandy(["Wine Gums", "Fruit Pastilles"], in: context)
            try context.save()
            #expect(
                try LibraryRelationshipTests.rows(path, #"SELECT "short_name", "full_name" FROM "country""#) == [
                    ["UK", "United Kingdom"]
                ])
            let uk = try #require(try Country.find(shortName: "UK", in: context))
            #expect(uk.candyArray.map(\.name) == ["Fruit Pastilles", "Wine Gums"])

            // A later context creating "UK" again takes over the stored row; its values win.
            let later = store.newContext()
            later.mergePolicy = .objectTrump
            let candy = Candy(in: later)
            candy.name = "Sherbet Lemons"
            let again = Country(in: later, shortName: "UK")
            again.fullName = "Britain"
            candy.origin = again
            try later.save()
            #expect(
                try LibraryRelationshipTests.rows(path, #"SELECT "short_name", "full_name" FROM "country""#) == [
                    ["UK", "Britain"]
                ])
            #expect(again.candyArray.map(\.name) == ["Fruit Pastilles", "Sherbet Lemons", "Wine Gums"])
            let fresh = store.newContext()
            #expect(try Country.find(shortName: "UK", in: fresh)?.candy.count == 3)
        }
    }

    @Test(arguments: Backend.allCases) func storeTrumpKeepsTheStoredValues(_ backend: Backend) throws {
        try Self.withStore(backend) { store, path in
            let context = store.newContext()
            Self.addCandy(["Wine Gums"], in: context)
            try context.save()
            let later = store.newContext()
            later.mergePolicy = .storeTrump
            let candy = Candy(in: later)
            candy.name = "Toffee"
            let again = Country(in: later, shortName: "UK")
            again.fullName = "Britain"
            candy.origin = again
            try later.save()
            #expect(
                try LibraryRelationshipTests.rows(path, #"SELECT "short_name", "full_name" FROM "country""#) == [
                    ["UK", "United Kingdom"]
                ])
            #expect(
                try LibraryRelationshipTests.rows(path, #"SELECT count(*) FROM "candy" WHERE "origin_pk" IS NOT NULL"#)
                    == [["2"]])
        }
    }

    @Test(arguments: Backend.allCases) func changingAnObjectOntoAnotherRowsUniqueValueIsAUniquenessError(
        _ backend: Backend
    ) throws {
        try Self.withStore(backend) { store, _ in
            let context = store.newContext()
            _ = Country(in: context, shortName: "UK")
            let france = Country(in: context, shortName: "FR")
            try context.save()
            france.shortName = "UK"
            let error = try #require(throws: DatabaseError.self) { try context.save() }
            #expect(error.code == .uniqueness)
        }
    }

    @Test(arguments: Backend.allCases) func shipPredicatesGiveTheSameResultsAsFormatStringsAndTyped(_ backend: Backend)
        throws
    {
        try Self.withStore(backend) { store, _ in
            let context = store.newContext()
            for (name, universe) in [
                ("Enterprise", "Star Trek"), ("Executor", "Star Wars"), ("Millennium Falcon", "Star Wars"),
                ("Serenity", "Firefly"), ("excalibur", "Babylon 5"), ("Defiant", "Star Trek"),
                ("Galactica", "Battlestar"),
            ] {
                let ship = Ship(in: context)
                ship.name = name
                ship.universe = universe
            }
            try context.save()
            let universes = ["Star Wars", "Firefly", "Babylon 5"]
            let cases: [(String, [Any?], ObjectPredicate<Ship>)] = [
                ("universe == \"Star Wars\"", [], \Ship.universe == "Star Wars"),
                ("universe == %@", ["Star Trek"], \Ship.universe == "Star Trek"),
                ("name < \"F\"", [], \Ship.name < "F"),
                ("universe IN %@", [universes], .keyPath(\Ship.universe, in: universes)),
                ("name BEGINSWITH \"E\"", [], .beginsWith(\Ship.name, "E")),
                ("name BEGINSWITH[c] \"e\"", [], .beginsWith(\Ship.name, "e", caseInsensitive: true)),
                ("NOT name BEGINSWITH[c] \"e\"", [], !.beginsWith(\Ship.name, "e", caseInsensitive: true)),
                (
                    "universe BEGINSWITH \"Star\" AND name < \"F\" AND NOT universe == %@", ["Star Trek"],
                    .beginsWith(\Ship.universe, "Star") && \Ship.name < "F" && !(\Ship.universe == "Star Trek")
                ),
            ]
            for (format, arguments, typed) in cases {
                let byFormat = try Ship.fetch(
                    in: context, where: try ObjectPredicate<Ship>(format: format, arguments: arguments),
                    sortedBy: [ObjectSortDescriptor(\Ship.name)])
                let byType = try Ship.fetch(in: context, where: typed, sortedBy: [ObjectSortDescriptor(\Ship.name)])
                #expect(!byFormat.isEmpty, "\(format)")
                #expect(byFormat.map(\.name) == byType.map(\.name), "\(format)")
            }
            #expect(try Ship.fetchShipsInUniverse(UNIVERSE: "Star Wars", in: context).count == 2)
        }
    }
}
