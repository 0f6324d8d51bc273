@testable import ModelGenCore

/// One marked input per diagnostic id. `1️⃣` marks where the diagnostic must point.
enum DiagnosticCases {
    typealias Case = DiagnosticLocationTests.Case

    static let all: [Case] = parse + values + resolve + relationships + fetchRequests + validate

    static let parse: [Case] = [
        Case(
            id: "xml-doctype-not-allowed", severity: .error,
            marked: """
                <?xml version="1.0"?>
                1️⃣<!DOCTYPE model [<!ENTITY a "b">]>
                <model/>
                """, isDocument: true),
        Case(
            id: "xml-malformed", severity: .error,
            marked: """
                <?xml version="1.0"?>
                <model>
                    <entity name="A" foo=1️⃣bar/>
                </model>
                """, isDocument: true),
        Case(id: "xml-malformed", severity: .error, marked: "1️⃣", isDocument: true),
        Case(
            id: "wrong-root-element", severity: .error,
            marked: """
                <?xml version="1.0"?>
                1️⃣<plist version="1.0"><dict/></plist>
                """, isDocument: true),
        Case(
            id: "unknown-model-type", severity: .warning,
            marked: """
                <?xml version="1.0"?>
                <model 1️⃣type="com.example.Other" documentVersion="1.0"/>
                """, isDocument: true),
        Case(id: "unknown-attribute", severity: .warning, marked: #"    <entity name="A" 1️⃣color="red"/>"#),
        Case(
            id: "unknown-element", severity: .warning,
            marked: """
                    <entity name="A">
                        1️⃣<widget size="2"/>
                    </entity>
                """),
        Case(
            id: "unexpected-text", severity: .warning,
            marked: """
                    <entity name="A">
                      1️⃣stray words
                    </entity>
                """),
    ]

    static let values: [Case] = [
        Case(id: "invalid-boolean", severity: .warning, marked: #"    <entity name="A" 1️⃣isAbstract="maybe"/>"#),
        Case(
            id: "invalid-number", severity: .error,
            marked: """
                    <entity name="A">
                        <relationship name="r" toMany="YES" 1️⃣minCount="few" destinationEntity="A"/>
                    </entity>
                """),
        Case(
            id: "unknown-attribute-type", severity: .error,
            marked: entity(#"<attribute name="a" 1️⃣attributeType="Text"/>"#)),
        Case(id: "missing-attribute-type", severity: .error, marked: entity(#"1️⃣<attribute name="a" optional="YES"/>"#)),
        Case(
            id: "stale-default-value", severity: .warning,
            marked: entity(#"<attribute name="a" attributeType="Integer 32" 1️⃣defaultValueString="YES"/>"#)),
        Case(
            id: "invalid-default-value", severity: .warning,
            marked: entity(#"<attribute name="a" attributeType="UUID" 1️⃣defaultValueString="not-a-uuid"/>"#)),
        Case(
            id: "inexact-default-value", severity: .warning,
            marked: entity(#"<attribute name="a" attributeType="Boolean" 1️⃣defaultValueString="2"/>"#)),
        Case(
            id: "default-out-of-range", severity: .error,
            marked: entity(#"<attribute name="a" attributeType="Integer 16" 1️⃣defaultValueString="70000"/>"#)),
        Case(
            id: "invalid-bound", severity: .error,
            marked: entity(#"<attribute name="a" attributeType="Integer 16" 1️⃣minValueString="low"/>"#)),
    ]

    static let resolve: [Case] = [
        Case(id: "missing-name", severity: .error, marked: #"    1️⃣<entity representedClassName="X"/>"#),
        Case(
            id: "duplicate-entity", severity: .error,
            marked: """
                    <entity name="A"/>
                    <entity 1️⃣name="A"/>
                """),
        Case(id: "unresolved-parent-entity", severity: .error, marked: #"    <entity name="B" 1️⃣parentEntity="Nope"/>"#),
        Case(
            id: "inheritance-cycle", severity: .error,
            marked: """
                    <entity name="A" 1️⃣parentEntity="B"/>
                    <entity name="B" parentEntity="A"/>
                """),
        Case(
            id: "duplicate-property", severity: .error,
            marked: entity(
                """
                <attribute name="a" attributeType="String"/>
                        <attribute 1️⃣name="a" attributeType="String"/>
                """)),
        Case(
            id: "duplicate-inherited-property", severity: .error,
            marked: """
                    <entity name="Base">
                        <attribute name="title" attributeType="String"/>
                    </entity>
                    <entity name="Child" parentEntity="Base">
                        <attribute 1️⃣name="title" attributeType="String"/>
                    </entity>
                """),
        Case(
            id: "unknown-code-generation", severity: .warning,
            marked: #"    <entity name="A" 1️⃣codeGenerationType="magic"/>"#),
        Case(
            id: "duplicate-fetch-request", severity: .error,
            marked: """
                    <entity name="A"/>
                    <fetchRequest name="All" entity="A"/>
                    <fetchRequest 1️⃣name="All" entity="A"/>
                """),
        Case(
            id: "duplicate-composite", severity: .error,
            marked: """
                    <composite name="Point"/>
                    <composite 1️⃣name="Point"/>
                """),
        Case(
            id: "duplicate-configuration", severity: .error,
            marked: """
                    <configuration name="Cloud"/>
                    <configuration 1️⃣name="Cloud"/>
                """),
    ]

    static let relationships: [Case] = [
        Case(
            id: "unresolved-destination", severity: .error,
            marked: entity(#"<relationship name="r" maxCount="1" deletionRule="Nullify" 1️⃣destinationEntity="Nope"/>"#)),
        Case(id: "missing-destination", severity: .error, marked: entity(#"1️⃣<relationship name="r" maxCount="1"/>"#)),
        Case(
            id: "unknown-deletion-rule", severity: .error,
            marked: entity(#"<relationship name="r" maxCount="1" 1️⃣deletionRule="Explode" destinationEntity="A"/>"#)),
        Case(
            id: "unresolved-inverse", severity: .error,
            marked: entity(
                #"<relationship name="r" maxCount="1" destinationEntity="A" 1️⃣inverseName="nope" inverseEntity="A"/>"#)),
        Case(
            id: "inverse-entity-mismatch", severity: .warning,
            marked: """
                    <entity name="A">
                        <relationship name="bs" toMany="YES" destinationEntity="B" inverseName="a" 1️⃣inverseEntity="C"/>
                    </entity>
                    <entity name="B">
                        <relationship name="a" maxCount="1" destinationEntity="A" inverseName="bs" inverseEntity="A"/>
                    </entity>
                    <entity name="C"/>
                """),
        Case(
            id: "inverse-entity-without-name", severity: .warning,
            marked: entity(#"<relationship name="r" maxCount="1" destinationEntity="A" 1️⃣inverseEntity="A"/>"#)),
        Case(
            id: "inverse-destination-mismatch", severity: .error,
            marked: """
                    <entity name="A">
                        <relationship name="b" maxCount="1" destinationEntity="B" 1️⃣inverseName="c" inverseEntity="B"/>
                    </entity>
                    <entity name="B">
                        <relationship name="c" maxCount="1" destinationEntity="C"/>
                    </entity>
                    <entity name="C"/>
                """),
        Case(
            id: "inverse-not-mutual", severity: .warning,
            marked: """
                    <entity name="Artist">
                        <relationship name="portrait" maxCount="1" destinationEntity="Image" inverseName="sitter" inverseEntity="Image"/>
                        <relationship name="thumbnail" maxCount="1" destinationEntity="Image" 1️⃣inverseName="sitter" inverseEntity="Image"/>
                    </entity>
                    <entity name="Image">
                        <relationship name="sitter" maxCount="1" destinationEntity="Artist" inverseName="portrait" inverseEntity="Artist"/>
                    </entity>
                """),
    ]

    static let fetchRequests: [Case] = [
        Case(
            id: "invalid-predicate", severity: .error,
            marked: """
                    <entity name="A"/>
                    <fetchRequest name="F" entity="A" predicateString="name == 1️⃣)"/>
                """),
        Case(id: "unresolved-fetch-entity", severity: .error, marked: #"    <fetchRequest name="F" 1️⃣entity="Nope"/>"#),
        Case(id: "missing-fetch-entity", severity: .error, marked: #"    1️⃣<fetchRequest name="F"/>"#),
        Case(
            id: "missing-fetch-request", severity: .error,
            marked: entity(#"1️⃣<fetchedProperty name="related" optional="YES"/>"#)),
        Case(
            id: "unknown-result-type", severity: .error,
            marked: """
                    <entity name="A"/>
                    <fetchRequest name="F" entity="A" 1️⃣resultType="9"/>
                """),
        Case(
            id: "unknown-predicate-key", severity: .error,
            marked: """
                    <entity name="A">
                        <attribute name="title" optional="YES" attributeType="String"/>
                    </entity>
                    <fetchRequest name="F" entity="A" predicateString="title == $T AND 1️⃣titel == $T"/>
                """),
        Case(
            id: "invalid-predicate-key-path", severity: .error,
            marked: """
                    <entity name="A">
                        <attribute name="title" optional="YES" attributeType="String"/>
                    </entity>
                    <fetchRequest name="F" entity="A" predicateString="1️⃣title.length == 3"/>
                """),
        Case(
            id: "predicate-not-run-by-runtime", severity: .warning,
            marked: """
                    <entity name="A">
                        <attribute name="title" optional="YES" attributeType="String"/>
                        <relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="A"/>
                    </entity>
                    <fetchRequest name="F" entity="A" predicateString="title != nil AND 1️⃣parent.title == title"/>
                """),
    ]

    static let validate: [Case] = [
        Case(
            id: "inverted-bounds", severity: .error,
            marked: entity(#"<attribute name="a" attributeType="Integer 16" 1️⃣minValueString="5" maxValueString="1"/>"#)),
        Case(
            id: "default-outside-bounds", severity: .warning,
            marked: entity(
                #"<attribute name="a" attributeType="Integer 16" minValueString="0" maxValueString="5" 1️⃣defaultValueString="9"/>"#
            )),
        Case(
            id: "invalid-regular-expression", severity: .error,
            marked: entity(#"<attribute name="a" attributeType="String" 1️⃣regularExpressionString="(["/>"#)),
        Case(
            id: "missing-derivation", severity: .error,
            marked: entity(#"<attribute name="a" optional="YES" attributeType="Integer 64" 1️⃣derived="YES"/>"#)),
        Case(
            id: "invalid-swift-type", severity: .error,
            marked: entity(
                #"1️⃣<attribute name="a" attributeType="String"><userInfo><entry key="modelgen.type" value="Status!"/></userInfo></attribute>"#
            )),
        Case(
            id: "ignored-swift-type", severity: .warning,
            marked: entity(
                #"1️⃣<attribute name="a" attributeType="String" transient="YES"><userInfo><entry key="modelgen.type" value="Status"/></userInfo></attribute>"#
            )),
        Case(
            id: "missing-composite", severity: .error,
            marked: entity(#"1️⃣<attribute name="c" attributeType="Composite"/>"#)),
        Case(
            id: "unresolved-composite", severity: .error,
            marked: entity(#"<attribute name="c" attributeType="Composite" 1️⃣composite="Nope"/>"#)),
        Case(
            id: "invalid-name", severity: .error,
            marked: entity(#"<attribute 1️⃣name="a'); DROP TABLE x;--" attributeType="String"/>"#)),
        Case(
            id: "invalid-name", severity: .error, marked: #"    <entity 1️⃣name="lower" representedClassName="Lower"/>"#),
        Case(id: "invalid-name", severity: .error, marked: #"    <entity name="A" 1️⃣representedClassName="My App.A"/>"#),
        Case(
            id: "invalid-name", severity: .error,
            marked: entity(#"<relationship 1️⃣name="r&#10;s" destinationEntity="A"/>"#)),
        Case(
            id: "unknown-sort-key", severity: .warning,
            marked: """
                    <entity name="A">
                        <attribute name="title" optional="YES" attributeType="String"/>
                        <relationship 1️⃣name="r" toMany="YES" destinationEntity="A">
                            <userInfo>
                                <entry key="modelgen.sortKey" value="-title,nope"/>
                            </userInfo>
                        </relationship>
                    </entity>
                """),
        Case(
            id: "inverted-relationship-counts", severity: .error,
            marked: entity(#"<relationship name="r" toMany="YES" 1️⃣minCount="5" maxCount="2" destinationEntity="A"/>"#)),
        Case(
            id: "unknown-constraint-property", severity: .error,
            marked: entity(constraint(#"<constraint 1️⃣value="nope"/>"#))),
        Case(
            id: "to-many-in-uniqueness-constraint", severity: .error,
            marked: entity(
                #"<relationship name="items" toMany="YES" destinationEntity="A"/>"# + "\n        "
                    + constraint(#"<constraint 1️⃣value="items"/>"#))),
        Case(
            id: "unstored-property-in-uniqueness-constraint", severity: .error,
            marked: entity(
                #"<attribute name="t" optional="YES" transient="YES" attributeType="String"/>"# + "\n        "
                    + constraint(#"<constraint 1️⃣value="t"/>"#))),
        Case(
            id: "empty-uniqueness-constraint", severity: .warning,
            marked: entity(
                """
                <uniquenessConstraints>
                            1️⃣<uniquenessConstraint></uniquenessConstraint>
                        </uniquenessConstraints>
                """)),
        Case(
            id: "unknown-index-property", severity: .error,
            marked: entity(index(#"<fetchIndexElement 1️⃣property="nope" type="Binary" order="ascending"/>"#))),
        Case(
            id: "to-many-in-index", severity: .warning,
            marked: entity(
                #"<relationship name="items" toMany="YES" destinationEntity="A"/>"# + "\n        "
                    + index(#"<fetchIndexElement 1️⃣property="items" type="Binary" order="ascending"/>"#))),
        Case(
            id: "unstored-property-in-index", severity: .error,
            marked: entity(
                #"<attribute name="t" optional="YES" transient="YES" attributeType="String"/>"# + "\n        "
                    + index(#"<fetchIndexElement 1️⃣property="t" type="Binary" order="ascending"/>"#))),
        Case(
            id: "empty-index-element", severity: .error,
            marked: entity(index(#"1️⃣<fetchIndexElement type="Binary" order="ascending"/>"#))),
        Case(
            id: "duplicate-fetch-index", severity: .error,
            marked: entity(
                """
                <attribute name="a" attributeType="String"/>
                        <fetchIndex name="byA">
                            <fetchIndexElement property="a" type="Binary" order="ascending"/>
                        </fetchIndex>
                        <fetchIndex 1️⃣name="byA">
                            <fetchIndexElement property="a" type="Binary" order="descending"/>
                        </fetchIndex>
                """)),
        Case(
            id: "unknown-configuration-member", severity: .error,
            marked: """
                    <entity name="A"/>
                    <configuration name="Cloud">
                        <memberEntity 1️⃣name="Nope"/>
                    </configuration>
                """),
        Case(
            id: "duplicate-configuration-member", severity: .warning,
            marked: """
                    <entity name="A"/>
                    <configuration name="Cloud">
                        <memberEntity name="A"/>
                        <memberEntity 1️⃣name="A"/>
                    </configuration>
                """),
        Case(id: "reserved-configuration-name", severity: .error, marked: #"    <configuration 1️⃣name="Default"/>"#),
    ]

    /// An entity `A` holding `content`.
    static func entity(_ content: String) -> String {
        """
            <entity name="A">
                \(content)
            </entity>
        """
    }

    static func constraint(_ item: String) -> String {
        """
        <uniquenessConstraints>
                    <uniquenessConstraint>
                        \(item)
                    </uniquenessConstraint>
                </uniquenessConstraints>
        """
    }

    static func index(_ item: String) -> String {
        """
        <fetchIndex name="byX">
                    \(item)
                </fetchIndex>
        """
    }
}
