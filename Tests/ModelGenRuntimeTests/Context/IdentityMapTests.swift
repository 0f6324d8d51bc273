import GeneratedModels
import Testing

@_spi(Generated) @testable import ModelGenRuntime

@Suite struct IdentityMapTests {
    /// A map holding one object of entity 1 per row of `rows` (ascending), registered at once as
    /// a fetch result is.
    static func registeredFetch(rows: StrideTo<Int64>) -> (IdentityMap, [ManagedObject]) {
        let map = IdentityMap()
        let fetched = rows.map { row in
            let object = ManagedObject()
            object.objectID = ObjectID(entityID: 1, rowID: row)
            return object
        }
        map.register(fetched: fetched)
        return (map, fetched)
    }

    @Test func behavesLikeADictionaryUnderRandomInsertsAndRemovals() {
        let map = IdentityMap()
        var reference: [ObjectID: ManagedObject] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let id = ObjectID(
                entityID: Int32.random(in: 1...3, using: &generator),
                rowID: Int64.random(in: -50...500, using: &generator))
            guard id.rowID != 0 else { continue }
            if step % 3 == 0 {
                map[id] = nil
                reference[id] = nil
            } else {
                let object = ManagedObject()
                map[id] = object
                reference[id] = object
            }
            if step % 1_000 == 0 {
                #expect(map.count == reference.count)
                for (key, value) in reference { #expect(map[key] === value) }
            }
        }
        #expect(map.count == reference.count)
        for entity in Int32(1)...3 {
            for row in Int64(-50)...500 where row != 0 {
                let id = ObjectID(entityID: entity, rowID: row)
                #expect(map[id] === reference[id])
            }
        }
    }

    /// A fetch result registered at once (consecutive rows, and rows with gaps) behaves like the
    /// same objects registered one by one, under the same random inserts, replacements and
    /// removals, including ids of other entities on the same rows.
    @Test(arguments: [1, 3])
    func aRegisteredFetchBehavesLikeSingleInserts(step: Int) {
        let (map, fetched) = Self.registeredFetch(rows: stride(from: Int64(5), to: 905, by: step))
        var reference = Dictionary(uniqueKeysWithValues: fetched.map { ($0.objectID, $0) })
        #expect(map.count == fetched.count)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5_000 {
            let id = ObjectID(
                entityID: Int32.random(in: 1...2, using: &generator),
                rowID: Int64.random(in: 1...950, using: &generator))
            if round % 3 == 0 {
                map[id] = nil
                reference[id] = nil
            } else {
                let object = ManagedObject()
                object.objectID = id
                map[id] = object
                reference[id] = object
            }
        }
        #expect(map.count == reference.count)
        for entity in Int32(1)...2 {
            for row in Int64(1)...950 {
                let id = ObjectID(entityID: entity, rowID: row)
                #expect(map[id] === reference[id], "\(id)")
            }
        }
        var seen = 0
        map.forEach { object in
            seen += 1
            #expect(reference[object.objectID] === object)
        }
        #expect(seen == reference.count)
        var removed = 0
        map.removeAll { _ in removed += 1 }
        #expect(removed == reference.count && map.isEmpty)
    }

    /// Removing a save's deleted objects at once (`remove(_:)`) forgets exactly their identities,
    /// whether they sit in the registered fetch or in the hash table, and ignores objects that
    /// are not registered.
    @Test(arguments: [1, 3])
    func removingObjectsAtOnceMatchesRemovingThemOneByOne(step: Int) {
        let (map, fetched) = Self.registeredFetch(rows: stride(from: Int64(5), to: 605, by: step))
        var reference = Dictionary(uniqueKeysWithValues: fetched.map { ($0.objectID, $0) })
        var others: [ManagedObject] = []
        for row in Int64(600)...700 {
            let object = ManagedObject()
            object.objectID = ObjectID(entityID: row % 2 == 0 ? 1 : 2, rowID: row)
            map[object.objectID] = object
            reference[object.objectID] = object
            others.append(object)
        }
        var generator = SystemRandomNumberGenerator()
        let unregistered = (0..<20).map { index in
            let object = ManagedObject()
            object.objectID = ObjectID(entityID: 3, rowID: Int64(index + 1))
            return object
        }
        let doomed = (fetched + others).filter { _ in Bool.random(using: &generator) } + unregistered
        map.remove(doomed.shuffled(using: &generator))
        for object in doomed { reference[object.objectID] = nil }
        #expect(map.count == reference.count)
        for object in fetched + others + unregistered {
            #expect(map[object.objectID] === reference[object.objectID], "\(object.objectID)")
        }
    }

    /// Rows out of order (a join table's positions) are registered one by one.
    @Test func aFetchOutOfRowOrderIsRegisteredOneByOne() {
        let map = IdentityMap()
        let objects = [7, 3, 9].map { row in
            let object = ManagedObject()
            object.objectID = ObjectID(entityID: 1, rowID: Int64(row))
            return object
        }
        map.register(fetched: objects)
        #expect(map.count == 3)
        for object in objects { #expect(map[object.objectID] === object) }
    }
}
