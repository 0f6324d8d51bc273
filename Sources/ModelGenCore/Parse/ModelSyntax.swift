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
public struct UserInfoSyntax: Sendable, Codable, Equatable {
    public struct Entry: Sendable, Codable, Equatable {
        public var line: Int
        public var key: String?
        public var value: String?
    }

    public var line: Int
    public var entries: [Entry] = []
}

/// `<entity>`.
public struct EntitySyntax: Sendable, Codable {
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
public struct AttributeSyntax: Sendable, Codable {
    public var line: Int
    public var name: String?
    public var optional: String?
    public var transient: String?
    public var attributeType: String?
    public var valueTransformerName: String?
    public var allowsExternalBinaryDataStorage: String?
    public var minDateTimeInterval: String?
    public var minValueString: String?
    public var maxDateTimeInterval: String?
    public var maxValueString: String?
    public var defaultDateTimeInterval: String?
    public var defaultValueString: String?
    public var regularExpressionString: String?
    public var derived: String?
    public var derivationExpression: String?
    public var usesScalarValueType: String?
    public var indexed: String?
    public var elementID: String?
    public var renamingIdentifier: String?
    public var customClassName: String?
    public var versionHashModifier: String?
    public var preserveAfterDeletion: String?
    public var spotlightIndexingEnabled: String?
    public var storedInTruthFile: String?
    public var allowsCloudEncryption: String?
    public var composite: String?
    public var syncable: String?
    public var userInfo: UserInfoSyntax?
}

/// `<relationship>`.
public struct RelationshipSyntax: Sendable, Codable {
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
public struct FetchedPropertySyntax: Sendable, Codable {
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
public struct FetchRequestSyntax: Sendable, Codable {
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
public struct ConfigurationSyntax: Sendable, Codable {
    public struct Member: Sendable, Codable {
        public var line: Int
        public var name: String?
    }

    public var line: Int
    public var name: String?
    public var usedWithCloudKit: String?
    public var members: [Member] = []
}

/// `<fetchIndex>` with its `<fetchIndexElement>`s.
public struct FetchIndexSyntax: Sendable, Codable {
    public struct Element: Sendable, Codable {
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
public struct CompoundIndexSyntax: Sendable, Codable {
    public var line: Int
    public var properties: [PropertyNameSyntax] = []
}

/// A `<uniquenessConstraint>` (inside `<uniquenessConstraints>`): a list of `<constraint value=…>`.
public struct UniquenessConstraintSyntax: Sendable, Codable {
    public var line: Int
    public var properties: [PropertyNameSyntax] = []
}

/// A property named by `value=` in a constraint or legacy index.
public struct PropertyNameSyntax: Sendable, Codable {
    public var line: Int
    public var value: String?
}

/// A model-level `<composite>`: a named group of attributes (Xcode 15).
public struct CompositeSyntax: Sendable, Codable {
    public var line: Int
    public var name: String?
    public var elementID: String?
    public var attributes: [AttributeSyntax] = []
    public var userInfo: UserInfoSyntax?
}
