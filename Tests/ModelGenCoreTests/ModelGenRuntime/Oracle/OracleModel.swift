import Foundation
import TestSupport

/// The oracle's seeded source: the same seed gives the same model, operations and queries on
/// every machine.
struct OracleRandom {
    private var generator: SplitMix

    init(seed: UInt64) { generator = SplitMix(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    /// A number in `0..<bound` (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<C: Collection>(_ items: C) -> C.Element where C.Index == Int {
        items[items.startIndex + below(items.count)]
    }
}

/// A random Core Data model for the oracle, written as the XML Xcode writes, so it goes through
/// the whole front end (parse, resolve, lower) like a user's model.
struct OracleModel {
    enum Kind: CaseIterable {
        case int16, int32, int64, double, float, decimal, string, bool, date, data, uuid, url

        var xmlType: String {
            switch self {
            case .int16: "Integer 16"
            case .int32: "Integer 32"
            case .int64: "Integer 64"
            case .double: "Double"
            case .float: "Float"
            case .decimal: "Decimal"
            case .string: "String"
            case .bool: "Boolean"
            case .date: "Date"
            case .data: "Binary"
            case .uuid: "UUID"
            case .url: "URI"
            }
        }

        /// Whether `<`, `>`, BETWEEN and sorting are checked on the kind.
        var isOrdered: Bool { self != .data && self != .uuid && self != .url }
    }

    enum Rule: String, CaseIterable {
        case nullify = "Nullify"
        case cascade = "Cascade"
        case deny = "Deny"
    }

    struct Attribute {
        var name: String
        var kind: Kind
        var isOptional: Bool
        var defaultValue: OracleValue?
    }

    struct Relationship {
        var name: String
        var destination: Int
        var inverse: String
        var isToMany: Bool
        var isOrdered: Bool
        var isOptional: Bool
        var minCount: Int?
        var maxCount: Int?
        var rule: Rule
        /// The entity that declares the inverse (the destination, or one of its ancestors); nil:
        /// the destination.
        var inverseEntity: Int? = nil
    }

    struct Entity {
        var name: String
        var parent: Int?
        var isAbstract: Bool
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        /// Attribute and to-one relationship names unique together (one constraint at most).
        var unique: [String]?
    }

    var entities: [Entity]

    /// A relationship by the entity that declares it and its name.
    struct RelationshipRef: Hashable {
        var entity: Int
        var name: String
    }

    // MARK: - Lookups

    /// The entity and its ancestors, root first.
    func lineage(_ entity: Int) -> [Int] {
        var chain = [entity]
        while let parent = entities[chain[0]].parent { chain.insert(parent, at: 0) }
        return chain
    }

    func attributes(of entity: Int) -> [Attribute] { lineage(entity).flatMap { entities[$0].attributes } }

    func relationships(of entity: Int) -> [(RelationshipRef, Relationship)] {
        lineage(entity).flatMap { owner in
            entities[owner].relationships.map { (RelationshipRef(entity: owner, name: $0.name), $0) }
        }
    }

    func relationship(_ ref: RelationshipRef) -> Relationship {
        entities[ref.entity].relationships.first { $0.name == ref.name }!
    }

    func inverse(of ref: RelationshipRef) -> RelationshipRef {
        let relationship = relationship(ref)
        return RelationshipRef(
            entity: relationship.inverseEntity ?? relationship.destination, name: relationship.inverse)
    }

    /// Whether `entity` is `ancestor` or below it.
    func isKind(_ entity: Int, of ancestor: Int) -> Bool { lineage(entity).contains(ancestor) }

    var concreteEntities: [Int] { entities.indices.filter { !entities[$0].isAbstract } }

    func root(of entity: Int) -> Int { lineage(entity)[0] }

    // MARK: - Making one

    struct Options {
        /// Sibling sub-entities declare attributes of the same name (of the same or another type).
        var sameNamedSiblings = true
        /// Non-optional to-many relationships without a minimum (Core Data: no minimum).
        var requiredToMany = true
        /// Required to-one relationships.
        var requiredToOne = true
        var uniqueness = true
    }

