import Foundation
import ModelGenRuntime
import Synchronization
import TestSupport
import Testing

@testable import ModelGenCore

/// `relationshipKeyPathsForPrefetching`: on random stores (several seeds and sizes) of a model with
/// every kind of storage — an ordered one-to-many, a one-to-one read from both sides, a
/// many-to-many ordered on one side, a to-one of a to-many's destinations — a fetch reads each
/// relationship of its key paths in one query whatever the number of objects (counted through
/// the store's trace), after which following them costs no query, and leads exactly where the
/// links were made (computed from the seed, not read back).
@Suite struct PrefetchTests {
    static let model = modelDocument(
        """
            <entity name="Owner">
                <attribute name="name" attributeType="String"/>
                <relationship name="passport" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Passport" inverseName="holder" inverseEntity="Passport"/>
                <relationship name="pets" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>
                <relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="owners" inverseEntity="Tag"/>
            </entity>
            <entity name="Passport">
                <attribute name="name" attributeType="String"/>
                <relationship name="holder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="passport" inverseEntity="Owner"/>
            </entity>
            <entity name="Pet">
                <attribute name="name" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="pets" inverseEntity="Owner"/>
                <relationship name="vet" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Vet" inverseName="patients" inverseEntity="Vet"/>
            </entity>
            <entity name="Tag">
                <attribute name="name" attributeType="String"/>
                <relationship name="owners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Owner" inverseName="tags" inverseEntity="Owner"/>
            </entity>
            <entity name="Vet">
                <attribute name="name" attributeType="String"/>
                <relationship name="patients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="vet" inverseEntity="Pet"/>
            </entity>
        """)

    /// A random store's objects and, by object name, where each relationship leads (names; in
    /// order for ordered relationships, sorted for the others), and each name's entity.
    struct World {
        var objects: [RuntimeSeeder.Object] = []
        var names: [String] = []
        var entityOf: [String: String] = [:]
        var expected: [String: [String: [String]]] = [:]
    }

    static let keysOf = [
        "Owner": ["pets", "passport", "tags"], "Pet": ["owner", "vet"], "Passport": ["holder"], "Tag": ["owners"],
        "Vet": ["patients"],
    ]
    static let inverseOf = ["pets": "owner", "passport": "holder", "tags": "owners", "vet": "patients"]

    static func world(seed: UInt64, owners: Int) -> World {
        var random = OracleRandom(seed: seed)
        var world = World()
        func add(_ entity: String, _ name: String) -> Int {
            world.objects.append(RuntimeSeeder.Object(entity, ["name": .text(name)]))
            world.names.append(name)
            world.entityOf[name] = entity
            world.expected[name] = Dictionary(uniqueKeysWithValues: keysOf[entity]!.map { ($0, []) })
            return world.objects.count - 1
        }
        // Links are made from one side; the expected inverse is worked out from them.
        func link(_ from: Int, _ key: String, _ to: [Int]) {
            world.objects[from].links[key] = to
            world.expected[world.names[from]]![key] = to.map { world.names[$0] }
            for target in to { world.expected[world.names[target]]![inverseOf[key]!]!.append(world.names[from]) }
        }
        let vets = (0..<max(1, owners / 10)).map { add("Vet", "vet\($0)") }
        let tags = (0..<max(2, owners / 5)).map { add("Tag", "tag\($0)") }
        var petNumber = 0
        for number in 0..<owners {
            let owner = add("Owner", "owner\(number)")
            var pets: [Int] = []
            for _ in 0..<random.below(4) {
                let pet = add("Pet", "pet\(petNumber)")
                petNumber += 1
                if random.chance(80) { link(pet, "vet", [vets[random.below(vets.count)]]) }
                pets.append(pet)
            }
            if !pets.isEmpty { link(owner, "pets", pets) }
            if random.chance(60) { link(owner, "passport", [add("Passport", "passport\(number)")]) }
            var chosen: [Int] = []
            for _ in 0..<random.below(4) {
                let tag = tags[random.below(tags.count)]
                if !chosen.contains(tag) { chosen.append(tag) }
            }
            if !chosen.isEmpty { link(owner, "tags", chosen) }
        }
        // Objects without links.
        _ = add("Pet", "stray")
        _ = add("Passport", "unclaimed")
        for name in world.expected.keys {
            for key in ["owners", "patients"] where world.expected[name]![key] != nil {
                world.expected[name]![key]!.sort()
            }
        }
        return world
    }

