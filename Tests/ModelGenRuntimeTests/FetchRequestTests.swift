import Foundation
import GeneratedModels
import Testing

@_spi(Generated) @testable import ModelGenRuntime

/// SCENARIOS.md's `SampleShip`, written the way the generator will write it.
final class SampleShip: ManagedObject {
    static let entity = EntityDescription(
        name: "Ship", table: "ship", entityID: 1,
        attributes: [
            AttributeDescription(name: "name", column: "name", type: .string, isOptional: true, hasDefault: false),
            AttributeDescription(name: "universe", column: "universe", type: .string, isOptional: true, hasDefault: false),
            AttributeDescription(name: "crew", column: "crew", type: .int32, isOptional: false, hasDefault: true),
        ])
    private var _name: String?
    private var _universe: String?
    private var _crew: Int32 = 0
    var name: String? {
        get { _name }
        set { _name = newValue; didChange(slot: 0) }
    }
    var universe: String? {
        get { _universe }
        set { _universe = newValue; didChange(slot: 1) }
    }
    var crew: Int32 {
        get { _crew }
        set { _crew = newValue; didChange(slot: 2) }
    }
    override class var entityDescription: EntityDescription { entity }
    override class func slot(for keyPath: AnyKeyPath) -> Int? {
        switch keyPath {
        case \SampleShip.name: 0
        case \SampleShip.universe: 1
        case \SampleShip.crew: 2
        default: nil
        }
    }
    override func read(from row: Statement, startingAt column: Int32) {
        _name = row.isNull(column) ? nil : row.string(column)
        _universe = row.isNull(column + 1) ? nil : row.string(column + 1)
        _crew = Int32(truncatingIfNeeded: row.int64(column + 2))
    }
    override func bind(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 {
        var index = index
        if mask & 1 != 0 {
            if let _name { statement.bind(_name, at: index) } else { statement.bindNull(index) }
            index += 1
        }
        if mask & 2 != 0 {
            if let _universe { statement.bind(_universe, at: index) } else { statement.bindNull(index) }
            index += 1
        }
        if mask & 4 != 0 {
            statement.bind(Int64(_crew), at: index)
            index += 1
        }
        return index
    }
    override func value(atSlot slot: Int) -> Any? {
        switch slot {
        case 0: _name
        case 1: _universe
        case 2: _crew
        default: nil
        }
    }
}

@Suite struct FetchRequestTests {
    static let ddl = """
        CREATE TABLE "ship" ("_pk" INTEGER PRIMARY KEY, "_entity" INTEGER NOT NULL, "_version" INTEGER NOT NULL DEFAULT 1,
            "name" TEXT, "universe" TEXT, "crew" INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "_modelgen_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
        INSERT INTO "_modelgen_metadata" VALUES ('schema_hash', 'ships');
        """

    static let fleet: [(String?, String?, Int32)] = [
        ("Enterprise", "Star Trek", 430), ("Defiant", "Star Trek", 50), ("Voyager", "Star Trek", 141),
        ("Executor", "Star Wars", 279_144), ("Millennium Falcon", "Star Wars", 4), ("Event Horizon", "Event Horizon", 7),
        ("Serenity", "Firefly", 9), ("éclair", "Pastry", 1), ("Éole", "Pastry", 2), (nil, "Star Wars", 0),
        ("Galactica", nil, 5000),
    ]

    static func seeded() throws -> ObjectContext {
        let store = try PersistentStore(
            path: ":memory:", model: .init(name: "Ships", sqliteDDL: ddl, schemaHash: "ships", entities: [SampleShip.entity]))
        let context = store.newContext()
        for (name, universe, crew) in fleet {
            let ship = context.insert(SampleShip.self)
            ship.name = name
            ship.universe = universe
            ship.crew = crew
        }
        try context.save()
        return store.newContext()
    }

    static func names(_ ships: [SampleShip]) -> [String] { ships.map { $0.name ?? "nil" }.sorted() }

    /// SCENARIOS.md §5: each predicate as a format string and as a typed predicate, same rows.
    static var scenarioPairs: [(String, [Any?], ObjectPredicate<SampleShip>)] {
        [
        ("universe == \"Star Wars\"", [], \SampleShip.universe == "Star Wars"),
        ("universe == %@", ["Star Wars"], \SampleShip.universe == "Star Wars"),
        ("name < \"F\"", [], \SampleShip.name < "F"),
        ("universe IN %@", [["Star Wars", "Firefly", "Pastry"]], .keyPath(\SampleShip.universe, in: ["Star Wars", "Firefly", "Pastry"])),
        ("name BEGINSWITH \"E\"", [], .beginsWith(\SampleShip.name, "E")),
        ("name BEGINSWITH[c] \"e\"", [], .beginsWith(\SampleShip.name, "e", caseInsensitive: true)),
        ("NOT name BEGINSWITH[c] \"e\"", [], !.beginsWith(\SampleShip.name, "e", caseInsensitive: true)),
        ("universe == %@ AND name BEGINSWITH %@ AND crew > %d", ["Star Wars", "E", 5],
         \SampleShip.universe == "Star Wars" && .beginsWith(\SampleShip.name, "E") && \SampleShip.crew > 5),
        ]
    }