    static func random(_ random: inout OracleRandom, options: Options = Options()) -> OracleModel {
        var entities: [Entity] = []
        let roots = 2 + random.below(3)
        for index in 0..<roots {
            var entity = Entity(name: "E\(index)", parent: nil, isAbstract: false)
            entity.attributes = randomAttributes(&random, prefix: "a", count: 1 + random.below(4))
            entities.append(entity)
        }
        // Sub-entities: a few roots get one or two children; siblings may share attribute names.
        for parent in 0..<roots where random.chance(40) {
            let children = 1 + random.below(2)
            let shared = options.sameNamedSiblings && children == 2 && random.chance(60)
            let sharedKinds = (random.pick(Kind.allCases), random.pick(Kind.allCases))
            for child in 0..<children {
                var entity = Entity(name: "E\(parent)s\(child)", parent: parent, isAbstract: false)
                entity.attributes = randomAttributes(&random, prefix: "s\(parent)x\(child)_", count: random.below(3))
                if shared {
                    let kind = child == 0 ? sharedKinds.0 : sharedKinds.1
                    entity.attributes.append(Attribute(name: "shared", kind: kind, isOptional: true, defaultValue: nil))
                }
                entities.append(entity)
            }
            if random.chance(30) { entities[parent].isAbstract = true }
        }
        // Relationships, each with its inverse.
        let pairs = 1 + random.below(4)
        for number in 0..<pairs {
            let source = random.below(entities.count)
            let destination = random.below(entities.count)
            let shape = random.below(3)  // 0 one-to-one, 1 one-to-many, 2 many-to-many
            let forwardToMany = shape >= 1
            let inverseToMany = shape == 2
            var forward = Relationship(
                name: "r\(number)", destination: destination, inverse: "r\(number)i", isToMany: forwardToMany,
                isOrdered: forwardToMany && random.chance(25), isOptional: true, rule: randomRule(&random))
            var inverse = Relationship(
                name: "r\(number)i", destination: source, inverse: "r\(number)", isToMany: inverseToMany,
                isOrdered: inverseToMany && random.chance(20), isOptional: true, rule: randomRule(&random))
            if forwardToMany && random.chance(15) {
                if options.requiredToMany && random.chance(50) { forward.isOptional = false }
                if random.chance(50) { forward.minCount = random.below(2) }
                if random.chance(40) { forward.maxCount = 3 }
            }
            if !inverseToMany && options.requiredToOne && random.chance(20) && source != destination {
                inverse.isOptional = false
            }
            entities[source].relationships.append(forward)
            entities[destination].relationships.append(inverse)
        }
        if options.uniqueness, random.chance(30) {
            let root = random.below(roots)
            if let attribute = entities[root].attributes.first(where: {
                [.string, .int64, .int32].contains($0.kind) && !$0.isOptional
            }) {
                entities[root].unique = [attribute.name]
            }
            // A to-one (kept in the root's table: its inverse is to-many) joins the constraint, or
            // is the whole of it.
            let toOnes = entities[root].relationships.filter { relationship in
                !relationship.isToMany
                    && entities[relationship.destination].relationships.contains {
                        $0.name == relationship.inverse && $0.isToMany
                    }
            }
            if let toOne = toOnes.first, random.chance(entities[root].unique == nil ? 30 : 50) {
                entities[root].unique = (entities[root].unique ?? []) + [toOne.name]
            }
        }
        return OracleModel(entities: entities)
    }

    private static func randomRule(_ random: inout OracleRandom) -> Rule {
        let roll = random.below(100)
        return roll < 60 ? .nullify : roll < 85 ? .cascade : .deny
    }

    private static func randomAttributes(_ random: inout OracleRandom, prefix: String, count: Int) -> [Attribute] {
        (0..<count).map { index in
            let kind = random.pick(Kind.allCases)
            let isOptional = random.chance(60)
            var defaultValue: OracleValue?
            if [.int16, .int32, .int64, .double, .float, .decimal, .string, .bool].contains(kind),
                random.chance(isOptional ? 20 : 60)
            {
                defaultValue = OracleValue.random(kind, &random)
                if case .double(let number)? = defaultValue, !number.isFinite { defaultValue = nil }
            }
            return Attribute(name: "\(prefix)\(index)", kind: kind, isOptional: isOptional, defaultValue: defaultValue)
        }
    }

    // MARK: - XML

    var xml: String {
        var text = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        text +=
            #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">"#
            + "\n"
        for entity in entities {
            var head = #"    <entity name="\#(entity.name)" representedClassName="\#(entity.name)""#
            if entity.isAbstract { head += #" isAbstract="YES""# }
            if let parent = entity.parent { head += #" parentEntity="\#(entities[parent].name)""# }
            text += head + #" syncable="YES" codeGenerationType="class">"# + "\n"
            for attribute in entity.attributes {
                var line = #"        <attribute name="\#(attribute.name)""#
                if attribute.isOptional { line += #" optional="YES""# }
                line += #" attributeType="\#(attribute.kind.xmlType)""#
                if let value = attribute.defaultValue { line += #" defaultValueString="\#(value.xmlDefault)""# }
                if [.int16, .int32, .int64, .double, .float, .bool].contains(attribute.kind) {
                    line += #" usesScalarValueType="YES""#
                }
                text += line + "/>\n"
            }
            for relationship in entity.relationships {
                var line = #"        <relationship name="\#(relationship.name)""#
                if relationship.isOptional { line += #" optional="YES""# }
                if relationship.isToMany {
                    line += #" toMany="YES""#
                    if let minimum = relationship.minCount { line += #" minCount="\#(minimum)""# }
                    if let maximum = relationship.maxCount { line += #" maxCount="\#(maximum)""# }
                } else {
                    line += #" maxCount="1""#
                }
                if relationship.isOrdered { line += #" ordered="YES""# }
                let destination = entities[relationship.destination].name
                line +=
                    #" deletionRule="\#(relationship.rule.rawValue)" destinationEntity="\#(destination)" inverseName="\#(relationship.inverse)" inverseEntity="\#(destination)"/>"#
                text += line + "\n"
            }
            if let unique = entity.unique {
                text += "        <uniquenessConstraints>\n            <uniquenessConstraint>\n"
                for name in unique { text += #"                <constraint value="\#(name)"/>"# + "\n" }
                text += "            </uniquenessConstraint>\n        </uniquenessConstraints>\n"
            }
            text += "    </entity>\n"
        }
        return text + "</model>"
    }
}
