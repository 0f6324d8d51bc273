import GeneratedModels
import Testing

@_spi(Generated) @testable import ModelGenRuntime

@Suite struct IdentityMapTests {
    @Test func behavesLikeADictionaryUnderRandomInsertsAndRemovals() {
        let map = IdentityMap()
        var reference: [ObjectID: ManagedObject] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let id = ObjectID(entityID: Int32.random(in: 1...3, using: &generator), rowID: Int64.random(in: -50...500, using: &generator))
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
}
