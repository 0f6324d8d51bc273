/// A resolved, typed Core Data model: the boundary value between Resolve/Validate and the later
/// stages (Lower, Emit, Diff).
///
/// Names are resolved to indices into `entities`, inverses and inheritance are linked, values are
/// typed. Every element keeps the line it came from, so later stages can still point at the XML
/// through `source`.
public struct ObjectModel: Sendable, Encodable {
    public var source: SourceFile { _source }
    private let _source: SourceFile

    /// The model's name (the bundle's or folder's name without its extension), set by the loader.
    public var modelName: String?
    /// The version folder's name without `.xcdatamodel`, when the model came from a bundle or folder.
    public var versionName: String?
    public var info: ModelInfo
    /// Entities in file order (Xcode writes them sorted by name).
    public var entities: [Entity]
    public var composites: [Composite]
    public var fetchRequests: [FetchRequest]
    public var configurations: [Configuration]

    /// Entity index by name (the first entity of a duplicated name).
    let entityIndex: [String: Int]

    init(
        source: SourceFile,
        info: ModelInfo,
        entities: [Entity],
        composites: [Composite],
        fetchRequests: [FetchRequest],
        configurations: [Configuration],
        entityIndex: [String: Int]
    ) {
        self._source = source
        self.info = info
        self.entities = entities
        self.composites = composites
        self.fetchRequests = fetchRequests
        self.configurations = configurations
        self.entityIndex = entityIndex
    }

    private enum CodingKeys: String, CodingKey {
        case modelName, versionName, info, entities, composites, fetchRequests, configurations
    }

    /// The index of the entity called `name`.
    public func entityID(named name: String) -> Int? { entityIndex[name] }

    public func entity(named name: String) -> Entity? { entityIndex[name].map { entities[$0] } }
}

/// The `<model>` element's own attributes.
public struct ModelInfo: Sendable, Encodable, Hashable {
    public var lastSavedToolsVersion: String?
    public var systemVersion: String?
    public var minimumToolsVersion: String?
    public var sourceLanguage: String?
    public var versionIdentifier: String?
    public var usedWithCloudKit: Bool
    public var usedWithSwiftData: Bool
}

/// `userInfo` key/value pairs in file order.
public struct UserInfo: Sendable, Encodable, Hashable {
    public struct Entry: Sendable, Encodable, Hashable {
        public var key: String
        public var value: String
    }

    public var entries: [Entry] = []

    public var isEmpty: Bool { entries.isEmpty }

    /// The value of the first entry with `key`.
    public subscript(key: String) -> String? { entries.first { $0.key == key }?.value }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}

/// How Xcode generates code for an entity (`codeGenerationType`).
public enum CodeGeneration: String, Sendable, Encodable, Hashable {
    /// No attribute: the user writes the class (Manual/None).
    case manual
    /// `class`: the whole class is generated.
    case `class`
    /// `category`: the user writes the class, the generator writes an extension with the properties.
    case category
}

public struct Entity: Sendable, Encodable {
    public var name: String
    /// `representedClassName` as written (`nil` when absent or empty: `NSManagedObject`).
    public var representedClassName: String?
    public var parentName: String?
    /// The parent entity's index, when `parentName` resolved.
    public var parent: Int?
    /// Direct sub-entities' indices, in file order.
    public var subentities: [Int] = []
    /// The root of the inheritance chain (itself for a root entity).
    public var root: Int
    public var isAbstract: Bool
    public var elementID: String?
    public var versionHashModifier: String?
    public var codeGeneration: CodeGeneration
    public var attributes: [Attribute]
    public var relationships: [Relationship]
    public var fetchedProperties: [FetchedProperty]
    /// Fetch indexes, followed by legacy compound indexes (which are unnamed: `isLegacy`).
    public var fetchIndexes: [FetchIndex]
    public var uniquenessConstraints: [UniquenessConstraint]
    public var userInfo: UserInfo
    public var line: Int

    /// Every property visible on this entity, own and inherited, by name.
    var propertyIndex: [String: PropertyRef] = [:]

    private enum CodingKeys: String, CodingKey {
        case name, representedClassName, parentName, isAbstract, elementID, versionHashModifier
        case codeGeneration, attributes, relationships, fetchedProperties, fetchIndexes
        case uniquenessConstraints, userInfo, line
    }
}

/// Where a property is declared: the entity's index and the index in that entity's own list.
public enum PropertyRef: Hashable, Sendable {
    case attribute(entity: Int, index: Int)
    case relationship(entity: Int, index: Int)
    case fetchedProperty(entity: Int, index: Int)

    public var entity: Int {
        switch self {
        case .attribute(let entity, _), .relationship(let entity, _), .fetchedProperty(let entity, _): entity
        }
    }
}

/// The Core Data attribute types, spelled as in the XML.
public enum AttributeType: String, Sendable, Encodable, Hashable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binary = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    case transformable = "Transformable"
    case composite = "Composite"
    case objectID = "Object ID"
    /// Written by omitting `attributeType` (transient attributes only).
    case undefined = "Undefined"

    /// The type Xcode's spelling names: a table made once (`init(rawValue:)` compares the text with
    /// every case's name in turn, once per attribute of a model).
    static let byName: [String: AttributeType] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }
    /// Whether an attribute of this type can be stored in a column.
    public var isStorable: Bool { self != .objectID && self != .undefined }

    /// The range of an integer type.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}

/// A typed constant: a default value or a bound.
public enum AttributeValue: Sendable, Encodable, Hashable {
    case integer(Int64)
    /// Decimal values keep their text, so no precision is lost.
    case decimal(String)
    case double(Double)
    case string(String)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date).
    case date(Double)
    case uuid(String)
    case uri(String)

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let value): try container.encode(value)
        case .decimal(let value), .string(let value), .uuid(let value), .uri(let value): try container.encode(value)
        case .double(let value), .date(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }

    /// The value as a number, for comparisons between bounds and defaults.
    public var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .decimal(let value): Double(value)
        case .double(let value), .date(let value): value
        case .bool(let value): value ? 1 : 0
        case .string, .uuid, .uri: nil
        }
    }
}