    @Test(arguments: scenarioPairs.indices)
    func formatStringsAndTypedPredicatesAgree(_ index: Int) throws {
        let (format, arguments, typed) = Self.scenarioPairs[index]
        let context = try Self.seeded()
        let parsed = try ObjectPredicate<SampleShip>(format: format, arguments: arguments)
        let fromFormat = try context.fetch(FetchRequest(predicate: parsed))
        let fromTyped = try context.fetch(FetchRequest(predicate: typed))
        #expect(Self.names(fromFormat) == Self.names(fromTyped), "\(format)")
        let expected = Self.fleet.compactMap { ship -> String? in
            let object = (name: ship.0, universe: ship.1, crew: ship.2)
            let keep: Bool
            switch index {
            case 0, 1: keep = object.universe == "Star Wars"
            case 2: keep = object.name.map { $0 < "F" } ?? false
            case 3: keep = ["Star Wars", "Firefly", "Pastry"].contains(object.universe ?? "")
            case 4: keep = object.name?.hasPrefix("E") ?? false
            case 5: keep = object.name?.lowercased().hasPrefix("e") ?? false
            case 6: keep = !(object.name?.lowercased().hasPrefix("e") ?? false)
            default: keep = object.universe == "Star Wars" && (object.name?.hasPrefix("E") ?? false) && object.crew > 5
            }
            return keep ? (object.name ?? "nil") : nil
        }
        #expect(Self.names(fromFormat) == expected.sorted(), "\(format)")
    }

    @Test func diacriticInsensitiveComparisonsAreEvaluatedExactly() throws {
        let context = try Self.seeded()
        let ships = try context.fetch(FetchRequest(predicate: try ObjectPredicate<SampleShip>(format: "name BEGINSWITH[cd] %@", "e")))
        #expect(Self.names(ships) == ["Enterprise", "Event Horizon", "Executor", "éclair", "Éole"].sorted())
        let like = try context.fetch(FetchRequest(predicate: try ObjectPredicate<SampleShip>(format: "name LIKE[c] %@", "*e?")))
        #expect(Self.names(like) == ["Voyager"])
        let matches = try context.fetch(FetchRequest(predicate: try ObjectPredicate<SampleShip>(format: "name MATCHES %@", "[A-Z][a-z]+")))
        #expect(Self.names(matches) == ["Defiant", "Enterprise", "Executor", "Galactica", "Serenity", "Voyager"])
    }

    @Test func sortLimitOffsetAndCount() throws {
        let context = try Self.seeded()
        let request = FetchRequest<SampleShip>(
            predicate: \SampleShip.crew >= 4, sortDescriptors: [ObjectSortDescriptor(\SampleShip.crew, ascending: false)], fetchLimit: 3, fetchOffset: 1)
        #expect(try context.fetch(request).map(\.crew) == [5000, 430, 141])
        #expect(try context.count(request) == 3)
        #expect(try context.count(FetchRequest<SampleShip>(predicate: \SampleShip.crew >= 4)) == 8)
        let byName = FetchRequest<SampleShip>(sortDescriptors: [try ObjectSortDescriptor(key: "name", caseInsensitive: true)], fetchLimit: 3)
        #expect(try context.fetch(byName).map { $0.name ?? "nil" } == ["nil", "Defiant", "Enterprise"])
    }

    @Test func fetchesSeeUnsavedInsertsChangesAndDeletes() throws {
        let context = try Self.seeded()
        let wars = FetchRequest<SampleShip>(predicate: \SampleShip.universe == "Star Wars", sortDescriptors: [ObjectSortDescriptor(\SampleShip.crew)])
        let before = try context.fetch(wars)
        #expect(before.map(\.crew) == [0, 4, 279_144])
        let newShip = context.insert(SampleShip.self)
        newShip.name = "X-wing"
        newShip.universe = "Star Wars"
        newShip.crew = 1
        before[1].universe = "Legends"  // the Falcon leaves
        context.delete(before[2])  // the Executor goes
        #expect(try context.fetch(wars).map { $0.name ?? "nil" } == ["nil", "X-wing"])
        #expect(try context.count(wars) == 2)
        try context.save()
        #expect(try context.store.newContext().fetch(wars).map { $0.name ?? "nil" } == ["nil", "X-wing"])
    }

    @Test func hostileStringsAreBoundAsValues() throws {
        let context = try Self.seeded()
        for hostile in ["x' OR '1'='1", "\"; DROP TABLE ship; --", "%", "_", "\u{0}", "'); DELETE FROM ship; --"] {
            #expect(try context.fetch(FetchRequest(predicate: try ObjectPredicate<SampleShip>(format: "name == %@", hostile))).isEmpty)
            #expect(try context.fetch(FetchRequest(predicate: .beginsWith(\SampleShip.name, hostile))).isEmpty)
        }
        #expect(try context.count(FetchRequest<SampleShip>()) == Self.fleet.count)
    }

    @Test func badPredicatesThrowWithStableCodes() throws {
        func code(_ body: () throws -> Void) -> DatabaseError.Code? {
            do {
                try body()
                return nil
            } catch { return (error as? DatabaseError)?.code }
        }
        #expect(code { _ = try ObjectPredicate<SampleShip>(format: "size > 3") } == .unknownKey)
        #expect(code { _ = try ObjectPredicate<SampleShip>(format: "%K BEGINSWITH %@", "colour", "x") } == .unknownKey)
        #expect(code { _ = try ObjectPredicate<SampleShip>(format: "crew == %@", "many") } == .wrongType)
        #expect(code { _ = try ObjectPredicate<SampleShip>(format: "crew BEGINSWITH %@", "1") } == .wrongType)
        #expect(code { _ = try ObjectPredicate<SampleShip>(format: "name == ") } == .predicate)
        #expect(code { _ = try ObjectPredicate<SampleShip>(format: "captain.name == %@", "Kirk") } == .unknownKey)
        #expect(code { _ = try ObjectSortDescriptor<SampleShip>(key: "size") } == .unknownKey)
        let generic = try ObjectPredicate<SampleShip>(format: "%K BEGINSWITH[c] %@", "universe", "star")
        #expect(try Self.seeded().count(FetchRequest(predicate: generic)) == 6)
    }
}
