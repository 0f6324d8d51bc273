import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// SCENARIOS.md §2, §3 and the singers of §5 on the generated classes of `Models/PersonData`,
/// `Models/Fruits` and `Models/ShipsSingersCandy`.
@Suite struct ScenarioSmallModelsTests {
    @Test(arguments: Backend.allCases) func personDataInsertUpdateDeleteBySSNAndDynamicAccess(_ backend: Backend) throws
    {
        try TemporaryStore.with(PersonDataModel.model, on: backend) { store, _ in
            let context = store.newContext()
            for (name, ssn) in [("Ada", 1), ("Bob", 2), ("Cy", 2), (nil, 3)] as [(String?, Int16)] {
                let person = Person(in: context)
                person.name = name
                person.ssn = ssn
            }
            try context.save()
            let byName = [ObjectSortDescriptor(\Person.name)]
            let people = try Person.fetch(in: context, sortedBy: byName)
            #expect(people.map(\.name) == [nil, "Ada", "Bob", "Cy"])
            people[1].name = "Ada Lovelace"
            people[1].ssn = 10
            try context.save()
            #expect(try Person.fetchPeopleWithSSN(SSN: 2, in: context).compactMap(\.name).sorted() == ["Bob", "Cy"])
            for person in try Person.fetch(in: context, where: try ObjectPredicate(format: "ssn == %@", Int16(2))) {
                context.delete(person)
            }
            try context.save()
            let fresh = store.newContext()
            #expect(try Person.fetch(in: fresh, sortedBy: byName).map(\.name) == [nil, "Ada Lovelace"])

            let ada = try #require(try Person.first(in: fresh, where: \Person.ssn == 10))
            try ada.setValue("Countess", forKey: "name")
            try ada.setValue(Int16(11), forKey: "ssn")
            #expect(try ada.value(forKey: "name") as? String == "Countess")
            #expect(try ada.value(forKey: "ssn") as? Int16 == 11)
            #expect(throws: DatabaseError.self) { try ada.setValue("eleven", forKey: "ssn") }
            #expect(throws: DatabaseError.self) { try ada.value(forKey: "age") }
            try fresh.save()
            #expect(try Person.count(in: store.newContext(), where: \Person.name == "Countess") == 1)
        }
    }

    @Test(arguments: Backend.allCases) func fruitsAddUpdateDeleteAndRefetch(_ backend: Backend) throws {
        try TemporaryStore.with(FruitsModel.model, on: backend) { store, _ in
            let context = store.newContext()
            for name in ["Apple", "", "Banana"] where !name.isEmpty {
                FruitEntity(in: context).name = name
                try context.save()
            }
            var fruits = try FruitEntity.fetch(in: context)
            #expect(fruits.map(\.name) == ["Apple", "Banana"])
            fruits[0].name = (fruits[0].name ?? "") + "!"
            try context.save()
            context.delete(fruits[1])
            try context.save()
            fruits = try FruitEntity.fetch(in: store.newContext())
            #expect(fruits.map(\.name) == ["Apple!"])
        }
    }

    /// A filtered, sorted list whose key and prefix change at run time, written once for any
    /// entity type (`%K BEGINSWITH %@`).
    static func filtered<T: FetchableObject>(_ type: T.Type, key: String, prefix: String, in context: ObjectContext)
        throws -> [T]
    {
        try T.fetch(
            in: context, where: try ObjectPredicate<T>(format: "%K BEGINSWITH[c] %@", key, prefix),
            sortedBy: [try ObjectSortDescriptor<T>(key: key)])
    }

    @Test(arguments: Backend.allCases) func singersFilteredByAKeyChosenAtRunTime(_ backend: Backend) throws {
        try TemporaryStore.with(ShipsSingersCandyModel.model, on: backend) { store, _ in
            let context = store.newContext()
            for (first, last) in [("Taylor", "Swift"), ("Tina", "Turner"), ("Ed", "Sheeran"), ("Adele", "Adkins")] {
                let singer = Singer(in: context)
                singer.firstName = first
                singer.lastName = last
            }
            try context.save()
            #expect(
                try Self.filtered(Singer.self, key: "firstName", prefix: "t", in: context).map(\.firstName) == [
                    "Taylor", "Tina",
                ])
            #expect(
                try Self.filtered(Singer.self, key: "lastName", prefix: "S", in: context).map(\.lastName) == [
                    "Sheeran", "Swift",
                ])
            #expect(throws: DatabaseError.self) {
                try Self.filtered(Singer.self, key: "nickname", prefix: "x", in: context)
            }
            let ship = Ship(in: context)
            ship.name = "Enterprise"
            try context.save()
            #expect(try Self.filtered(Ship.self, key: "name", prefix: "en", in: context).count == 1)
        }
    }
}
