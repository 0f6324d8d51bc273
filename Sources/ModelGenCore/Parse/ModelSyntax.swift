/// The raw content of one `contents` file: every element and attribute that Xcode writes, as
/// strings, each element with the line libxml2 reported for it.
///
/// Nothing is interpreted here (booleans, numbers and references stay text); `ModelResolver`
/// turns this into an `ObjectModel`. Absent XML attributes are `nil`.
public struct ModelSyntax: Sendable, Encodable {
    /// The file this syntax came from; used to turn lines into full locations.
    public var source: SourceFile { _source }
    private let _source: SourceFile

    public var line: Int
    public var type: String?
    public var documentVersion: String?
    public var lastSavedToolsVersion: String?
    public var systemVersion: String?
    public var minimumToolsVersion: String?
    public var sourceLanguage: String?
    public var userDefinedModelVersionIdentifier: String?
    public var usedWithCloudKit: String?
    public var usedWithSwiftData: String?
    public var entities: [EntitySyntax] = []
    public var composites: [CompositeSyntax] = []
    public var fetchRequests: [FetchRequestSyntax] = []
    public var configurations: [ConfigurationSyntax] = []
    /// The number of `<element>` entries of the diagram layout (ignored, kept for dumps).
    public var layoutElementCount: Int = 0

    public init(source: SourceFile, line: Int) {
        self._source = source
        self.line = line
    }

    private enum CodingKeys: String, CodingKey {
        case line, type, documentVersion, lastSavedToolsVersion, systemVersion, minimumToolsVersion
        case sourceLanguage, userDefinedModelVersionIdentifier, usedWithCloudKit, usedWithSwiftData
        case entities, composites, fetchRequests, configurations, layoutElementCount
    }
}

/// `<userInfo>`: free key/value pairs, in file order.
public struct UserInfoSyntax: Sendable, Encodable, Equatable {
    public struct Entry: Sendable, Encodable, Equatable {
        public var line: Int
        public var key: String?
        public var value: String?
    }

    public var line: Int
    public var entries: [Entry] = []
}

/// `<entity>`.
public struct EntitySyntax: Sendable, Encodable {
    public var line: Int
    public var name: String?
    public var representedClassName: String?
    public var parentEntity: String?
    public var isAbstract: String?
    public var elementID: String?
    public var versionHashModifier: String?
    public var renamingIdentifier: String?
    public var syncable: String?
    public var codeGenerationType: String?
    public var attributes: [AttributeSyntax] = []
    public var relationships: [RelationshipSyntax] = []
    public var fetchedProperties: [FetchedPropertySyntax] = []
    public var fetchIndexes: [FetchIndexSyntax] = []
    public var compoundIndexes: [CompoundIndexSyntax] = []
    public var uniquenessConstraints: [UniquenessConstraintSyntax] = []
    public var userInfo: UserInfoSyntax?
}

/// `<attribute>`, in an entity or a composite.
///
/// The attributes Xcode writes on most `<attribute>` elements are stored inline; the rarely used
/// ones share one small list, which keeps the syntax of large models compact.
public struct AttributeSyntax: Sendable, Encodable {
    /// The rarely written XML attributes of `<attribute>`.
    public enum RareField: String, Sendable, CaseIterable {
        case valueTransformerName
        case allowsExternalBinaryDataStorage
        case minDateTimeInterval
        case minValueString
        case maxDateTimeInterval
        case maxValueString
        case defaultDateTimeInterval
        case regularExpressionString
        case derived
        case derivationExpression
        case renamingIdentifier
        case versionHashModifier
        case preserveAfterDeletion
        case spotlightIndexingEnabled
        case storedInTruthFile
        case allowsCloudEncryption
        case composite
    }

    public var line: Int
    public var name: String?
    public var optional: String?
    public var transient: String?
    public var attributeType: String?
    public var defaultValueString: String?
    public var usesScalarValueType: String?
    public var indexed: String?
    public var elementID: String?
    public var customClassName: String?
    public var syncable: String?
    public var userInfo: UserInfoSyntax?
    private var rare: [(field: RareField, value: String)] = []

    public init(line: Int) {
        self.line = line
    }

    public subscript(field: RareField) -> String? {
        get { rare.first { $0.field == field }?.value }
        set {
            rare.removeAll { $0.field == field }
            if let newValue { rare.append((field, newValue)) }
        }
    }

