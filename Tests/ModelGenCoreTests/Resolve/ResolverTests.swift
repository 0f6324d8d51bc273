import Foundation
import Testing

@testable import ModelGenCore

/// What Resolve makes of the XML: typed values, links, inheritance and Core Data's defaults.
@Suite struct ResolverTests {
    static func resolve(_ body: String) throws -> (ObjectModel, [Diagnostic]) {
        let engine = DiagnosticEngine()
        let file = SourceFile(path: "T/contents", bytes: Array(modelDocument(body).utf8))
        let syntax = try #require(ModelParser().parse(file, diagnostics: engine))
        let model = ModelResolver().resolve(syntax, diagnostics: engine)
        ModelValidator().validate(model, diagnostics: engine)
        return (model, engine.sorted)
    }

    @Test func attributesAreTypedWithCoreDataDefaults() throws {
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="A">
                    <attribute name="count" attributeType="Integer 16" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="flag" optional="YES" attributeType="Boolean" defaultValueString="0.0"/>
                    <attribute name="legacy" attributeType="Integer 32" defaultValueString="YES"/>
                    <attribute name="price" attributeType="Decimal" defaultValueString="0.10"/>
                    <attribute name="ratio" attributeType="Float" defaultValueString="0"/>
                    <attribute name="when" attributeType="Date" defaultDateTimeInterval="388411200" defaultValueString="2013-04-23 12:00:00 +0000"/>
                    <attribute name="human" attributeType="Date" defaultValueString="2001-01-02 00:00:00 +0100"/>
                    <attribute name="uuid" attributeType="UUID" defaultValueString="3c4e3ee8-5bd2-4b5a-8f3b-8c0fdbed5b86"/>
                    <attribute name="name" attributeType="String" minValueString="3" maxValueString="10" regularExpressionString="[a-z]+"/>
                    <attribute name="scratch" optional="YES" transient="YES"/>
                    <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                    <attribute name="colors" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                    <attribute name="total" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="items.@count"/>
                </entity>
            """)
        #expect(diagnostics.map(\.id) == ["stale-default-value"])
        let attributes = Dictionary(uniqueKeysWithValues: model.entities[0].attributes.map { ($0.name, $0) })
        #expect(attributes["count"]?.type == .integer16)
        #expect(attributes["count"]?.isOptional == false)
        #expect(attributes["count"]?.defaultValue == .integer(0))
        #expect(attributes["count"]?.usesScalarValueType == true)
        #expect(attributes["flag"]?.defaultValue == .bool(false))
        #expect(attributes["flag"]?.isOptional == true)
        #expect(attributes["legacy"]?.defaultValue == .integer(1))
        #expect(attributes["price"]?.defaultValue == .decimal("0.10"))
        #expect(attributes["ratio"]?.defaultValue == .double(0))
        #expect(attributes["when"]?.defaultValue == .date(388_411_200))
        #expect(attributes["human"]?.defaultValue == .date(82_800))
        #expect(attributes["uuid"]?.defaultValue == .uuid("3C4E3EE8-5BD2-4B5A-8F3B-8C0FDBED5B86"))
        #expect(attributes["name"]?.minimum == .integer(3))
        #expect(attributes["name"]?.maximum == .integer(10))
        #expect(attributes["name"]?.regularExpression == "[a-z]+")
        #expect(attributes["scratch"]?.type == .undefined)
        #expect(attributes["scratch"]?.isTransient == true)
        #expect(attributes["blob"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["colors"]?.customClassName == "[String]")
        #expect(attributes["colors"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(attributes["total"]?.derivation == "items.@count")
        #expect(attributes["count"]?.usesScalarValueType == true)
        #expect(attributes["name"]?.usesScalarValueType == nil)
    }

    @Test func inheritanceLinksParentsRootsAndInheritedProperties() throws {
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="Car" representedClassName=".Car" isAbstract="YES">
                    <attribute name="make" attributeType="String"/>
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
                </entity>
                <entity name="ExpensiveSportCar" parentEntity="SportCar">
                    <attribute name="price" attributeType="Decimal"/>
                </entity>
                <entity name="Person">
                    <relationship name="cars" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
                </entity>
                <entity name="SportCar" parentEntity="Car">
                    <attribute name="topSpeed" attributeType="Double" defaultValueString="0.0"/>
                </entity>
            """)
        #expect(diagnostics.isEmpty)
        let car = try #require(model.entityID(named: "Car"))
        let sport = try #require(model.entityID(named: "SportCar"))
        let expensive = try #require(model.entityID(named: "ExpensiveSportCar"))
        #expect(model.entities[expensive].parent == sport)
        #expect(model.entities[sport].parent == car)
        #expect(model.entities[expensive].root == car)
        #expect(model.entities[car].subentities == [sport])
        #expect(model.entities[car].isAbstract)
        #expect(model.entities[car].representedClassName == ".Car")
        #expect(model.ancestors(of: expensive) == [sport, car])
        #expect(model.allAttributes(of: expensive).map(\.name) == ["make", "topSpeed", "price"])
        #expect(model.propertyNames(of: expensive) == ["make", "owner", "price", "topSpeed"])
        #expect(model.allRelationships(of: expensive).map(\.name) == ["owner"])
        if case .relationship(let owner, _)? = model.property(named: "owner", in: expensive) {
            #expect(owner == car)
        } else {
            Issue.record("owner is not inherited")
        }
    }

    @Test func relationshipsResolveDestinationsInversesAndFlags() throws {
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="Business">
                    <relationship name="departments" optional="YES" toMany="YES" deletionRule="Deny" ordered="YES" destinationEntity="Department" inverseName="businesses" inverseEntity="Department"/>
                </entity>
                <entity name="Department">
                    <relationship name="businesses" optional="YES" toMany="YES" minCount="1" maxCount="9" deletionRule="No Action" destinationEntity="Business" inverseName="departments" inverseEntity="Business"/>
                    <relationship name="head" optional="YES" minCount="1" maxCount="1" deletionRule="Cascade" destinationEntity="Business"/>
                </entity>
            """)
        #expect(diagnostics.isEmpty)
        let business = model.entities[0]
        let department = model.entities[1]
        let departments = business.relationships[0]
        #expect(departments.destination == 1)
        #expect(departments.inverse == RelationshipRef(entity: 1, index: 0))
        #expect(departments.isInverseMutual)
        #expect(departments.isToMany && departments.isOrdered)
        #expect(departments.deletionRule == .deny)
        #expect(department.relationships[0].deletionRule == .noAction)
        #expect(department.relationships[0].minCount == 1)
        #expect(department.relationships[0].maxCount == 9)
        let head = department.relationships[1]
        #expect(head.inverse == nil)
        #expect(!head.isToMany)
        #expect(head.minCount == 0, "minCount of an optional to-one is ignored, as Core Data does")
        #expect(head.maxCount == 1)
        #expect(head.deletionRule == .cascade)
    }

    @Test func oneSidedInverseKeepsEachDeclaredInverse() throws {
        // The ArtsyPartner shape: Image.artist names Artist.thumbnail, whose inverse is Image.thumbnail.
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="Artist">
                    <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Image" inverseName="thumbnail" inverseEntity="Image"/>
                </entity>
                <entity name="Image">
                    <relationship name="artist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
                    <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
                </entity>
            """)
        #expect(diagnostics.map(\.id) == ["inverse-not-mutual"])
        let artist = model.entities[1].relationships[0]
        #expect(artist.inverse == RelationshipRef(entity: 0, index: 0))
        #expect(!artist.isInverseMutual)
        #expect(model.entities[0].relationships[0].inverse == RelationshipRef(entity: 1, index: 1))
        #expect(model.entities[0].relationships[0].isInverseMutual)
        #expect(model.entities[1].relationships[1].isInverseMutual)
    }

    @Test func modelLevelElementsAreRead() throws {
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="Item" elementID="Thing" versionHashModifier="2" codeGenerationType="category">
                    <attribute name="location" optional="YES" attributeType="Composite" composite="Point"/>
                    <attribute name="sku" attributeType="String" elementID="code" indexed="YES" preserveAfterDeletion="YES" spotlightIndexingEnabled="YES" storedInTruthFile="YES" allowsCloudEncryption="YES">
                        <userInfo>
                            <entry key="JSONKeyPath" value="sku_code"/>
                        </userInfo>
                    </attribute>
                    <relationship name="parts" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item"/>
                    <fetchedProperty name="similar" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Item" predicateString="sku BEGINSWITH $FETCH_SOURCE.sku"/>
                    </fetchedProperty>
                    <fetchIndex name="bySku">
                        <fetchIndexElement property="sku" type="Binary" order="descending"/>
                    </fetchIndex>
                    <compoundIndexes>
                        <compoundIndex>
                            <index value="sku"/>
                        </compoundIndex>
                    </compoundIndexes>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="sku"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                    <userInfo>
                        <entry key="modelgen.defaultSortKey" value="sku"/>
                    </userInfo>
                </entity>
                <composite name="Point">
                    <attribute name="x" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="y" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                </composite>
                <fetchRequest name="BySku" entity="Item" predicateString="sku == $SKU AND ANY parts.location.x &gt; $X" fetchLimit="100" fetchBatchSize="10" resultType="1" includeSubentities="YES" returnDistinctResults="YES"/>
                <configuration name="Cloud" usedWithCloudKit="YES">
                    <memberEntity name="Item"/>
                </configuration>
                <elements>
                    <element name="Item" positionX="-63" positionY="-18" width="128" height="44"/>
                </elements>
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.rendered))")
        let item = model.entities[0]
        #expect(item.elementID == "Thing")
        #expect(item.versionHashModifier == "2")
        #expect(item.codeGeneration == .category)
        #expect(item.userInfo["modelgen.defaultSortKey"] == "sku")
        let sku = item.attributes[1]
        #expect(sku.elementID == "code")
        #expect(sku.isIndexed && sku.preserveAfterDeletion && sku.spotlightIndexingEnabled)
        #expect(sku.storedInTruthFile && sku.allowsCloudEncryption)
        #expect(sku.userInfo.entries == [UserInfo.Entry(key: "JSONKeyPath", value: "sku_code")])
        #expect(item.attributes[0].compositeName == "Point")
        #expect(model.composites.map(\.name) == ["Point"])
        #expect(model.composites[0].attributes.map(\.name) == ["x", "y"])
        #expect(item.fetchedProperties[0].request.entity == 0)
        #expect(item.fetchedProperties[0].request.variables == ["FETCH_SOURCE"])
        #expect(item.fetchIndexes.map(\.name) == ["bySku", "compoundIndex1"])
        #expect(item.fetchIndexes[0].elements[0].isAscending == false)
        #expect(item.fetchIndexes[1].isLegacy)
        #expect(item.uniquenessConstraints.map(\.properties) == [["sku"]])
        let request = model.fetchRequests[0]
        #expect(request.variables == ["SKU", "X"])
        #expect(request.predicate?.node.description == "sku == $SKU AND ANY parts.location.x > $X")
        #expect(request.fetchLimit == 100 && request.fetchBatchSize == 10)
        #expect(request.resultType == .managedObjectID)
        #expect(request.includeSubentities == true && request.returnDistinctResults == true)
        #expect(request.includesPendingChanges == nil)
        #expect(model.configurations[0].memberNames == ["Item"])
        #expect(model.configurations[0].usedWithCloudKit)
    }

    @Test func emptyModelsAreLegal() throws {
        let (model, diagnostics) = try Self.resolve("    <elements/>")
        #expect(model.entities.isEmpty)
        #expect(diagnostics.isEmpty)
    }

    @Test func booleansInEverySpelling() throws {
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="A" isAbstract="true"/>
                <entity name="B" isAbstract="1"/>
                <entity name="C" isAbstract="NO"/>
                <entity name="D" isAbstract="false"/>
            """)
        #expect(diagnostics.isEmpty)
        #expect(model.entities.map(\.isAbstract) == [true, true, false, false])
    }

    /// Each entity's property index, as the walk from its root down would build it: the first
    /// declaration of a name wins (ancestors before the entity; attributes, relationships, then
    /// fetched properties).
    static func expectedPropertyIndex(of index: Int, in model: ObjectModel) -> [String: PropertyRef] {
        var chain = [index]
        while let parent = model.entities[chain.last!].parent { chain.append(parent) }
        var table: [String: PropertyRef] = [:]
        for entity in chain.reversed() {
            let declared = model.entities[entity]
            for (position, attribute) in declared.attributes.enumerated() where table[attribute.name] == nil {
                table[attribute.name] = .attribute(entity: entity, index: position)
            }
            for (position, relationship) in declared.relationships.enumerated() where table[relationship.name] == nil {
                table[relationship.name] = .relationship(entity: entity, index: position)
            }
            for (position, property) in declared.fetchedProperties.enumerated() where table[property.name] == nil {
                table[property.name] = .fetchedProperty(entity: entity, index: position)
            }
        }
        return table
    }

    @Test func propertyIndexesHoldOwnAndInheritedPropertiesInTheCorpus() throws {
        guard let root = TestPaths.sharedFolder("corpus") else { return }
        var entities = 0
        for url in TestPaths.files(named: "contents", under: root) {
            let engine = DiagnosticEngine()
            let file = SourceFile(path: url.path, bytes: try [UInt8](Data(contentsOf: url)))
            let syntax = try #require(ModelParser().parse(file, diagnostics: engine))
            let model = ModelResolver().resolve(syntax, diagnostics: engine)
            for index in model.entities.indices {
                #expect(
                    model.entities[index].propertyIndex == Self.expectedPropertyIndex(of: index, in: model),
                    "\(url.path)")
            }
            entities += model.entities.count
        }
        #expect(entities > 500)
    }

    /// Levels wide enough to be indexed on several cores; and a name declared again below an
    /// ancestor, which is reported (once) and leaves the inherited property in the index.
    @Test(arguments: [false, true])
    func propertyIndexesOfWideHierarchies(redeclare: Bool) throws {
        var body = ""
        for root in 0..<100 {
            body +=
                "<entity name=\"R\(root)\"><attribute name=\"a\" attributeType=\"String\"/><attribute name=\"r\(root)\" attributeType=\"String\"/></entity>\n"
            for child in 0..<2 {
                let name = "C\(root)x\(child)"
                body +=
                    "<entity name=\"\(name)\" parentEntity=\"R\(root)\"><attribute name=\"c\" attributeType=\"Integer 16\"/></entity>\n"
                let again =
                    redeclare && root == 57 && child == 1 ? "<attribute name=\"a\" attributeType=\"Date\"/>" : ""
                body +=
                    "<entity name=\"G\(name)\" parentEntity=\"\(name)\"><attribute name=\"g\" attributeType=\"Double\"/>\(again)</entity>\n"
            }
        }
        let engine = DiagnosticEngine()
        let file = SourceFile(path: "T/contents", bytes: Array(modelDocument(body).utf8))
        let syntax = try #require(ModelParser().parse(file, diagnostics: engine))
        let model = ModelResolver().resolve(syntax, diagnostics: engine)
        #expect(model.entities.count == 500)
        for index in model.entities.indices {
            #expect(model.entities[index].propertyIndex == Self.expectedPropertyIndex(of: index, in: model))
        }
        let grandchild = try #require(model.entityIndex["GC57x1"])
        #expect(model.entities[grandchild].propertyIndex.count == 4)
        #expect(
            model.entities[grandchild].propertyIndex["a"] == .attribute(entity: model.entityIndex["R57"]!, index: 0))
        #expect(engine.diagnostics.map(\.id.rawValue) == (redeclare ? ["duplicate-inherited-property"] : []))
    }

    /// Every default whose value is not the one written is named by a warning: YES/NO on any
    /// number type (`NO` as well as `YES`), numbers other than 0 and 1 on a Boolean, a Decimal
    /// of more digits than a Decimal holds; unreadable ones leave the attribute without default.
    @Test func everyDefaultThatDoesNotFitItsTypeWarns() throws {
        let (model, diagnostics) = try Self.resolve(
            """
                <entity name="A">
                    <attribute name="a" attributeType="Integer 64" defaultValueString="NO"/>
                    <attribute name="b" attributeType="Integer 16" defaultValueString="yes"/>
                    <attribute name="c" attributeType="Double" defaultValueString="NO"/>
                    <attribute name="d" attributeType="Decimal" defaultValueString="YES"/>
                    <attribute name="e" attributeType="Boolean" defaultValueString="2"/>
                    <attribute name="f" attributeType="Boolean" defaultValueString="-1"/>
                    <attribute name="g" attributeType="Decimal" defaultValueString="1.000000000000000000000000000000000000001"/>
                    <attribute name="h" attributeType="Integer 32" defaultValueString="many"/>
                    <attribute name="i" attributeType="Boolean" defaultValueString="1"/>
                    <attribute name="j" attributeType="Decimal" defaultValueString="0.10"/>
                    <attribute name="k" attributeType="Integer 32" defaultValueString="7"/>
                </entity>
            """)
        #expect(
            diagnostics.map(\.id) == [
                "stale-default-value", "stale-default-value", "stale-default-value", "stale-default-value",
                "inexact-default-value", "inexact-default-value", "inexact-default-value", "invalid-default-value",
            ])
        let defaults = Dictionary(uniqueKeysWithValues: model.entities[0].attributes.map { ($0.name, $0.defaultValue) })
        #expect(defaults["a"] == .integer(0) && defaults["b"] == .integer(1) && defaults["e"] == .bool(true))
        #expect(defaults["h"] == .some(nil) && defaults["i"] == .bool(true) && defaults["k"] == .integer(7))
    }
}
