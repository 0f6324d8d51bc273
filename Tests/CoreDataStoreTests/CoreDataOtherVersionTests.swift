import CDArtsyFolio14
import CDArtsyFolio15
import CDArtsyFolio20
import CDArtsyFolio23
import CDArtsyPartner5
import CDBookmarks1
import CDBookmarks2
import CDBookmarks3
import CDBookmarks4
import CDBookmarks5
import CDSampleModel
import CDSampleModel2
import CDXCServer120
import CDXCServer200
import CDXCServer201
import Foundation
import ModelGenRuntime
import Testing

/// Every corpus store opened read-only with the generated classes of every other version of its
/// bundle that has them: entities are matched by name (`Z_PRIMARYKEY.Z_NAME`), so no row is ever
/// returned as another entity's; every object of each entity is the store's row of that entity,
/// every attribute both versions keep (same column, same declared type) equals the value read raw,
/// every link the oracle finds is the one returned, and what the versions do not share is listed.
@Suite struct CoreDataOtherVersionTests {
    static let families: [[PersistentStore.Model]] = [
        [
            CDBookmarks1.BookmarksModelModel.model, CDBookmarks2.BookmarksModelModel.model,
            CDBookmarks3.BookmarksModelModel.model, CDBookmarks4.BookmarksModelModel.model,
            CDBookmarks5.BookmarksModelModel.model,
        ],
        [
            CDArtsyPartner5.ArtsyPartnerModel.model, CDArtsyFolio14.ArtsyPartnerModel.model,
            CDArtsyFolio15.ArtsyPartnerModel.model, CDArtsyFolio20.ArtsyPartnerModel.model,
            CDArtsyFolio23.ArtsyPartnerModel.model,
        ],
        [
            CDXCServer120.XCServerCoreDataModel.model, CDXCServer200.XCServerCoreDataModel.model,
            CDXCServer201.XCServerCoreDataModel.model,
        ],
        [CDSampleModel.SampleModelModel.model, CDSampleModel2.SampleModelModel.model],
    ]

    /// The same version: the same entities, attributes and fingerprint.
    static func isSame(_ a: PersistentStore.Model, _ b: PersistentStore.Model) -> Bool {
        a.coreDataFingerprint == b.coreDataFingerprint
            && a.entities.map { [$0.name] + $0.attributes.map(\.name) + $0.relationships.map(\.name) }
                == b.entities.map { [$0.name] + $0.attributes.map(\.name) + $0.relationships.map(\.name) }
    }

    @Test func anotherVersionReadsWhatBothShareAndNoRowAsAnotherClass() throws {
        guard let (stores, _) = CoreDataCorpusStores.all() else { return }
        let directory = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var totals = (pairs: 0, objects: 0, values: 0, links: 0, unshared: 0)
        for store in stores {
            guard let family = Self.families.first(where: { $0.contains { Self.isSame($0, store.model) } }) else {
                continue
            }
            let path = try store.copy(into: directory)
            for model in family where !Self.isSame(model, store.model) {
                totals.pairs += 1
                let oracle = try StoreOracle(path: path, model: model, byStoreNames: true)
                let opened = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
                let status = try #require(opened.coreData)
                totals.unshared += status.mismatches.count
                let context = opened.newContext()
                let label = "\(store.name) as \(model.name) \(model.coreDataFingerprint ?? "")"
                for entity in model.entities {
                    let expected = try oracle.values(of: entity)
                    let fetched = try context.fetchAll(entity: entity).filter {
                        $0.objectID.entityID == entity.entityID
                    }
                    #expect(
                        Set(fetched.map(\.objectID.rowID)) == Set(expected.keys), "\(label): rows of \(entity.name)")
                    let shared = oracle.sharedAttributes(of: entity)
                    for object in fetched {
                        guard let row = expected[object.objectID.rowID] else { continue }
                        totals.objects += 1
                        for attribute in shared {
                            let read = StoreOracle.canonical(try object.value(forKey: attribute.name))
                            let stored = row[attribute.name] ?? "nil"
                            // NULL in an attribute this version requires reads as its type's zero.
                            if stored == "nil", !attribute.isOptional, ["", "0", "0.0", "false"].contains(read) {
                                continue
                            }
                            #expect(
                                read == stored,
                                "\(label): \(entity.name) \(object.objectID.rowID).\(attribute.name)")
                            totals.values += 1
                        }
                        for relationship in entity.relationships {
                            guard
                                let stored = try oracle.links(
                                    of: entity, relationship, key: object.objectID.rowID)
                            else { continue }
                            let value = try object.value(forKey: relationship.name)
                            var linked =
                                relationship.isToMany
                                ? (value as? [ManagedObject] ?? []).map(\.objectID.rowID)
                                : (value as? ManagedObject).map { [$0.objectID.rowID] } ?? []
                            if !relationship.isOrdered { linked.sort() }
                            #expect(
                                linked == stored,
                                "\(label): \(entity.name) \(object.objectID.rowID).\(relationship.name)")
                            totals.links += linked.count
                        }
                    }
                }
            }
        }
        print(
            "other versions: \(totals.pairs) store/version pairs, \(totals.objects) objects, \(totals.values) shared values, \(totals.links) links equal to raw SQL; \(totals.unshared) differences listed"
        )
        #expect(totals.pairs >= 40)
        #expect(totals.objects > 0)
    }
}
