import Foundation
import ModelGenRuntime
import TestSupport
import Testing

@testable import ModelGenCore

/// `_entity` numbers depend on an entity's name alone, so that adding or removing an entity
/// plans nothing for the tables of other entities; stores made with modelgen 0.1's numbers (by
/// position) are migrated by the generated code.
@Suite struct EntityNumberingTests {
    static let animals =
        #"<entity name="Animal" isAbstract="YES"><attribute name="name" attributeType="String"/></entity>"#
        + #"<entity name="Cat" parentEntity="Animal"><attribute name="lives" optional="YES" attributeType="Integer 16"/></entity>"#
        + #"<entity name="Dog" parentEntity="Animal"><attribute name="breed" attributeType="String"/></entity>"#
    static let note = #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#
    static let zoo = #"<entity name="Zoo"><attribute name="city" optional="YES" attributeType="String"/></entity>"#

    /// The tables a plan names in its steps.
    static func touchedTables(from old: String, to new: String) throws -> Set<String> {
        let (oldModel, oldSchema) = try MigrationSQLiteTests.load(old)
        let (newModel, newSchema) = try MigrationSQLiteTests.load(new)
        let plan = MigrationPlanner().plan(from: oldModel, oldSchema, to: newModel, newSchema)
        return Set(plan.steps.map { String($0.subject.prefix { $0 != "." }) })
    }

    @Test func addingOrRemovingAnEntityPlansNothingForOtherTables() throws {
        let base = Self.animals + Self.note + Self.zoo
        // A root that sorts first: by position, every other entity's number would move.
        let aardvark =
            #"<entity name="Aardvark"><attribute name="ants" optional="YES" attributeType="Integer 32"/></entity>"#
        #expect(try Self.touchedTables(from: base, to: aardvark + base) == ["aardvark"])
        #expect(try Self.touchedTables(from: aardvark + base, to: base) == ["aardvark"])
        #expect(try Self.touchedTables(from: base, to: Self.animals + Self.zoo) == ["note"])
        // A sub-entity changes its own table's allowed numbers only.
        let bird =
            #"<entity name="Bird" parentEntity="Animal"><attribute name="wings" optional="YES" attributeType="Integer 16"/></entity>"#
        #expect(try Self.touchedTables(from: base, to: bird + base) == ["animal"])
        // The same entity has the same number in both models.
        let (_, before) = try MigrationSQLiteTests.load(base)
        let (_, after) = try MigrationSQLiteTests.load(aardvark + bird + base)
        for mapping in before.entities {
            #expect(after.entities.first { $0.entity == mapping.entity }?.entityID == mapping.entityID)
        }
    }

    @Test func numbersAreDistinctWhenNamesShareAHash() throws {
        // Two names whose 31-bit hashes are equal, found among generated names (a birthday search).
        var seen: [Int: String] = [:]
        var pair: (String, String)?
        for number in 0..<2_000_000 where pair == nil {
            let name = "Entity\(number)"
            let hash = EntityCode.hash(name)
            if let other = seen[hash] { pair = (other, name) } else { seen[hash] = name }
        }
        let (first, second) = try #require(pair)
        #expect(EntityCode.hash(first) == EntityCode.hash(second))
        let codes = EntityCode.codes(of: [second, "Other", first])
        #expect(Set(codes).count == 3)
        // The name first in byte order keeps its hash; the other takes the next free number.
        let (low, high) = first < second ? (first, second) : (second, first)
        let byName = Dictionary(uniqueKeysWithValues: zip([second, "Other", first], codes))
        #expect(byName[low] == EntityCode.hash(low))
        #expect(byName[high] == EntityCode.hash(low) % EntityCode.maximum + 1)
        #expect(codes.allSatisfy { (1...EntityCode.maximum).contains($0) })
    }

    /// For each bundled model: a store of every version as modelgen 0.1 numbered it, seeded through
    /// the runtime, is opened by the current version's runtime model carrying the migrations the
    /// generator plans; every row is there afterwards under the same entity, with the same values.
    @Test(arguments: ["Gallery", "Businesses", "ShipsSingersCandy", "Library"])
    func storesOfModelgen01AreMigratedOnOpen(_ name: String) throws {
        let bundle = PackagePaths.root.appendingPathComponent("Models/\(name).xcdatamodeld").path
        let engine = DiagnosticEngine()
        let loader = ModelLoader()
        let current = try #require(loader.load(path: bundle, diagnostics: engine))
        let schema = try #require(SchemaLowering().lower(current, diagnostics: engine))
        let legacy = try #require(
            SchemaLowering(layout: StandardLayout(entityCodes: .sortedPositions)).lower(current, diagnostics: engine))
        #expect(SchemaSnapshot.make(legacy).hash != SchemaSnapshot.make(schema).hash)
        let migrations = StoreMigration.all(to: current, schema, bundle: bundle, configuration: nil)
        let legacyHash = SchemaSnapshot.make(legacy).hash
        let migration = try #require(migrations.first { $0.fromHash == legacyHash })
        #expect(migration.version.hasSuffix("(modelgen 0.1)") && migration.statements != nil)

        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        try RuntimeSeeder.seedEverything(model: current, schema: legacy, at: path)
        // Every row by table and key: its entity's name (through the numbers of its schema) and
        // its other columns, read with plain SQL.
        func rows(_ schema: RelationalSchema) throws -> [String: [[String?]]] {
            let database = try SQLiteDatabase(path: path)
            let names = Dictionary(uniqueKeysWithValues: schema.entities.map { (String($0.entityID), $0.entity) })
            var rows: [String: [[String?]]] = [:]
            for table in schema.tables where table.kind == .entity {
                let columns = table.columns.map(\.name)
                rows[table.name] = try database.rows(
                    "SELECT \(columns.map(SQLNaming.quoted).joined(separator: ", ")) FROM \(SQLNaming.quoted(table.name)) ORDER BY \"_pk\""
                ).map { row in
                    zip(columns, row).map { column, value in column == "_entity" ? value.flatMap { names[$0] } : value }
                }
            }
            return rows
        }
        let before = try rows(legacy)
        #expect(before.values.reduce(0) { $0 + $1.count } > 0)
        var model = RuntimeSeeder.runtimeModel(current, schema)
        model.migrations = migrations.map {
            PersistentStore.Migration(
                from: $0.fromHash, version: $0.version, statements: $0.statements, blockingSteps: $0.blockingSteps,
                lossyStatements: $0.lossyStatements)
        }
        let store = try PersistentStore(path: path, model: model)
        // The runtime reads every object back as its entity.
        for entity in store.model.entities {
            let stored = before[entity.table, default: []].filter { $0[1] == entity.name }.count
            let type = try #require(entity.objectType as? any OracleQuerying.Type)
            let own = try type.oracleQuery(
                store.newContext(), format: nil, arguments: [], sort: [], limit: nil, offset: 0
            ).objects.filter { $0.objectID.entityID == entity.entityID }
            #expect(own.count == stored, "\(entity.name)")
        }
        #expect(try rows(schema) == before)
        #expect(try SQLiteDatabase(path: path).rows("PRAGMA integrity_check") == [["ok"]])
    }
}
