import Foundation
import ModelGenRuntime
import Testing

/// STORE-LAYOUT.md §8.1 T6 and T7 on a copy of every corpus store, through the generated classes
/// and nothing store-specific: one new object of each concrete entity with every attribute set,
/// one link of every relationship (to-one, one-to-one, ordered and unordered to-many,
/// many-to-many, inverse-less), one existing object updated and one deleted. Then `Z_MAX` of each
/// root is its old value (or the old largest `Z_PK` where that was larger) plus the rows added,
/// new rows have `Z_OPT` 1 and their entity's `Z_ENT`, the updated row's `Z_OPT` moved by one,
/// the invariants hold (on the three inconsistent stores: no violation that was not there
/// before), `integrity_check` passes, `Z_METADATA` is unchanged, and a second open reads back every
/// value and link written.
@Suite struct CoreDataEveryStoreWriteTests {
    @Test func everyCorpusStoreTakesWritesOfEveryKind() throws {
        guard let (stores, _) = CoreDataCorpusStores.all() else { return }
        let directory = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var inserted = 0
        for store in stores {
            inserted += try write(store, in: directory)
        }
        print("Core Data writes: \(stores.count) stores, \(inserted) objects inserted with every attribute and link")
        #expect(inserted > 150)
    }

    /// Writes into a copy of `store`; the number of objects inserted.
    func write(_ store: CoreDataCorpusStores.Store, in directory: URL) throws -> Int {
        let path = try store.copy(into: directory)
        let model = store.model
        let before = try StoreOracle(path: path, model: model)
        let violationsBefore = Set(try before.invariantViolations())
        let metadata = try before.metadata()
        var keyFloor: [String: Int64] = [:]
        for entity in model.entities where before.roots[entity.entityID]?.entityID == entity.entityID {
            let table = before.table(of: entity)
            let number = before.numbers[entity.entityID]!
            keyFloor[table] = max(
                try before.integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(number)") ?? 0,
                try before.integer("SELECT coalesce(max(Z_PK), 0) FROM \(table)") ?? 0)
        }
        let opened = try PersistentStore(coreDataStoreAt: path, model: model)
        let context = opened.newContext()
        // One new object per concrete entity, every attribute set.
        var fresh: [Int32: ManagedObject] = [:]
        var counter = 0
        for entity in model.entities where !entity.isAbstract {
            guard let type = entity.objectType else { continue }
            let object = type.init()
            context.insert(object)
            for attribute in entity.attributes where attribute.conversion == nil {
                counter += 1
                if let value = Self.value(for: attribute, counter) {
                    try object.setValue(value, forKey: attribute.name)
                }
            }
            fresh[entity.entityID] = object
        }
        // One link of every relationship, between new objects.
        for entity in model.entities where !entity.isAbstract {
            guard let object = fresh[entity.entityID] else { continue }
            for relationship in entity.relationships {
                guard let destination = Self.newObject(fetching: relationship.destinationEntityID, model, fresh) else {
                    continue
                }
                try object.setValue(relationship.isToMany ? [destination] : destination, forKey: relationship.name)
            }
        }
        // One existing object updated.
        var updated: (object: ManagedObject, table: String, version: Int64)?
        for entity in model.entities {
            guard let attribute = entity.attributes.first(where: { $0.type == .string && $0.conversion == nil }),
                let object = try context.fetchAll(entity: entity).first(where: {
                    $0.objectID.entityID == entity.entityID
                })
            else { continue }
            try object.setValue("updated \(store.name)", forKey: attribute.name)
            let table = before.table(of: entity)
            updated = (
                object, table,
                try before.integer("SELECT Z_OPT FROM \(table) WHERE Z_PK = ?", [object.objectID.rowID]) ?? 0
            )
            break
        }
        try context.save()
        // One existing object deleted (one no Deny rule keeps), in a save of its own.
        let deleted = try deleteOne(context, model, keeping: Array(fresh.values) + [updated?.object].compactMap { $0 })
            .map { (key: $0.objectID.rowID, table: before.table(of: $1)) }

        let after = try StoreOracle(path: path, model: model)
        let name = store.name
        #expect(try after.integrity() == "ok", "\(name)")
        #expect(try after.metadata() == metadata, "\(name)")
        let violations = Set(try after.invariantViolations())
        #expect(
            violations.subtracting(violationsBefore).isEmpty,
            "\(name): \(violations.subtracting(violationsBefore).sorted())")
        for (id, object) in fresh {
            let entity = model.entities.first { $0.entityID == id }!
            let table = after.table(of: entity)
            let key = object.objectID.rowID
            #expect(key > keyFloor[table] ?? 0, "\(name): \(entity.name) got key \(key)")
            #expect(
                try after.integer("SELECT Z_OPT FROM \(table) WHERE Z_PK = ?", [key]) == 1, "\(name): \(entity.name)")
            #expect(
                try after.integer("SELECT Z_ENT FROM \(table) WHERE Z_PK = ?", [key]) == Int64(after.numbers[id]!),
                "\(name): \(entity.name)")
        }
        for (table, floor) in keyFloor {
            let added = fresh.values.filter { object in
                after.table(of: model.entities.first { $0.entityID == object.objectID.entityID }!) == table
            }.count
            guard added > 0 else { continue }
            let root = model.entities.first {
                after.roots[$0.entityID]?.entityID == $0.entityID && after.table(of: $0) == table
            }!
            #expect(
                try after.integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(after.numbers[root.entityID]!)")
                    == floor + Int64(added), "\(name): \(table)")
        }
        if let updated {
            #expect(
                try after.integer("SELECT Z_OPT FROM \(updated.table) WHERE Z_PK = ?", [updated.object.objectID.rowID])
                    == updated.version + 1, "\(name)")
        }
        if let deleted {
            #expect(try after.integer("SELECT count(*) FROM \(deleted.table) WHERE Z_PK = ?", [deleted.key]) == 0)
        }
        try readBack(fresh, from: path, model: model, name: name)
        return fresh.count
    }

    /// Deletes the first existing object whose delete a save accepts (Deny rules may refuse some).
    func deleteOne(_ context: ObjectContext, _ model: PersistentStore.Model, keeping: [ManagedObject]) throws
        -> (ManagedObject, EntityDescription)?
    {
        for entity in model.entities {
            let candidates = try context.fetchAll(entity: entity).filter { object in
                object.objectID.entityID == entity.entityID && !keeping.contains { $0 === object }
            }
            for object in candidates {
                context.delete(object)
                do {
                    try context.save()
                    return (object, entity)
                } catch let error as DatabaseError where error.code == .deny || error.code == .validation {
                    context.rollback()
                }
            }
        }
        return nil
    }

    /// A second store on the file reads every new object's values and links as they were saved.
    func readBack(_ fresh: [Int32: ManagedObject], from path: String, model: PersistentStore.Model, name: String) throws
    {
        let context = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
            .newContext()
        for (id, written) in fresh {
            let entity = model.entities.first { $0.entityID == id }!
            guard
                let read = try context.fetchAll(entity: entity).first(where: {
                    $0.objectID.rowID == written.objectID.rowID && $0.objectID.entityID == id
                })
            else {
                Issue.record("\(name): new \(entity.name) \(written.objectID.rowID) not read back")
                continue
            }
            for attribute in entity.attributes {
                #expect(
                    StoreOracle.canonical(try read.value(forKey: attribute.name))
                        == StoreOracle.canonical(try written.value(forKey: attribute.name)),
                    "\(name): \(entity.name).\(attribute.name)")
            }
            for relationship in entity.relationships {
                #expect(
                    Self.keys(try read.value(forKey: relationship.name))
                        == Self.keys(try written.value(forKey: relationship.name)),
                    "\(name): \(entity.name).\(relationship.name)")
            }
        }
    }

    static func keys(_ value: Any?) -> [Int64] {
        if let objects = value as? [ManagedObject] { return objects.map(\.objectID.rowID).sorted() }
        if let object = value as? ManagedObject { return [object.objectID.rowID] }
        return []
    }

    /// The new object a relationship to `entityID` can lead to: that entity's, or a concrete
    /// sub-entity's.
    static func newObject(fetching entityID: Int32, _ model: PersistentStore.Model, _ fresh: [Int32: ManagedObject])
        -> ManagedObject?
    {
        guard let destination = model.entities.first(where: { $0.entityID == entityID }) else { return nil }
        return destination.fetchedEntityIDs.lazy.compactMap { fresh[$0] }.first
    }

    /// A value of the attribute's type within its bounds, distinct per `counter`; nil where a
    /// pattern constrains it (left unset; optional in the corpus models).
    static func value(for attribute: AttributeDescription, _ counter: Int) -> Any? {
        guard attribute.pattern == nil else { return nil }
        let low = attribute.minimum ?? 0
        let number = min(max(low, Double(counter % 50 + 1)), attribute.maximum ?? .greatestFiniteMagnitude)
        switch attribute.type {
        case .int16: return Int16(number)
        case .int32: return Int32(number)
        case .int64: return Int64(number) + 1_000_000
        case .bool: return counter % 2 == 0
        case .double: return number + 0.25
        case .float: return Float(number + 0.5)
        case .decimal: return Decimal(string: "\(Int(number)).125")!
        case .string:
            let text = "w\(counter)-" + attribute.name
            let length = min(max(Int(attribute.minimum ?? 0), text.count), Int(attribute.maximum ?? 1_000))
            return String((text + String(repeating: "x", count: max(0, length - text.count))).prefix(length))
        case .date: return Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(counter))
        case .data: return Data([1, 2, UInt8(counter % 256)])
        case .uuid: return UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", counter))!
        case .url: return URL(string: "https://example.org/\(counter)")!
        }
    }
}