    public var valueTransformerName: String? {
        get { self[.valueTransformerName] }
        set { self[.valueTransformerName] = newValue }
    }
    public var allowsExternalBinaryDataStorage: String? {
        get { self[.allowsExternalBinaryDataStorage] }
        set { self[.allowsExternalBinaryDataStorage] = newValue }
    }
    public var minDateTimeInterval: String? {
        get { self[.minDateTimeInterval] }
        set { self[.minDateTimeInterval] = newValue }
    }
    public var minValueString: String? {
        get { self[.minValueString] }
        set { self[.minValueString] = newValue }
    }
    public var maxDateTimeInterval: String? {
        get { self[.maxDateTimeInterval] }
        set { self[.maxDateTimeInterval] = newValue }
    }
    public var maxValueString: String? {
        get { self[.maxValueString] }
        set { self[.maxValueString] = newValue }
    }
    public var defaultDateTimeInterval: String? {
        get { self[.defaultDateTimeInterval] }
        set { self[.defaultDateTimeInterval] = newValue }
    }
    public var regularExpressionString: String? {
        get { self[.regularExpressionString] }
        set { self[.regularExpressionString] = newValue }
    }
    public var derived: String? {
        get { self[.derived] }
        set { self[.derived] = newValue }
    }
    public var derivationExpression: String? {
        get { self[.derivationExpression] }
        set { self[.derivationExpression] = newValue }
    }
    public var renamingIdentifier: String? {
        get { self[.renamingIdentifier] }
        set { self[.renamingIdentifier] = newValue }
    }
    public var versionHashModifier: String? {
        get { self[.versionHashModifier] }
        set { self[.versionHashModifier] = newValue }
    }
    public var preserveAfterDeletion: String? {
        get { self[.preserveAfterDeletion] }
        set { self[.preserveAfterDeletion] = newValue }
    }
    public var spotlightIndexingEnabled: String? {
        get { self[.spotlightIndexingEnabled] }
        set { self[.spotlightIndexingEnabled] = newValue }
    }
    public var storedInTruthFile: String? {
        get { self[.storedInTruthFile] }
        set { self[.storedInTruthFile] = newValue }
    }
    public var allowsCloudEncryption: String? {
        get { self[.allowsCloudEncryption] }
        set { self[.allowsCloudEncryption] = newValue }
    }
    public var composite: String? {
        get { self[.composite] }
        set { self[.composite] = newValue }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(line, forKey: AnyKey(stringValue: "line"))
        try container.encodeIfPresent(name, forKey: AnyKey(stringValue: "name"))
        try container.encodeIfPresent(optional, forKey: AnyKey(stringValue: "optional"))
        try container.encodeIfPresent(transient, forKey: AnyKey(stringValue: "transient"))
        try container.encodeIfPresent(attributeType, forKey: AnyKey(stringValue: "attributeType"))
        try container.encodeIfPresent(defaultValueString, forKey: AnyKey(stringValue: "defaultValueString"))
        try container.encodeIfPresent(usesScalarValueType, forKey: AnyKey(stringValue: "usesScalarValueType"))
        try container.encodeIfPresent(indexed, forKey: AnyKey(stringValue: "indexed"))
        try container.encodeIfPresent(elementID, forKey: AnyKey(stringValue: "elementID"))
        try container.encodeIfPresent(customClassName, forKey: AnyKey(stringValue: "customClassName"))
        try container.encodeIfPresent(syncable, forKey: AnyKey(stringValue: "syncable"))
        for field in RareField.allCases {
            try container.encodeIfPresent(self[field], forKey: AnyKey(stringValue: field.rawValue))
        }
        try container.encodeIfPresent(userInfo, forKey: AnyKey(stringValue: "userInfo"))
    }
}

/// `<relationship>`.
public struct RelationshipSyntax: Sendable, Encodable {
    public var line: Int
    public var name: String?
    public var optional: String?
    public var transient: String?
    public var toMany: String?
    public var minCount: String?
    public var maxCount: String?
    public var deletionRule: String?
    public var ordered: String?
    public var destinationEntity: String?
    public var inverseName: String?
    public var inverseEntity: String?
    public var indexed: String?
    public var elementID: String?
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var syncable: String?
    public var userInfo: UserInfoSyntax?
}

/// `<fetchedProperty>` with its nested `<fetchRequest>`.
public struct FetchedPropertySyntax: Sendable, Encodable {
    public var line: Int
    public var name: String?
    public var optional: String?
    public var syncable: String?
    public var elementID: String?
    public var versionHashModifier: String?
    public var fetchRequest: FetchRequestSyntax?
    public var userInfo: UserInfoSyntax?
}

/// A model-level `<fetchRequest>` template, or the one nested in a fetched property.
public struct FetchRequestSyntax: Sendable, Encodable {
    public var line: Int
    public var name: String?
    public var entity: String?
    public var predicateString: String?
    public var fetchLimit: String?
    public var fetchBatchSize: String?
    public var resultType: String?
    public var includeSubentities: String?
    public var includePropertyValues: String?
    public var includesPendingChanges: String?
    public var returnObjectsAsFaults: String?
    public var returnDistinctResults: String?
}

/// `<configuration>` and its `<memberEntity>` names.
public struct ConfigurationSyntax: Sendable, Encodable {
    public struct Member: Sendable, Encodable {
        public var line: Int
        public var name: String?
    }

    public var line: Int
    public var name: String?
    public var usedWithCloudKit: String?
    public var members: [Member] = []
}

/// `<fetchIndex>` with its `<fetchIndexElement>`s.
public struct FetchIndexSyntax: Sendable, Encodable {
    public struct Element: Sendable, Encodable {
        public var line: Int
        public var property: String?
        public var expression: String?
        public var expressionType: String?
        public var type: String?
        public var order: String?
    }

    public var line: Int
    public var name: String?
    public var elements: [Element] = []
}

/// A legacy `<compoundIndex>` (inside `<compoundIndexes>`): unnamed, a list of `<index value=…>`.
public struct CompoundIndexSyntax: Sendable, Encodable {
    public var line: Int
    public var properties: [PropertyNameSyntax] = []
}

/// A `<uniquenessConstraint>` (inside `<uniquenessConstraints>`): a list of `<constraint value=…>`.
public struct UniquenessConstraintSyntax: Sendable, Encodable {
    public var line: Int
    public var properties: [PropertyNameSyntax] = []
}

/// A property named by `value=` in a constraint or legacy index.
public struct PropertyNameSyntax: Sendable, Encodable {
    public var line: Int
    public var value: String?
}

/// A model-level `<composite>`: a named group of attributes (Xcode 15).
public struct CompositeSyntax: Sendable, Encodable {
    public var line: Int
    public var name: String?
    public var elementID: String?
    public var attributes: [AttributeSyntax] = []
    public var userInfo: UserInfoSyntax?
}
