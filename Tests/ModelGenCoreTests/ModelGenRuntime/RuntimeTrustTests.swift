import CSQLite
import Foundation
import ModelGenRuntime
import Testing

@testable import ModelGenCore

/// One test per class of wrong answer or lost data a new user found (issue "Trust"), on a model
/// written as Xcode writes it and loaded through the real front end; each failed before its fix.
@Suite struct RuntimeTrustTests {
    static let shopXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Account" representedClassName="Account" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="posts" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Post" inverseName="account" inverseEntity="Post"/>
            </entity>
            <entity name="Customer" representedClassName="Customer" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="orders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Order" inverseName="customer" inverseEntity="Order"/>
                <relationship name="profile" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Profile" inverseName="customer" inverseEntity="Profile"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="customers" inverseEntity="Tag"/>
            </entity>
            <entity name="CustomerTags" representedClassName="CustomerTags" codeGenerationType="class">
                <attribute name="note" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Event" representedClassName="Event" codeGenerationType="class">
                <relationship name="tickets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Ticket" inverseName="event" inverseEntity="Ticket"/>
            </entity>
            <entity name="Film" representedClassName="Film" parentEntity="Media" codeGenerationType="class">
                <attribute name="status" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Book" representedClassName="Book" parentEntity="Media" codeGenerationType="class">
                <attribute name="status" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            </entity>
            <entity name="Item" representedClassName="Item" codeGenerationType="class">
                <attribute name="code" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="label" attributeType="String"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="code"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
            <entity name="Media" representedClassName="Media" isAbstract="YES" codeGenerationType="class">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="fans" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="favorites" inverseEntity="User"/>
                <fetchIndex name="byFans"><fetchIndexElement property="fans" type="Binary" order="ascending"/></fetchIndex>
            </entity>
            <entity name="Order" representedClassName="Order" codeGenerationType="class">
                <attribute name="amount" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="total" optional="YES" attributeType="Decimal"/>
                <relationship name="customer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Customer" inverseName="orders" inverseEntity="Customer"/>
            </entity>
            <entity name="Owner" representedClassName="Owner" codeGenerationType="class">
                <relationship name="pets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>
            </entity>
            <entity name="Pet" representedClassName="Pet" codeGenerationType="class">
                <relationship name="owner" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="pets" inverseEntity="Owner"/>
            </entity>
            <entity name="Post" representedClassName="Post" codeGenerationType="class">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="account" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="posts" inverseEntity="Account"/>
            </entity>
            <entity name="Profile" representedClassName="Profile" codeGenerationType="class">
                <attribute name="bio" optional="YES" attributeType="String"/>
                <relationship name="customer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Customer" inverseName="profile" inverseEntity="Customer"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="customers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Customer" inverseName="tags" inverseEntity="Customer"/>
            </entity>
            <entity name="Ticket" representedClassName="Ticket" codeGenerationType="class">
                <relationship name="event" maxCount="1" deletionRule="Cascade" destinationEntity="Event" inverseName="tickets" inverseEntity="Event"/>
            </entity>
            <entity name="User" representedClassName="User" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="blockedBy" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="blocking" inverseEntity="User"/>
                <relationship name="blocking" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="blockedBy" inverseEntity="User"/>
                <relationship name="favorites" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Media" inverseName="fans" inverseEntity="Media"/>
            </entity>
        </model>
        """

    /// The shop model's runtime description (dynamic classes, as `RuntimeSeeder` makes them),
    /// and the diagnostics lowering it gave.
    static func shop(name: String = "Shop", xml: String = shopXML) throws -> (PersistentStore.Model, [Diagnostic]) {
        let engine = DiagnosticEngine()
        var model = try #require(
            FrontEnd().run(
                SourceFile(path: "\(name).xcdatamodel/contents", bytes: Array(xml.utf8)), diagnostics: engine),
            "\(engine.sorted)")
        model.modelName = name
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        #expect(!engine.hasErrors, "\(engine.sorted)")
        return (RuntimeSeeder.runtimeModel(model, schema), engine.sorted)
    }

    /// A store of the shop model in a new directory (SQLite) or schema (PostgreSQL).
    struct Shop {
        let model: PersistentStore.Model
        let location: OracleStore
        let store: PersistentStore
        /// Removes the store's directory or schema.
        let cleanup: () -> Void

        /// `nil` when `backend` is not available (a notice, or a failure where it is required).
        init?(_ backend: OracleBackend, name: String = "Shop", xml: String = RuntimeTrustTests.shopXML) throws {
            guard let (place, cleanup) = try backend.place() else { return nil }
            model = try RuntimeTrustTests.shop(name: name, xml: xml).0
            location = try place.store("shop_\(UUID().uuidString.prefix(8))")
            let location = location
            self.cleanup = {
                location.remove()
                cleanup()
            }
            store = try location.open(model)
        }

        /// The directory of a SQLite shop.
        var directory: URL {
            guard case .file(let path) = location else { preconditionFailure("a SQLite shop") }
            return URL(fileURLWithPath: path).deletingLastPathComponent()
        }

        /// A new store on the same database.
        func reopen(_ model: PersistentStore.Model? = nil) throws -> PersistentStore {
            try location.open(model ?? self.model)
        }

        func type(_ name: String) -> ManagedObject.Type { model.entities.first { $0.name == name }!.objectType! }

        func insert(_ context: ObjectContext, _ entity: String, _ values: [String: Any?] = [:]) throws -> ManagedObject
        {
            let object = context.insert(type(entity))
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { try object.setValue(value, forKey: key) }
            return object
        }

        func fetch(
            _ context: ObjectContext, _ entity: String, _ format: String? = nil, _ arguments: Any?..., limit: Int? = nil
        ) throws -> (objects: [ManagedObject], count: Int) {
            let type = try #require(type(entity) as? any OracleQuerying.Type)
            return try type.oracleQuery(
                context, format: format, arguments: arguments, sort: [], limit: limit, offset: 0)
        }
    }

    @Test(arguments: OracleBackend.allCases) func unsavedChangesDoNotSkipWhatSQLCannotCompare(_ backend: OracleBackend)
        throws
    {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        for title in ["Tea", "tea time", "coffee", "TEA"] { _ = try shop.insert(context, "Order", ["title": title]) }
        try context.save()
        _ = try shop.insert(context, "Customer", ["name": "unsaved"])
        #expect(context.hasChanges)
        let found = try shop.fetch(context, "Order", "title CONTAINS[c] %@", "tea")
        #expect(found.objects.count == 3 && found.count == 3)
        let like = try shop.fetch(context, "Order", "title LIKE[c] %@", "t*")
        #expect(like.count == 3)
    }

    @Test(arguments: OracleBackend.allCases) func aLinkToAnObjectOfAnotherContextIsRefused(_ backend: OracleBackend)
        throws
    {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let first = shop.store.newContext()
        _ = try shop.insert(first, "Customer", ["name": "Ada"])
        try first.save()
        let second = shop.store.newContext()
        let customer = try #require(shop.fetch(second, "Customer").objects.first)
        let order = try shop.insert(first, "Order", ["title": "x"])
        #expect(throws: DatabaseError.self) { try order.setValue(customer, forKey: "customer") }
        let tag = try shop.insert(first, "Tag", ["name": "t"])
        #expect(throws: DatabaseError.self) { try tag.setValue([customer], forKey: "customers") }
        do {
            try order.setValue(customer, forKey: "customer")
        } catch {
            #expect((error as? DatabaseError)?.code == .misuse)
        }
        // Nothing changed on either side.
        #expect(try order.value(forKey: "customer") == nil)
        #expect((try customer.value(forKey: "orders") as? [ManagedObject])?.isEmpty == true)
        #expect(!second.hasChanges)
    }

    @Test(arguments: OracleBackend.allCases) func aDecimalRoundTripsExactly(_ backend: OracleBackend) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let values = ["12345678901234567890.123456789", "0.1", "-3", "99999999999999999999"].map {
            Decimal(string: $0)!
        }
        do {
            let context = shop.store.newContext()
            for value in values { _ = try shop.insert(context, "Order", ["total": value]) }
            try context.save()
        }
        let reopened = try shop.reopen()
        let read = try shop.fetch(reopened.newContext(), "Order").objects.map {
            try $0.value(forKey: "total") as? Decimal
        }
        #expect(read == values)
        // Compared exactly: 0.1 is not the Double nearest it.
        #expect(
            try shop.fetch(reopened.newContext(), "Order", "total > %@", Decimal(string: "99999999999999999998")!).count
                == 1)
        #expect(try shop.fetch(reopened.newContext(), "Order", "total == %@", Decimal(string: "0.1")!).count == 1)
    }

    /// A store made when decimal columns were declared DECIMAL (numeric affinity) is given TEXT
    /// affinity on open, so its new decimals keep every digit.
    @Test func aStoreWithDecimalColumnsOfNumericAffinityIsFixedOnOpen() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var old = try Self.shop().0
        old.sqliteDDL = old.sqliteDDL.replacingOccurrences(of: "\"total\" TEXT", with: "\"total\" DECIMAL")
        #expect(old.sqliteDDL.contains("\"total\" DECIMAL"))
        let path = directory.appendingPathComponent("old.sqlite").path
        do { _ = try PersistentStore(path: path, model: old) }
        let value = Decimal(string: "12345678901234567890.123456789")!
        do {
            let store = try PersistentStore(path: path, model: try Self.shop().0)
            let context = store.newContext()
            let type = try #require(store.model.entities.first { $0.name == "Order" }?.objectType)
            try context.insert(type).setValue(value, forKey: "total")
            try context.save()
        }
        let declared = try SQLiteDatabase(path: path).rows(
            "SELECT type FROM pragma_table_info('order') WHERE name = 'total'")
        #expect(declared == [["TEXT"]])
        #expect(
            try SQLiteDatabase(path: path).rows(#"SELECT typeof("total"), "total" FROM "order""#) == [
                ["text", "12345678901234567890.123456789"]
            ])
        #expect(try SQLiteDatabase(path: path).rows("PRAGMA integrity_check") == [["ok"]])
    }

    @Test func aDatabaseThatIsNotAStoreIsNotChanged() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try Self.shop().0
        for (name, tables) in [("notes", ["notes"]), ("coredata", ["Z_METADATA", "Z_PRIMARYKEY", "ZORDER"])] {
            let path = directory.appendingPathComponent("\(name).sqlite").path
            do {
                let database = try SQLiteDatabase(path: path)
                for table in tables { try database.execute("CREATE TABLE \"\(table)\" (x)") }
                try database.execute("INSERT INTO \"\(tables[0])\" VALUES (1)")
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect {
                _ = try PersistentStore(path: path, model: model)
            } throws: { error in
                guard let error = error as? DatabaseError, error.code == .foreignDatabase else { return false }
                return error.message.contains("Core Data") == (name == "coredata")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file changed")
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test func aRefusedOpenLeavesTheJournalModeAndNamesTheOtherModel() throws {
        guard let shop = try Shop(.sqlite) else { return }
        defer { shop.cleanup() }
        let other = try Self.shop(
            name: "Other",
            xml: Self.shopXML.replacingOccurrences(of: "<entity name=\"Tag\"", with: "<entity name=\"Label\"")
                .replacingOccurrences(of: "Entity=\"Tag\"", with: "Entity=\"Label\"")
        ).0
        let path = shop.directory.appendingPathComponent("rollback.sqlite").path
        do { _ = try PersistentStore(path: path, model: shop.model) }
        do { try SQLiteDatabase(path: path).execute("PRAGMA journal_mode = DELETE") }
        #expect {
            _ = try PersistentStore(path: path, model: other)
        } throws: { error in
            guard let error = error as? DatabaseError, error.code == .migration else { return false }
            return error.message.contains("'Shop'") && !error.message.contains("modelgen diff")
        }
        #expect(try SQLiteDatabase(path: path).rows("PRAGMA journal_mode").first?.first == "delete")
    }

    @Test(arguments: OracleBackend.allCases) func aKeyPathThroughNothingIsNil(_ backend: OracleBackend) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        let withBio = try shop.insert(context, "Customer", ["name": "a"])
        try withBio.setValue(try shop.insert(context, "Profile", ["bio": "hi"]), forKey: "profile")
        let withoutProfile = try shop.insert(context, "Customer", ["name": "b"])
        try shop.insert(context, "Order", ["title": "1"]).setValue(withBio, forKey: "customer")
        try shop.insert(context, "Order", ["title": "2"]).setValue(withoutProfile, forKey: "customer")
        _ = try shop.insert(context, "Order", ["title": "3"])
        try context.save()
        for pending in [false, true] {
            if pending { _ = try shop.insert(context, "Tag") }
            let titles = try shop.fetch(context, "Order", "customer.profile.bio == nil").objects.map {
                try $0.value(forKey: "title") as? String
            }
            #expect(Set(titles) == ["2", "3"], "pending: \(pending)")
            #expect(try shop.fetch(context, "Order", "customer.profile.bio != %@", "hi").count == 2)
            // Two-valued: NOT (nil < 3) holds.
            #expect(try shop.fetch(context, "Order", "NOT (amount < 3)").count == 3)
        }
    }

    @Test(arguments: OracleBackend.allCases) func anObjectOfAnotherContextInAPredicateNamesItsRow(
        _ backend: OracleBackend
    ) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        let customer = try shop.insert(context, "Customer", ["name": "a"])
        for index in 0..<4 {
            try shop.insert(context, "Order", ["title": "\(index)"]).setValue(customer, forKey: "customer")
        }
        try context.save()
        let other = shop.store.newContext()
        let foreign = try #require(shop.fetch(other, "Customer").objects.first)
        let clean = shop.store.newContext()
        #expect(try shop.fetch(clean, "Order", "customer == %@", foreign).count == 4)
        _ = try shop.insert(clean, "Tag")
        #expect(try shop.fetch(clean, "Order", "customer == %@", foreign).count == 4)
        _ = try shop.fetch(clean, "Order").objects.first.map { try $0.setValue("changed", forKey: "title") }
        #expect(try shop.fetch(clean, "Order", "customer == %@", foreign).count == 4)
    }

    @Test(arguments: OracleBackend.allCases) func notANumberAndNegativeZeroAreRefusedNotChanged(
        _ backend: OracleBackend
    ) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        for value in [Double.nan, -0.0] {
            let context = shop.store.newContext()
            _ = try shop.insert(context, "Order", ["amount": value])
            #expect {
                try context.save()
            } throws: { error in
                (error as? DatabaseError)?.code == .validation && (error as? DatabaseError)?.property == "amount"
            }
            context.rollback()
        }
        #expect(try shop.fetch(shop.store.newContext(), "Order").count == 0)
    }

    @Test(arguments: OracleBackend.allCases) func coreDataParityAndErrors(_ backend: OracleBackend) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        for code in 1...3 { _ = try shop.insert(context, "Item", ["code": Int64(code), "label": "i\(code)"]) }
        try context.save()
        // fetchLimit 0 is no limit.
        #expect(try shop.fetch(context, "Item", limit: 0).objects.count == 3)
        // An UPDATE that collides with a row not in the context is a .uniqueness error naming Item.
        let other = shop.store.newContext()
        let third = try #require(shop.fetch(other, "Item", "code == 3").objects.first)
        try third.setValue(Int64(1), forKey: "code")
        #expect {
            try other.save()
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.code == .uniqueness && error.entity == "Item" && error.property == "code"
                && !error.message.contains("constraint failed")
        }
        // A very deep predicate's error does not echo the input.
        let deep = String(repeating: "(", count: 5_000) + "code == 1"
        do {
            _ = try shop.fetch(context, "Item", deep)
            Issue.record("a 5,000-deep predicate was accepted")
        } catch let error as DatabaseError {
            #expect(error.message.count < 1_000)
        }
        // Every validation problem is reported.
        let fresh = shop.store.newContext()
        _ = fresh.insert(shop.type("Item"))
        _ = try shop.insert(fresh, "Pet")
        #expect {
            try fresh.save()
        } throws: { error in
            let message = (error as? DatabaseError)?.message ?? ""
            return message.contains("Item.code") && message.contains("Item.label") && message.contains("Pet.owner")
        }
    }

    @Test(arguments: OracleBackend.allCases) func modelsXcodeAcceptsAreLowered(_ backend: OracleBackend) throws {
        let (model, diagnostics) = try Self.shop()
        // Same-named properties of sibling sub-entities, of different types, both stored.
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        _ = try shop.insert(context, "Book", ["title": "b", "status": Int16(3)])
        _ = try shop.insert(context, "Film", ["title": "f", "status": "released"])
        try context.save()
        let reopened = try shop.reopen(model).newContext()
        let statuses = try shop.fetch(reopened, "Media").objects.map { "\(try $0.value(forKey: "status") ?? "nil")" }
        #expect(Set(statuses) == ["3", "released"])
        // A join table named like an entity's table, and a fetch index naming a to-many: no error,
        // the index is warned about.
        #expect(diagnostics.contains { $0.id == "to-many-in-index" && $0.severity == .warning })
        #expect(!diagnostics.contains { $0.severity == .error })
    }

    @Test(arguments: OracleBackend.allCases) func aRequiredToManyWithoutMinimumMayBeEmpty(_ backend: OracleBackend)
        throws
    {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        _ = try shop.insert(context, "User", ["name": "new"])
        try context.save()
        #expect(try shop.fetch(context, "User").count == 1)
    }

    @Test(arguments: OracleBackend.allCases) func deletionRulesGiveCoreDataResultsWhateverTheOrder(
        _ backend: OracleBackend
    ) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        do {
            let context = shop.store.newContext()
            let account = try shop.insert(context, "Account", ["name": "a"])
            for title in ["p1", "p2"] {
                try shop.insert(context, "Post", ["title": title]).setValue(account, forKey: "account")
            }
            let owner = try shop.insert(context, "Owner")
            try shop.insert(context, "Pet").setValue(owner, forKey: "owner")
            let event = try shop.insert(context, "Event")
            try shop.insert(context, "Ticket").setValue(event, forKey: "event")
            try context.save()
        }
        // Deleting an object that cascades to its required to-one's target.
        do {
            let context = shop.store.newContext()
            context.delete(try #require(shop.fetch(context, "Ticket").objects.first))
            try context.save()
            #expect(try shop.fetch(shop.store.newContext(), "Event").count == 0)
        }
        // The account first, then its posts, in one save (the posts' key is required).
        let context = shop.store.newContext()
        let account = try #require(shop.fetch(context, "Account").objects.first)
        context.delete(account)
        for post in try shop.fetch(context, "Post").objects { context.delete(post) }
        try context.save()
        #expect(try shop.fetch(shop.store.newContext(), "Post").count == 0)
        // Taking away a required to-one of an object that is not loaded: .validation.
        let fresh = shop.store.newContext()
        fresh.delete(try #require(shop.fetch(fresh, "Owner").objects.first))
        #expect {
            try fresh.save()
        } throws: { error in
            (error as? DatabaseError)?.code == .validation
        }
    }

    /// A store of an older version whose migration drops data (a removed attribute and entity) is
    /// refused by default, and migrated when the app opens it allowing data loss, with the steps
    /// `modelgen diff --allow-data-loss` plans.
    @Test func anOlderStoreLosesDataOnlyWhenTheAppAllowsIt() throws {
        func load(_ body: String, version: String) throws -> (ObjectModel, RelationalSchema) {
            let engine = DiagnosticEngine()
            var model = try #require(
                FrontEnd().run(
                    SourceFile(path: "\(version).xcdatamodel/contents", bytes: Array(modelDocument(body).utf8)),
                    diagnostics: engine))
            model.modelName = "Notes"
            model.versionName = version
            return (model, try #require(SchemaLowering().lower(model, diagnostics: engine)))
        }
        let (old, oldSchema) = try load(
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="color" optional="YES" attributeType="String"/></entity>"#
                + #"<entity name="Draft"><attribute name="text" optional="YES" attributeType="String"/></entity>"#,
            version: "V1")
        let (new, newSchema) = try load(
            #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#,
            version: "V2")
        let migration = StoreMigration.make(version: "V1", from: old, oldSchema, to: new, newSchema)
        #expect(migration.statements == nil && migration.lossyStatements != nil)
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.sqlite").path
        do {
            let store = try PersistentStore(path: path, model: RuntimeSeeder.runtimeModel(old, oldSchema))
            let context = store.newContext()
            let type = try #require(store.model.entities.first { $0.name == "Note" }?.objectType)
            let note = context.insert(type)
            try note.setValue("keep", forKey: "text")
            try note.setValue("red", forKey: "color")
            try context.save()
        }
        var current = RuntimeSeeder.runtimeModel(new, newSchema)
        current.migrations = [
            PersistentStore.Migration(
                from: migration.fromHash, version: migration.version, statements: migration.statements,
                blockingSteps: migration.blockingSteps,
                lossyStatements: migration.lossyStatements)
        ]
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try PersistentStore(path: path, model: current)
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.code == .migration && error.message.contains("allowsDataLoss")
                && error.message.contains("color")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let store = try PersistentStore(path: path, model: current, options: .init(allowsDataLoss: true))
        let type = try #require(
            store.model.entities.first { $0.name == "Note" }?.objectType as? any OracleQuerying.Type)
        let notes = try type.oracleQuery(
            store.newContext(), format: nil, arguments: [], sort: [], limit: nil, offset: 0
        ).objects
        #expect(try notes.map { try $0.value(forKey: "text") as? String } == ["keep"])
        #expect(try SQLiteDatabase(path: path).rows("SELECT name FROM sqlite_schema WHERE name = 'draft'").isEmpty)
    }

    @Test(arguments: OracleBackend.allCases) func membershipInAToMany(_ backend: OracleBackend) throws {
        guard let shop = try Shop(backend) else { return }
        defer { shop.cleanup() }
        let context = shop.store.newContext()
        let tag = try shop.insert(context, "Tag", ["name": "vip"])
        let a = try shop.insert(context, "Customer", ["name": "a"])
        _ = try shop.insert(context, "Customer", ["name": "b"])
        try a.setValue([tag], forKey: "tags")
        for pending in [false, true] {
            if !pending { try context.save() }
            for format in ["%@ IN tags", "ANY tags == %@"] {
                let found = try shop.fetch(context, "Customer", format, tag).objects
                #expect(found.count == 1 && found.first === a, "\(format), pending: \(pending)")
            }
            #expect(try shop.fetch(context, "Customer", "NONE tags == %@", tag).count == 1)
        }
    }
}
