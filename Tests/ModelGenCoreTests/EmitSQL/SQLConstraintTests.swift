import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// The constraints the DDL declares are enforced by both engines: rows that break NOT NULL,
/// CHECK, UNIQUE or a foreign key are rejected, rows that keep them are accepted, and ON DELETE
/// follows the deletion rules.
@Suite struct SQLConstraintTests {
    static let model = modelDocument(
        """
            <entity name="Item">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="shop" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shop" inverseName="items" inverseEntity="Shop"/>
            </entity>
            <entity name="Outlet" parentEntity="Shop">
                <attribute name="mall" attributeType="String"/>
            </entity>
            <entity name="Shop">
                <attribute name="code" attributeType="String" minValueString="2" maxValueString="5"/>
                <attribute name="isOpen" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="rating" optional="YES" attributeType="Integer 16" minValueString="0" maxValueString="5"/>
                <attribute name="since" optional="YES" attributeType="Date" defaultDateTimeInterval="388411200"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="shop" inverseEntity="Item"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="code"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
        """)

    static func schema() throws -> RelationalSchema {
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: "Shops", bytes: Array(model.utf8)), diagnostics: engine))
        return try #require(SchemaLowering().lower(model, diagnostics: engine))
    }

    /// (statement, whether the engine must accept it), run in order on a fresh database; `{Shop}`
    /// stands for Shop's `_entity` number (`numbered`).
    static let statements: [(String, Bool)] = [
        (#"INSERT INTO "shop" ("_pk", "_entity", "code") VALUES (1, {Shop}, 'AB')"#, true),
        (#"INSERT INTO "item" ("_pk", "_entity", "name", "shop_pk") VALUES (1, {Item}, 'pen', 1)"#, true),
        (#"INSERT INTO "shop" ("_pk", "_entity", "code", "mall") VALUES (2, {Outlet}, 'CD', 'Centre')"#, true),
        // NOT NULL: a required attribute.
        (#"INSERT INTO "shop" ("_pk", "_entity") VALUES (3, {Shop})"#, false),
        // CHECK: string length, number range, _entity, and a sub-entity's required attribute.
        (#"INSERT INTO "shop" ("_pk", "_entity", "code") VALUES (4, {Shop}, 'A')"#, false),
        (#"INSERT INTO "shop" ("_pk", "_entity", "code") VALUES (5, {Shop}, 'TOOLONG')"#, false),
        (#"INSERT INTO "shop" ("_pk", "_entity", "code", "rating") VALUES (6, {Shop}, 'EF', 9)"#, false),
        (#"INSERT INTO "shop" ("_pk", "_entity", "code") VALUES (7, 99, 'GH')"#, false),
        (#"INSERT INTO "shop" ("_pk", "_entity", "code") VALUES (8, {Outlet}, 'IJ')"#, false),
        (#"INSERT INTO "shop" ("_pk", "_entity", "code", "rating") VALUES (9, {Shop}, 'KL', 5)"#, true),
        // UNIQUE: the uniqueness constraint.
        (#"INSERT INTO "shop" ("_pk", "_entity", "code") VALUES (10, {Shop}, 'AB')"#, false),
        // FOREIGN KEY: a to-one pointing at no row.
        (#"INSERT INTO "item" ("_pk", "_entity", "shop_pk") VALUES (2, {Item}, 999)"#, false),
        (#"INSERT INTO "item" ("_pk", "_entity", "shop_pk") VALUES (3, {Item}, 2)"#, true),
        // ON DELETE CASCADE (Shop.items is Cascade): deleting shop 1 deletes item 1.
        (#"DELETE FROM "shop" WHERE "_pk" = 1"#, true),
    ]

    /// `statement` with each `{Entity}` replaced by that entity's `_entity` number in `schema`.
    static func numbered(_ statement: String, _ schema: RelationalSchema) -> String {
        schema.entities.reduce(statement) { $0.replacingOccurrences(of: "{\($1.entity)}", with: String($1.entityID)) }
    }

    @Test func sqliteEnforcesEveryConstraint() throws {
        let database = try SQLiteDatabase()
        let lowered = try Self.schema()
        try database.execute(SQLEmitter(dialect: .sqlite).emit(lowered))
        for (template, accepted) in Self.statements {
            let statement = Self.numbered(template, lowered)
            let error: (any Error)? = { () -> (any Error)? in
                do {
                    try database.execute(statement)
                    return nil
                } catch { return error }
            }()
            #expect((error == nil) == accepted, "\(statement): \(error.map { "\($0)" } ?? "accepted")")
        }
        #expect(try database.rows(#"SELECT "_pk" FROM "item" ORDER BY "_pk""#) == [["3"]])
        #expect(try database.rows(#"SELECT "is_open", "since" FROM "shop" WHERE "_pk" = 2"#) == [["1", "388411200.0"]])
        // SQLite-only checks: booleans are 0/1, integers fit their width, UUIDs are 16 bytes.
        #expect(throws: (any Error).self) { try database.execute(#"UPDATE "shop" SET "is_open" = 2 WHERE "_pk" = 2"#) }
    }

    @Test func postgresEnforcesEveryConstraint() throws {
        guard let cluster = PostgresCluster.shared() else { return }
        let schema = "constraints_\(UUID().uuidString.prefix(8).lowercased())"
        let lowered = try Self.schema()
        let applied = try cluster.psql(SQLEmitter(dialect: .postgres).emit(lowered), schema: schema)
        #expect(applied.status == 0, "\(applied.stderr)")
        for (template, accepted) in Self.statements {
            let statement = Self.numbered(template, lowered)
            let result = try cluster.psql(statement, schema: schema)
            #expect((result.status == 0) == accepted, "\(statement): \(result.stderr)")
        }
        #expect(try cluster.rows(#"SELECT "_pk" FROM "item" ORDER BY "_pk""#, schema: schema) == [["3"]])
        #expect(
            try cluster.rows(#"SELECT "is_open", "since" FROM "shop" WHERE "_pk" = 2"#, schema: schema)
                == [["t", "2013-04-23 12:00:00+00"]])
    }

    @Test func integerWidthAndUUIDSizeAreCheckedOnSQLite() throws {
        let text = modelDocument(
            """
                <entity name="Tag">
                    <attribute name="small" optional="YES" attributeType="Integer 16"/>
                    <attribute name="uid" optional="YES" attributeType="UUID"/>
                </entity>
            """)
        let engine = DiagnosticEngine()
        let model = try #require(FrontEnd().run(SourceFile(path: "Tags", bytes: Array(text.utf8)), diagnostics: engine))
        let database = try SQLiteDatabase()
        let lowered = try #require(SchemaLowering().lower(model, diagnostics: engine))
        try database.execute(SQLEmitter(dialect: .sqlite).emit(lowered))
        let tag = try #require(lowered.entities.first).entityID
        try database.execute(#"INSERT INTO "tag" ("_entity", "small", "uid") VALUES (\#(tag), 32767, zeroblob(16))"#)
        #expect(throws: (any Error).self) {
            try database.execute(#"INSERT INTO "tag" ("_entity", "small") VALUES (\#(tag), 32768)"#)
        }
        #expect(throws: (any Error).self) {
            try database.execute(#"INSERT INTO "tag" ("_entity", "uid") VALUES (\#(tag), zeroblob(15))"#)
        }
    }
}
