import Foundation
import ModelGenRuntime
import Testing

@testable import ModelGenCore

/// A uniqueness constraint that names a to-one relationship (`Pet` unique by owner and name,
/// `Seat` by its event alone): the runtime enforces it as it does attribute constraints — the
/// error policy refuses a save naming the properties, the merge policies fold duplicates, in
/// one context and against stored rows — and the generated code has a `find` for it.
@Suite struct UniqueToOneTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Owner" representedClassName="Owner" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="pets" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>
            </entity>
            <entity name="Pet" representedClassName="Pet" codeGenerationType="class">
                <attribute name="name" attributeType="String"/>
                <attribute name="age" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="pets" inverseEntity="Owner"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="owner"/><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
            <entity name="Event" representedClassName="Event" codeGenerationType="class">
                <relationship name="seats" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Seat" inverseName="event" inverseEntity="Seat"/>
            </entity>
            <entity name="Seat" representedClassName="Seat" codeGenerationType="class">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="event" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Event" inverseName="seats" inverseEntity="Event"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="event"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
        </model>
        """

    struct Zoo {
        let shop: RuntimeTrustTests.Shop

        init?(_ backend: OracleBackend) throws {
            guard let shop = try RuntimeTrustTests.Shop(backend, name: "Zoo", xml: UniqueToOneTests.xml) else {
                return nil
            }
            self.shop = shop
        }

        func pet(_ context: ObjectContext, _ name: String, _ owner: ManagedObject?, age: Int32? = nil) throws
            -> ManagedObject
        {
            try shop.insert(context, "Pet", ["name": name, "owner": owner, "age": age])
        }

        /// Every stored pet as (owner's name, pet's name, age), read raw from a new context.
        func storedPets() throws -> [String] {
            let context = shop.store.newContext()
            return try withExtendedLifetime(context) {
                try shop.fetch(context, "Pet").objects.map { pet in
                    let owner = try (pet.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String
                    let age = try pet.value(forKey: "age") as? Int32
                    return
                        "\(owner ?? "-")/\(try pet.value(forKey: "name") as? String ?? "?")/\(age.map(String.init) ?? "-")"
                }.sorted()
            }
        }
    }

    @Test(arguments: OracleBackend.allCases) func theErrorPolicyRefusesADuplicateNamingItsProperties(
        _ backend: OracleBackend
    ) throws {
        guard let zoo = try Zoo(backend) else { return }
        defer { zoo.shop.cleanup() }
        let context = zoo.shop.store.newContext()
        let ada = try zoo.shop.insert(context, "Owner", ["name": "Ada"])
        let bob = try zoo.shop.insert(context, "Owner", ["name": "Bob"])
        _ = try zoo.pet(context, "Rex", ada)
        _ = try zoo.pet(context, "Rex", bob)  // another owner: no collision
        _ = try zoo.pet(context, "Rex", nil)  // no owner: never collides (NULL)
        _ = try zoo.pet(context, "Rex", nil)
        try context.save()
        let pets1 = try zoo.storedPets()
        #expect(pets1 == ["-/Rex/-", "-/Rex/-", "Ada/Rex/-", "Bob/Rex/-"], "\(pets1)")

        // In one context, unsaved.
        let twin = try zoo.pet(context, "Max", ada)
        _ = try zoo.pet(context, "Max", ada)
        let inMemory = try #require(throws: DatabaseError.self) { try context.save() }
        #expect(inMemory.code == .uniqueness)
        #expect(inMemory.message.contains("name, owner") && inMemory.message.contains("\"Max\""), "\(inMemory)")
        #expect(inMemory.entity == "Pet" && inMemory.property == "name", "\(inMemory)")
        context.delete(twin)
        try context.save()

        // Against a stored row, from another context.
        let other = zoo.shop.store.newContext()
        let storedAda = try #require(try zoo.shop.fetch(other, "Owner", "name == 'Ada'").objects.first)
        _ = try zoo.pet(other, "Rex", storedAda)
        let stored = try #require(throws: DatabaseError.self) { try other.save() }
        #expect(stored.code == .uniqueness && stored.message.contains("name, owner"), "\(stored)")
        let pets2 = try zoo.storedPets()
        #expect(pets2 == ["-/Rex/-", "-/Rex/-", "Ada/Max/-", "Ada/Rex/-", "Bob/Rex/-"], "\(pets2)")

        // A to-one alone: two seats of one event collide; moving one away resolves it.
        let event = try zoo.shop.insert(context, "Event")
        let first = try zoo.shop.insert(context, "Seat", ["label": "A", "event": event])
        let second = try zoo.shop.insert(context, "Seat", ["label": "B", "event": event])
        #expect(throws: DatabaseError.self) { try context.save() }
        try second.setValue(nil, forKey: "event")
        try context.save()
        #expect(try first.value(forKey: "event") as? ManagedObject === event)
    }

    @Test(arguments: OracleBackend.allCases) func mergePoliciesFoldDuplicatesByOwnerAndName(_ backend: OracleBackend)
        throws
    {
        guard let zoo = try Zoo(backend) else { return }
        defer { zoo.shop.cleanup() }
        let setup = zoo.shop.store.newContext()
        let ada = try zoo.shop.insert(setup, "Owner", ["name": "Ada"])
        _ = try zoo.pet(setup, "Rex", ada, age: 3)
        try setup.save()

        // objectTrump: two unsaved duplicates become one, and it takes over the stored row with
        // its own values.
        let trump = zoo.shop.store.newContext()
        trump.mergePolicy = .objectTrump
        let owner = try #require(try zoo.shop.fetch(trump, "Owner").objects.first)
        _ = try zoo.pet(trump, "Rex", owner, age: 7)
        _ = try zoo.pet(trump, "Rex", owner, age: 7)
        _ = try zoo.pet(trump, "Tom", owner, age: 1)
        try trump.save()
        let pets3 = try zoo.storedPets()
        #expect(pets3 == ["Ada/Rex/7", "Ada/Tom/1"], "\(pets3)")

        // storeTrump: the stored row's values win.
        let store = zoo.shop.store.newContext()
        store.mergePolicy = .storeTrump
        let sameOwner = try #require(try zoo.shop.fetch(store, "Owner").objects.first)
        _ = try zoo.pet(store, "Tom", sameOwner, age: 9)
        try store.save()
        let pets4 = try zoo.storedPets()
        #expect(pets4 == ["Ada/Rex/7", "Ada/Tom/1"], "\(pets4)")
    }

    /// The generated class has a `find` that takes the owner object and the name.
    @Test func theGeneratedCodeHasAFindByOwnerAndName() throws {
        let engine = DiagnosticEngine()
        var model = try #require(
            FrontEnd().run(
                SourceFile(path: "Zoo.xcdatamodel/contents", bytes: Array(Self.xml.utf8)), diagnostics: engine))
        model.modelName = "Zoo"
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        let files = try SwiftGenerator(options: SwiftGenerationOptions(sourceName: "Zoo")).generate(
            model: model, schema: schema)
        let pet = try #require(files.first { $0.name == "Pet.swift" }?.contents)
        #expect(pet.contains("static func find(owner: Owner, name: String, in objectContext: ObjectContext)"), "\(pet)")
        #expect(pet.contains("ObjectPredicate<Pet>.identity(\\Pet.owner, owner) && \\Pet.name == name"), "\(pet)")
        #expect(
            pet.contains("uniquenessConstraints: [UniquenessConstraint(attributes: [0], relationships: [0])]"), "\(pet)"
        )
        let seat = try #require(files.first { $0.name == "Seat.swift" }?.contents)
        #expect(seat.contains("static func find(event: Event, in objectContext: ObjectContext)"), "\(seat)")
    }
}
