import Foundation
import ModelGenRuntime
import TestSupport
import Testing

@testable import ModelGenCore

/// Every corpus store opened read-only with every version of its bundle (the runtime's
/// descriptions of each version made as its generated code would make them), compared by brute
/// force with the store read raw: entities matched by `Z_PRIMARYKEY.Z_NAME` (or the renaming
/// identifier), so each entity's objects are exactly the store's rows of that entity — never a
/// row of another — and every attribute whose column the store keeps with the attribute's
/// declared type (R5) reads as stored.
@Suite struct CoreDataEveryVersionTests {
    @Test func everyVersionOfEachBundleReadsWhatItShares() throws {
        guard let stores = TestPaths.sharedFolder("corpus/stores") else { return }
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var totals = (pairs: 0, objects: 0, values: 0)
        var failures: [String] = []
        for (name, versions) in CoreDataCorpusVersions.byStore.sorted(by: { $0.key < $1.key }) where versions.count == 1
        {
            let bundle = stores.appendingPathComponent(versions[0].bundle).path
            let enumerator = FileManager.default.enumerator(atPath: stores.path)
            guard let relative = (enumerator?.allObjects as? [String])?.first(where: { $0.hasSuffix("/" + name) })
            else { continue }
            let path = try CoreDataCorpusVersions.copyFileSet(
                stores.appendingPathComponent(relative).path, into: directory)
            let raw = try RawSQLite(path: path)
            var numbers: [String: String] = [:]
            for row in try raw.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY") { numbers[row[0] ?? ""] = row[1] ?? "" }
            let tables = try raw.tables()
            var declared: [String: String] = [:]
            for table in tables.keys {
                for row in try raw.rows("SELECT name, type FROM pragma_table_info('\(table)')") {
                    declared[table + "." + (row[0] ?? "")] = (row[1] ?? "").uppercased()
                }
            }
            for (version, model) in ModelLoader().loadAll(path: bundle, diagnostics: DiagnosticEngine()) {
                guard let model, let schema = SchemaLowering().lower(model, diagnostics: DiagnosticEngine()) else {
                    continue
                }
                let runtime = RuntimeSeeder.runtimeModel(model, schema, patterns: false)
                let store = try PersistentStore(
                    coreDataStoreAt: path, model: runtime, options: .init(readOnly: true))
                let context = store.newContext()
                totals.pairs += 1
                let label = "\(name) as \(version.name)"
                let names = Set(runtime.entities.map(\.name))
                for entity in runtime.entities {
                    var storeName = entity.name
                    if numbers[storeName] == nil, let old = entity.renamingIdentifier, !names.contains(old) {
                        storeName = old
                    }
                    let root = Self.root(of: entity, in: runtime, model: model)
                    let rootName =
                        numbers[root.name] == nil && root.renamingIdentifier.map { !names.contains($0) } == true
                        ? root.renamingIdentifier! : root.name
                    let table = "Z" + rootName.uppercased()
                    var expected: [String: [String?]] = [:]
                    let shared = entity.attributes.filter { attribute in
                        declared[table + ".Z" + attribute.name.uppercased()] == Self.declaredType(attribute.type)
                    }
                    if let number = numbers[storeName], tables[table] != nil {
                        let columns = (["Z_PK"] + shared.map { "Z" + $0.name.uppercased() }).joined(separator: ", ")
                        for row in try raw.rows("SELECT \(columns) FROM \(table) WHERE Z_ENT = \(number)") {
                            expected[row[0] ?? ""] = Array(row.dropFirst())
                        }
                    }
                    let fetched = try context.fetchAll(entity: entity).filter {
                        $0.objectID.entityID == entity.entityID
                    }
                    let keys = Set(fetched.map { "\(Double($0.objectID.rowID))" })
                    if keys != Set(expected.keys) {
                        failures.append("\(label): \(entity.name) has rows \(keys.count), the store \(expected.count)")
                        continue
                    }
                    for object in fetched {
                        let row = expected["\(Double(object.objectID.rowID))"]!
                        totals.objects += 1
                        for (offset, attribute) in shared.enumerated() {
                            totals.values += 1
                            let read = Self.canonical(try object.value(forKey: attribute.name))
                            if !Self.same(read, row[offset], required: !attribute.isOptional) {
                                failures.append(
                                    "\(label): \(entity.name) \(object.objectID.rowID).\(attribute.name) is \(read ?? "nil"), stored \(row[offset] ?? "nil")"
                                )
                            }
                        }
                    }
                }
            }
        }
        print(
            "every version: \(totals.pairs) store/version pairs, \(totals.objects) objects, \(totals.values) shared values equal to the store read raw; \(failures.count) differences"
        )
        #expect(failures.isEmpty, "\(failures.prefix(20).joined(separator: "\n"))")
        #expect(totals.pairs > 100 && totals.objects > 10_000)
    }

    /// The root of `entity`'s hierarchy: of the entities fetching it, the one fetching most.
    static func root(of entity: EntityDescription, in model: PersistentStore.Model, model _: ObjectModel)
        -> EntityDescription
    {
        model.entities.filter { $0.fetchedEntityIDs.contains(entity.entityID) }
            .max { $0.fetchedEntityIDs.count < $1.fetchedEntityIDs.count } ?? entity
    }

    /// R5: the type Core Data declares a column of an attribute type.
    static func declaredType(_ type: ValueType) -> String {
        switch type {
        case .int16, .int32, .int64, .bool: "INTEGER"
        case .double, .float: "FLOAT"
        case .date: "TIMESTAMP"
        case .decimal: "DECIMAL"
        case .string, .url: "VARCHAR"
        case .data, .uuid: "BLOB"
        }
    }

    /// A value the runtime returned, as `RawSQLite` gives stored values.
    static func canonical(_ value: Any?) -> String? {
        switch value {
        case nil: nil
        case let value as Bool: value ? "1.0" : "0.0"
        case let value as any BinaryInteger: "\(Double(Int64(value)))"
        case let value as Double: "\(value)"
        case let value as Float: "\(Double(value))"
        case let value as Decimal: "\(value)"
        case let value as Date: "\(value.timeIntervalSinceReferenceDate)"
        case let value as Data: value.map { String(format: "%02x", $0) }.joined()
        case let value as UUID: withUnsafeBytes(of: value.uuid) { $0.map { String(format: "%02x", $0) }.joined() }
        case let value as URL: value.absoluteString
        case let value as String: value
        default: "\(value!)"
        }
    }

    /// Equal as stored: numbers by value (to a Float's precision), else exactly; NULL in an
    /// attribute the version requires reads as its type's zero.
    static func same(_ read: String?, _ stored: String?, required: Bool) -> Bool {
        if read == stored { return true }
        guard let read else { return false }
        guard let stored else { return required && ["", "0.0"].contains(read) }
        guard let x = Double(read), let y = Double(stored) else { return false }
        return abs(x - y) < 1e-9 || Float(x) == Float(y)
    }
}
