import Foundation
import ModelGenRuntime
import TestSupport
import Testing

/// Every store of `../shared/corpus/stores` opened read-only through the generated classes of
/// the model version that wrote it: every row of every entity, every attribute, every link both
/// ways and ordered positions equal what `StoreOracle` reads from the same file with the SQLite C
/// API and the spec alone; the anomalous stores report their anomalies.
@Suite struct CoreDataReadTests {
    @Test func everyCorpusStoreReadsAsTheSpecSays() throws {
        guard let (stores, withoutModel) = CoreDataCorpusStores.all() else { return }
        #expect(stores.count == 20)
        #expect(withoutModel == [])
        let directory = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var totals = (objects: 0, values: 0, links: 0)
        var anomalous: Set<String> = []
        for store in stores {
            let path = try store.copy(into: directory)
            let oracle = try StoreOracle(path: path, model: store.model)
            let opened = try PersistentStore(coreDataStoreAt: path, model: store.model, options: .init(readOnly: true))
            let status = try #require(opened.coreData)
            #expect(status.mismatches == [], "\(store.name)")
            if !status.report.anomalies.isEmpty { anomalous.insert(store.name) }
            let context = opened.newContext()
            for entity in store.model.entities {
                let expected = try oracle.values(of: entity)
                let fetched = try context.fetchAll(entity: entity).filter {
                    $0.objectID.entityID == entity.entityID
                }
                #expect(fetched.count == expected.count, "\(store.name): \(entity.name)")
                for object in fetched {
                    let key = object.objectID.rowID
                    guard let row = expected[key] else {
                        Issue.record("\(store.name): \(entity.name) \(key) is not in the store")
                        continue
                    }
                    totals.objects += 1
                    for attribute in entity.attributes {
                        let read = StoreOracle.canonical(try object.value(forKey: attribute.name))
                        #expect(
                            read == row[attribute.name] ?? "nil",
                            "\(store.name): \(entity.name) \(key).\(attribute.name)")
                        totals.values += 1
                    }
                    for relationship in entity.relationships {
                        let value = try object.value(forKey: relationship.name)
                        var linked: [Int64]
                        if relationship.isToMany {
                            linked = (value as? [ManagedObject] ?? []).map(\.objectID.rowID)
                        } else {
                            linked = (value as? ManagedObject).map { [$0.objectID.rowID] } ?? []
                        }
                        if !relationship.isOrdered { linked.sort() }
                        let stored = try oracle.links(of: entity, relationship, key: key)
                        #expect(linked == stored, "\(store.name): \(entity.name) \(key).\(relationship.name)")
                        totals.links += linked.count
                    }
                }
            }
        }
        print(
            "Core Data stores read: \(stores.count) stores, \(totals.objects) objects, \(totals.values) values, \(totals.links) links"
        )
        #expect(
            anomalous == [
                "ArtsyPartner_1.3.sqlite", "ArtsyPartner_1.4.sqlite", "ArtsyPartner_2.0.sqlite",
                "SampleModel_V2.sqlite",
            ])
    }
}