    /// Where `object`'s relationships lead, by name, as `expected` holds them.
    static func read(_ object: ManagedObject, _ keys: [String], orderedKeys: Set<String>) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for key in keys {
            let value = try object.value(forKey: key)
            let targets = (value as? [ManagedObject]) ?? [(value as? ManagedObject)].compactMap { $0 }
            let names = try targets.map { try $0.value(forKey: "name") as? String ?? "?" }
            result[key] = orderedKeys.contains(key) ? names : names.sorted()
        }
        return result
    }

    @Test(arguments: OracleBackend.allCases, [(UInt64(1), 20), (2, 150), (3, 600)])
    func eachRelationshipIsOneQueryAndLeadsWhereItWasLinked(_ backend: OracleBackend, _ run: (UInt64, Int)) throws {
        let (seed, owners) = run
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: "Pets", bytes: Array(Self.model.utf8)), diagnostics: engine))
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        let world = Self.world(seed: seed, owners: owners)
        guard let (place, cleanup) = try backend.place() else { return }
        defer { cleanup() }
        let location = try place.store("prefetch_\(seed)")
        defer { location.remove() }
        try RuntimeSeeder.seed(world.objects, model: model, schema: schema) { try location.open($0) }

        let store = try location.open(RuntimeSeeder.runtimeModel(model, schema))
        let statements = Mutex<[String]>([])
        store.trace = { event in statements.withLock { $0.append(event.sql) } }
        func type(_ name: String) throws -> any DynamicFetching.Type {
            try #require(store.model.entities.first { $0.name == name }?.objectType as? any DynamicFetching.Type)
        }
        let cases: [(entity: String, prefetch: [String], follow: [String: [String]])] = [
            (
                "Owner", ["pets", "pets.vet", "passport", "tags"],
                ["Owner": ["pets", "passport", "tags"], "Pet": ["vet"]]
            ),
            ("Pet", ["owner.passport", "vet"], ["Pet": ["owner", "vet"], "Owner": ["passport"]]),
            ("Passport", ["holder"], ["Passport": ["holder"]]),
            ("Tag", ["owners"], ["Tag": ["owners"]]),
            ("Vet", ["patients", "patients.owner"], ["Vet": ["patients"], "Pet": ["owner"]]),
        ]
        for (entity, prefetch, follow) in cases {
            let context = store.newContext()
            statements.withLock { $0.removeAll() }
            let objects = try type(entity).fetch(context, prefetching: prefetch)
            let relationships = Set(
                prefetch.flatMap { path in
                    path.split(separator: ".").indices.map { path.split(separator: ".")[...$0].joined(separator: ".") }
                })
            let queries = statements.withLock { $0 }
            #expect(
                queries.count == 1 + relationships.count,
                "\(entity) \(prefetch): \(queries.count) statements:\n\(queries.joined(separator: "\n"))")
            #expect(objects.count == world.objects.filter { $0.entity == entity }.count)
            // Following the prefetched relationships reads nothing more, and finds the links.
            statements.withLock { $0.removeAll() }
            var reached: [ManagedObject] = objects
            var visited = Set<ObjectIdentifier>()
            while let object = reached.popLast() {
                guard visited.insert(ObjectIdentifier(object)).inserted else { continue }
                let name = try #require(try object.value(forKey: "name") as? String)
                let objectEntity = try #require(world.entityOf[name])
                // Along the key paths only: `follow` names what each entity's objects lead on to.
                guard let keys = follow[objectEntity] else { continue }
                let found = try Self.read(object, keys, orderedKeys: ["pets", "tags"])
                #expect(
                    found == world.expected[name]!.filter { keys.contains($0.key) }, "\(entity) \(prefetch): \(name)")
                for key in keys {
                    let value = try object.value(forKey: key)
                    reached += (value as? [ManagedObject]) ?? [(value as? ManagedObject)].compactMap { $0 }
                }
            }
            #expect(
                statements.withLock { $0 }.isEmpty,
                "\(entity) \(prefetch): following read \(statements.withLock { $0 })")
        }
        // An unsaved move of a pet to another owner: prefetching in that context sees it, as
        // reading the relationships one by one does.
        let context = store.newContext()
        let pets = try type("Pet").fetch(context, prefetching: [])
        let moved = try #require(
            try pets.first { try $0.value(forKey: "owner") != nil && ($0.value(forKey: "name") as? String) != "stray" })
        let from = try #require(try moved.value(forKey: "owner") as? ManagedObject)
        let everyOwner = try type("Owner").fetch(context, prefetching: [])
        let to = try #require(everyOwner.first { $0 !== from })
        try moved.setValue(to, forKey: "owner")
        let refetched = try type("Owner").fetch(context, prefetching: ["pets"])
        #expect(refetched.contains { $0 === from } && refetched.contains { $0 === to })
        #expect(try !((from.value(forKey: "pets") as? [ManagedObject]) ?? []).contains { $0 === moved })
        #expect(try ((to.value(forKey: "pets") as? [ManagedObject]) ?? []).contains { $0 === moved })
        // A name that is no relationship is refused.
        #expect {
            _ = try type("Owner").fetch(store.newContext(), prefetching: ["pets.nope"])
        } throws: { error in
            (error as? DatabaseError)?.code == .unknownKey && "\(error)".contains("nope")
        }
    }
}
