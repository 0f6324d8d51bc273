public struct Attribute: Sendable, Encodable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    public var isTransient: Bool
    public var isIndexed: Bool
    public var defaultValue: AttributeValue?
    /// Lower bound: the value for numbers and dates, the length for strings and binary data.
    public var minimum: AttributeValue?
    /// Upper bound: the value for numbers and dates, the length for strings and binary data.
    public var maximum: AttributeValue?
    public var regularExpression: String?
    /// The derivation expression of a derived attribute (`nil` when not derived).
    public var derivation: String?
    public var valueTransformerName: String?
    public var customClassName: String?
    /// The model-level composite a `Composite` attribute uses.
    public var compositeName: String?
    public var allowsExternalBinaryDataStorage: Bool
    /// `usesScalarValueType` as written (`nil` when absent).
    public var usesScalarValueType: Bool?
    public var elementID: String?
    public var versionHashModifier: String?
    public var preserveAfterDeletion: Bool
    public var spotlightIndexingEnabled: Bool
    public var storedInTruthFile: Bool
    public var allowsCloudEncryption: Bool
    public var userInfo: UserInfo
    public var line: Int

    public var isDerived: Bool { derivation != nil }
}

/// What happens to the destination objects when the source object is deleted.
public enum DeletionRule: String, Sendable, Encodable, Hashable, CaseIterable {
    case nullify = "Nullify"
    case cascade = "Cascade"
    case deny = "Deny"
    case noAction = "No Action"
}

/// A reference to a relationship: its entity's index and its index in that entity.
public struct RelationshipRef: Hashable, Sendable, Encodable {
    public var entity: Int
    public var index: Int
}

public struct Relationship: Sendable, Encodable {
    public var name: String
    public var destinationName: String
    /// The destination entity's index, when it resolved.
    public var destination: Int?
    public var inverseName: String?
    public var inverseEntityName: String?
    /// The inverse relationship, when one is declared and resolved.
    public var inverse: RelationshipRef?
    /// Whether the inverse names this relationship back (`false` for a one-sided inverse that
    /// Core Data accepts with a warning).
    public var isInverseMutual: Bool = true
    public var isOptional: Bool
    public var isTransient: Bool
    public var isToMany: Bool
    public var isOrdered: Bool
    /// Minimum count (to-many only; 0 = none).
    public var minCount: Int
    /// Maximum count (to-many only; 0 = unbounded).
    public var maxCount: Int
    public var deletionRule: DeletionRule
    public var isIndexed: Bool
    public var elementID: String?
    public var versionHashModifier: String?
    public var userInfo: UserInfo
    public var line: Int

    private enum CodingKeys: String, CodingKey {
        case name, destinationName, inverseName, inverseEntityName, isInverseMutual, isOptional, isTransient
        case isToMany, isOrdered, minCount, maxCount, deletionRule, isIndexed, elementID, versionHashModifier
        case userInfo, line
    }
}

public struct FetchedProperty: Sendable, Encodable {
    public var name: String
    public var isOptional: Bool
    public var request: FetchRequest
    public var elementID: String?
    public var versionHashModifier: String?
    public var userInfo: UserInfo
    public var line: Int
}

/// What a fetch request template returns (`resultType`).
public enum FetchResultType: String, Sendable, Encodable, Hashable {
    case managedObject
    case managedObjectID
    case dictionary
    case count
}

/// A model-level fetch request template, or the request of a fetched property.
public struct FetchRequest: Sendable, Encodable {
    public var name: String
    public var entityName: String
    /// The fetched entity's index, when it resolved.
    public var entity: Int?
    public var predicateString: String?
    /// The parsed predicate (`nil` when absent or unreadable).
    public var predicate: PredicateNodeBox?
    /// `$VARIABLES` in order of first appearance.
    public var variables: [String]
    public var fetchLimit: Int?
    public var fetchBatchSize: Int?
    public var resultType: FetchResultType
    public var includeSubentities: Bool?
    public var includePropertyValues: Bool?
    public var includesPendingChanges: Bool?
    public var returnObjectsAsFaults: Bool?
    public var returnDistinctResults: Bool?
    public var line: Int
}

public struct FetchIndex: Sendable, Encodable {
    public struct Element: Sendable, Encodable {
        public var property: String?
        public var expression: String?
        public var isAscending: Bool
        /// `Binary` (B-tree) or `RTree`.
        public var type: String
        public var line: Int
    }

    /// The index name; legacy compound indexes get `compoundIndex<N>`.
    public var name: String
    public var elements: [Element]
    public var isLegacy: Bool
    public var line: Int
}

public struct UniquenessConstraint: Sendable, Encodable {
    public var properties: [String]
    /// The line of each `<constraint>` element.
    public var propertyLines: [Int]
    public var line: Int
}

public struct Configuration: Sendable, Encodable {
    public var name: String
    public var usedWithCloudKit: Bool
    public var memberNames: [String]
    public var memberLines: [Int]
    public var line: Int
}

public struct Composite: Sendable, Encodable {
    public var name: String
    public var elementID: String?
    public var attributes: [Attribute]
    public var userInfo: UserInfo
    public var line: Int
}
