import Testing

@testable import ModelGenCore

/// The relational layout's decisions and its diagnostics.
@Suite struct LoweringTests {
    static let testedIDs: Set<String> = Set(cases.map(\.id)).union(["unknown-configuration"])

    static func lower(_ text: String, configuration: String? = nil, layout: StandardLayout = StandardLayout()) -> (
        RelationalSchema?, [Diagnostic]
    ) {
        let engine = DiagnosticEngine()
        guard
            let model = FrontEnd().run(
                SourceFile(path: DiagnosticLocationTests.path, bytes: Array(text.utf8)), diagnostics: engine)
        else { return (nil, engine.sorted) }
        let schema = SchemaLowering(layout: layout).lower(model, configuration: configuration, diagnostics: engine)
        return (schema, engine.sorted)
    }

    static let cases: [DiagnosticLocationTests.Case] = [
        .init(
            id: "column-name-collision", severity: .error,
            marked: DiagnosticCases.entity(
                """
                <attribute name="firstName" attributeType="String"/>
                        <attribute 1️⃣name="given" attributeType="String"><userInfo><entry key="modelgen.sqlName" value="first_name"/></userInfo></attribute>
                """)),
        .init(
            id: "table-name-collision", severity: .error,
            marked: """
                    <entity name="OrderItem"/>
                    <entity 1️⃣name="Order_Item"/>
                """),
        .init(
            id: "reserved-column-name", severity: .error,
            marked: DiagnosticCases.entity(
                """
                <attribute 1️⃣name="secret" attributeType="String">
                            <userInfo>
                                <entry key="modelgen.sqlName" value="_version"/>
                            </userInfo>
                        </attribute>
                """)),
        .init(
            id: "empty-sql-name", severity: .error,
            marked: DiagnosticCases.entity(
                """
                <attribute 1️⃣name="secret" attributeType="String">
                            <userInfo>
                                <entry key="modelgen.sqlName" value=""/>
                            </userInfo>
                        </attribute>
                """)),
        .init(
            id: "unstorable-attribute-type", severity: .error,
            marked: DiagnosticCases.entity(#"<attribute name="thing" 1️⃣attributeType="Undefined"/>"#)),
        .init(
            id: "unsupported-index-expression", severity: .warning,
            marked: DiagnosticCases.entity(
                """
                <attribute name="a" attributeType="String"/>
                        <fetchIndex name="byLength">
                            1️⃣<fetchIndexElement expression="length:(a)" expressionType="Integer 64" type="Binary" order="ascending"/>
                        </fetchIndex>
                """)),
        .init(
            id: "uniqueness-without-column", severity: .warning,
            marked: """
                    <entity name="A">
                        <relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="a" inverseEntity="B"/>
                    </entity>
                    <entity name="B">
                        <relationship name="a" optional="YES" maxCount="1" destinationEntity="A" inverseName="b" inverseEntity="A"/>
                        <uniquenessConstraints>
                            <uniquenessConstraint>
                                <constraint 1️⃣value="a"/>
                            </uniquenessConstraint>
                        </uniquenessConstraints>
                    </entity>
                """),
    ]

    @Test(arguments: cases)
    func loweringDiagnosticPointsAtItsMarker(_ testCase: DiagnosticLocationTests.Case) throws {
        let marked = MarkedText(modelDocument(testCase.marked))
        let (schema, diagnostics) = Self.lower(marked.text)
        let expected = try #require(marked.positions["1️⃣"])
        let matching = diagnostics.filter { $0.id.rawValue == testCase.id }
        #expect(matching.count == 1, "\(diagnostics.map(\.rendered))")
        let diagnostic = try #require(matching.first)
        #expect(diagnostic.severity == testCase.severity)
        #expect(
            diagnostic.location?.line == expected.line && diagnostic.location?.column == expected.column,
            "\(diagnostic.rendered)")
        #expect(diagnostic.rendered.hasSuffix("[\(testCase.id)]") || diagnostic.rendered.contains("[\(testCase.id)]\n"))
        #expect((schema == nil) == (testCase.severity == .error))
    }

    /// Enough entities for their attribute columns to be planned in runs on several cores: the
    /// diagnostics come out in document order (on each entity's own line, 3 + index) and every
    /// table gets its own columns.
    @Test func attributesPlannedInRunsKeepTheirTablesAndDiagnosticsInOrder() throws {
        var text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
            + #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"# + "\n"
        for index in 0..<300 {
            let odd = index % 40 == 3 ? #"<attribute name="odd" attributeType="Undefined"/>"# : ""
            text +=
                #"<entity name="E\#(index)"><attribute name="a\#(index)" optional="YES" attributeType="String"/>\#(odd)</entity>"#
                + "\n"
        }
        text += "</model>\n"
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: "Large.xcdatamodel/contents", bytes: Array(text.utf8)), diagnostics: engine)
        )
        _ = SchemaLowering().lower(model, diagnostics: engine)
        let expected = (0..<300).filter { $0 % 40 == 3 }.map { $0 + 3 }
        #expect(
            engine.diagnostics.map(\.id.description)
                == Array(repeating: "unstorable-attribute-type", count: expected.count))
        #expect(engine.diagnostics.map { $0.location?.line ?? 0 } == expected)
        let clean = try #require(
            FrontEnd().run(
                SourceFile(
                    path: "Large.xcdatamodel/contents", bytes: Array(text.replacing("Undefined", with: "String").utf8)),
                diagnostics: DiagnosticEngine()))
        let schema = try #require(SchemaLowering().lower(clean, diagnostics: DiagnosticEngine()))
        for index in 0..<300 {
            let table = try #require(schema.tables.first { $0.name == "e\(index)" })
            let names = table.columns.filter { $0.role == .attribute }.map(\.name)
            #expect(names == (index % 40 == 3 ? ["a\(index)", "odd"] : ["a\(index)"]))
        }
    }

    /// Sibling sub-entities may declare properties of the same name, even of different types
    /// (Core Data stores them in separate columns): the first in the hierarchy's order keeps the
    /// name, the others take their entity's name after it; a one-to-one key likewise.
    @Test func sameNamedSiblingPropertiesGetTheirOwnColumns() throws {
        let (schema, diagnostics) = Self.lower(
            modelDocument(
                #"<entity name="Media" isAbstract="YES"><attribute name="title" optional="YES" attributeType="String"/></entity>"#
                    + #"<entity name="Film" parentEntity="Media"><attribute name="status" optional="YES" attributeType="String"/>"#
                    + #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="film" inverseEntity="Owner"/></entity>"#
                    + #"<entity name="Book" parentEntity="Media"><attribute name="status" attributeType="Integer 16" defaultValueString="0"/>"#
                    + #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="book" inverseEntity="Owner"/></entity>"#
                    + #"<entity name="Owner"><relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="owner" inverseEntity="Book"/>"#
                    + #"<relationship name="film" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Film" inverseName="owner" inverseEntity="Film"/></entity>"#
            ))
        #expect(!diagnostics.contains { $0.severity == .error }, "\(diagnostics.map(\.rendered))")
        let media = try #require(schema?.tables.first { $0.name == "media" })
        let sources = Dictionary(
            uniqueKeysWithValues: media.columns.compactMap { column in column.source.map { ($0, column.name) } })
        #expect(sources["Book.status"] == "status")
        #expect(sources["Film.status"] == "status_film")
        #expect(sources["Book.owner"] == "owner_pk")
        #expect(sources["Film.owner"] == "owner_pk_film")
    }

    /// Only names the user chose (`modelgen.sqlName`) can collide: others are made unique.
    @Test func collisionsNameTheOtherDeclarationInANote() {
        let (_, diagnostics) = Self.lower(
            modelDocument(
                DiagnosticCases.entity(
                    """
                    <attribute name="firstName" attributeType="String"/>
                            <attribute name="given" attributeType="String"><userInfo><entry key="modelgen.sqlName" value="first_name"/></userInfo></attribute>
                    """)))
        #expect(
            diagnostics.map(\.rendered) == [
                """
                \(DiagnosticLocationTests.path):5:20: error: two properties are stored in column 'first_name' of table 'a' [column-name-collision]
                \(DiagnosticLocationTests.path):4:20: note: the other property is declared here
                """
            ])
    }

    @Test func snakeCaseFollowsTheWordBoundaries() {
        let cases = [
            ("BusinessEntity", "business_entity"), ("dateJoined", "date_joined"), ("URLString", "url_string"),
            ("userID", "user_id"), ("first_name", "first_name"), ("HTTPSUpgrade", "https_upgrade"),
            ("attribute0", "attribute0"), ("Model2Entity", "model2_entity"), ("Order", "order"),
            ("ZIPCode", "zip_code"),
        ]
        for (name, expected) in cases { #expect(SQLNaming.snakeCase(name) == expected, "\(name)") }
        let long = String(repeating: "very_long_name_", count: 6)
        #expect(SQLNaming.fitted(long).utf8.count == 63)
        #expect(SQLNaming.fitted(long) == SQLNaming.fitted(long))
        #expect(SQLNaming.fitted(long) != SQLNaming.fitted(long + "x"))
        #expect(SQLNaming.quoted(#"say "hi""#) == #""say ""hi""""#)
    }

    static let cars = modelDocument(
        """
            <entity name="Car" isAbstract="YES">
                <attribute name="make" attributeType="String"/>
            </entity>
            <entity name="ExpensiveSportCar" parentEntity="SportCar">
                <attribute name="price" attributeType="Decimal"/>
            </entity>
            <entity name="Person">
                <relationship name="cars" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="SportCar" inverseName="owner" inverseEntity="SportCar"/>
            </entity>
            <entity name="SportCar" parentEntity="Car">
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
            </entity>
        """)

    @Test func inheritanceSharesTheRootTableWithEntityNumbersAndChecks() throws {
        let (schema, diagnostics) = Self.lower(Self.cars)
        #expect(diagnostics.isEmpty)
        let lowered = try #require(schema)
        // FNV-1a (32 bits, top bit cleared) of each name, worked out apart from the code; the
        // entities in pre-order (roots by name, each followed by its sub-entities by name).
        #expect(
            lowered.entities.map { "\($0.entityID):\($0.entity)@\($0.table)" } == [
                "1727983745:Car@car", "520550649:SportCar@car", "719949662:ExpensiveSportCar@car",
                "1131342752:Person@person",
            ])
        let car = try #require(lowered.table(named: "car"))
        #expect(car.columns.map(\.name) == ["_pk", "_entity", "_version", "make", "owner_pk", "price"])
        #expect(car.column(named: "make")?.isNullable == false)
        #expect(car.column(named: "price")?.isNullable == true)
        #expect(car.checks.map(\.condition).contains(.requiredFor(column: "price", entityIDs: [719_949_662])))
        #expect(car.checks.map(\.condition).contains(.oneOf(column: "_entity", values: [520_550_649, 719_949_662])))
        // modelgen 0.1's numbers: positions in that order, from 1.
        let legacy = try #require(Self.lower(Self.cars, layout: StandardLayout(entityCodes: .sortedPositions)).0)
        #expect(legacy.entities.map(\.entityID) == [1, 2, 3, 4])
        let legacyCar = try #require(legacy.table(named: "car"))
        #expect(legacyCar.checks.map(\.condition).contains(.requiredFor(column: "price", entityIDs: [3])))
        #expect(legacyCar.checks.map(\.condition).contains(.oneOf(column: "_entity", values: [2, 3])))
        #expect(
            car.foreignKeys == [
                ForeignKey(
                    columns: ["owner_pk"], referencedTable: "person", referencedColumns: ["_pk"], onDelete: .restrict,
                    isDeferred: true)
            ])
        #expect(lowered.tables.map(\.name) == ["person", "car", "_modelgen_metadata"])
    }

    @Test func manyToManyGetsOneJoinTableAndOrderedRelationshipsGetPositions() throws {
        let (schema, diagnostics) = Self.lower(
            modelDocument(
                """
                    <entity name="Playlist">
                        <relationship name="songs" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Song" inverseName="playlists" inverseEntity="Song"/>
                        <relationship name="tracks" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Track" inverseName="playlist" inverseEntity="Track"/>
                        <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag"/>
                    </entity>
                    <entity name="Song">
                        <relationship name="playlists" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>
                    </entity>
                    <entity name="Tag"/>
                    <entity name="Track">
                        <relationship name="playlist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="tracks" inverseEntity="Playlist"/>
                    </entity>
                """))
        #expect(diagnostics.isEmpty)
        let lowered = try #require(schema)
        #expect(lowered.tables.filter { $0.kind == .join }.map(\.name) == ["playlist_songs", "playlist_tags"])
        let songs = try #require(lowered.table(named: "playlist_songs"))
        #expect(songs.columns.map(\.name) == ["playlist_pk", "songs_pk", "songs_position"])
        #expect(songs.primaryKey == ["playlist_pk", "songs_pk"])
        #expect(songs.foreignKeys.map(\.onDelete) == [.cascade, .restrict])
        #expect(
            lowered.table(named: "track")?.columns.map(\.name) == [
                "_pk", "_entity", "_version", "playlist_pk", "playlist_position",
            ])
        #expect(lowered.table(named: "track")?.foreignKeys.first?.onDelete == .cascade)
        #expect(lowered.indexes.contains { $0.table == "playlist_songs" && $0.parts.map(\.column) == ["songs_pk"] })
    }

    /// Every column says which property it stores, by index in the model, and the generator
    /// finds each relationship's storage by it.
    @Test func columnsSayWhichPropertyTheyStore() throws {
        let text = modelDocument(
            """
                <entity name="Shelf">
                    <attribute name="spot" optional="YES" attributeType="Composite" composite="Point"/>
                    <attribute name="label" optional="YES" attributeType="String"/>
                    <relationship name="books" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
                </entity>
                <entity name="Book">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
                    <relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
                </entity>
                <entity name="Tag">
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
                </entity>
                <composite name="Point">
                    <attribute name="x" optional="YES" attributeType="Double"/>
                    <attribute name="y" optional="YES" attributeType="Double"/>
                </composite>
            """)
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: "Shelves", bytes: Array(text.utf8)), diagnostics: engine))
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        #expect(!engine.hasErrors, "\(engine.sorted.map(\.rendered))")
        var origins: [String: ColumnOrigin] = [:]
        for table in schema.tables {
            for column in table.columns {
                if let origin = column.origin { origins[table.name + "." + column.name] = origin }
            }
        }
        // Shelf is entity 0, Book 1, Tag 2 (document order); properties by declaration order.
        #expect(
            origins == [
                "shelf.spot_x": .attribute(entity: 0, attribute: 0, member: 0),
                "shelf.spot_y": .attribute(entity: 0, attribute: 0, member: 1),
                "shelf.label": .attribute(entity: 0, attribute: 1, member: nil),
                "book.title": .attribute(entity: 1, attribute: 0, member: nil),
                "book.shelf_pk": .toOne(entity: 1, relationship: 0),
                "book.shelf_position": .position(entity: 0, relationship: 0),
                "book_tags.book_pk": .joinSource(entity: 1, relationship: 1),
                "book_tags.tags_pk": .joinDestination(entity: 1, relationship: 1),
                "book_tags.tags_position": .position(entity: 1, relationship: 1),
            ])
        // Not part of the recorded schema.
        var copy = schema
        copy.tables = copy.tables.map { table in
            var table = table
            table.columns = table.columns.map { column in
                var column = column
                column.origin = nil
                return column
            }
            return table
        }
        #expect(copy == schema)
        let storage = Dictionary(
            uniqueKeysWithValues: SwiftGenerator.runtimeMetadata(model: model, schema: schema).flatMap { entity in
                entity.relationships.map { ("\(entity.name).\($0.name)", $0.storage) }
            })
        #expect(storage["Shelf.books"] == .inverseForeignKey(column: "shelf_pk", position: "shelf_position"))
        #expect(storage["Book.shelf"] == .foreignKey(column: "shelf_pk"))
        #expect(
            storage["Book.tags"]
                == .joinTable(table: "book_tags", source: "book_pk", destination: "tags_pk", position: "tags_position"))
        #expect(
            storage["Tag.books"]
                == .joinTable(table: "book_tags", source: "tags_pk", destination: "book_pk", position: nil))
    }

    @Test func configurationsSelectEntities() throws {
        let text = modelDocument(
            """
                <entity name="Local"/>
                <entity name="Shared"/>
                <configuration name="Cloud">
                    <memberEntity name="Shared"/>
                </configuration>
            """)
        #expect(Self.lower(text, configuration: "Cloud").0?.tables.map(\.name) == ["shared", "_modelgen_metadata"])
        #expect(Self.lower(text).0?.tables.map(\.name) == ["local", "shared", "_modelgen_metadata"])
        #expect(Self.lower(text, configuration: "Default").0?.tables.count == 3)
        let (schema, diagnostics) = Self.lower(text, configuration: "Nope")
        #expect(schema == nil)
        #expect(
            diagnostics.map(\.rendered) == [
                "modelgen: error: the model has no configuration named 'Nope' [unknown-configuration]\nmodelgen: note: configurations: 'Default', 'Cloud'"
            ])
    }

    @Test func ddlIsDeterministicAndQuotesReservedWords() throws {
        let text = modelDocument(
            """
                <entity name="Order">
                    <attribute name="group" attributeType="String" defaultValueString="it's"/>
                    <attribute name="limit" optional="YES" attributeType="Integer 64"/>
                    <attribute name="user" optional="YES" attributeType="UUID" defaultValueString="3c4e3ee8-5bd2-4b5a-8f3b-8c0fdbed5b86"/>
                </entity>
            """)
        let first = try #require(Self.lower(text).0)
        let second = try #require(Self.lower(text).0)
        for dialect in SQLDialect.allCases {
            let ddl = SQLEmitter(dialect: dialect).emit(first)
            #expect(ddl == SQLEmitter(dialect: dialect).emit(second))
            #expect(ddl.contains(#"CREATE TABLE "order" ("#))
            #expect(ddl.contains(#""group""#) && ddl.contains(#""limit""#) && ddl.contains(#""user""#))
            #expect(ddl.contains("DEFAULT 'it''s'"))
        }
        #expect(SQLEmitter(dialect: .sqlite).emit(first).contains("DEFAULT X'3C4E3EE85BD24B5A8F3B8C0FDBED5B86'"))
        #expect(SQLEmitter(dialect: .postgres).emit(first).contains("DEFAULT '3c4e3ee8-5bd2-4b5a-8f3b-8c0fdbed5b86'"))
        let database = try SQLiteDatabase()
        try database.execute(SQLEmitter(dialect: .sqlite).emit(first))
        try database.execute(#"INSERT INTO "order" ("_entity") VALUES (417825335)"#)
        #expect(
            try database.rows(#"SELECT "group", hex("user") FROM "order""#) == [
                ["it's", "3C4E3EE85BD24B5A8F3B8C0FDBED5B86"]
            ])
    }
}
