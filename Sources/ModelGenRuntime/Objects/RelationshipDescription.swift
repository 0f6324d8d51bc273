/// What deleting an object does to the objects a relationship leads to (Core Data's rules).
public enum DeletionRule: Sendable, Hashable {
    /// The destinations stay; their inverse no longer points at the deleted object.
    case nullify
    /// The destinations are deleted too (recursively).
    case cascade
    /// The save fails while the relationship still leads to an object.
    case deny
    /// Nothing is done; the inverse may point at a deleted object until it is fixed by hand.
    case noAction
}

/// One relationship of an entity, as generated code describes it: its destination, inverse,
/// cardinality, rule and where its links are stored.
public struct RelationshipDescription: Sendable {
    /// Where the links of a relationship live in the relational layout.
    public enum Storage: Sendable, Hashable {
        /// A column of this entity's table holding the destination's `_pk` (to-one, owning side).
        case foreignKey(column: String)
        /// A column of the destination's table holding this object's `_pk`: the inverse's
        /// foreign key (to-many whose inverse is to-one, or the other side of a one-to-one);
        /// `position` orders an ordered to-many.
        case inverseForeignKey(column: String, position: String?)
        /// A join table: `source` holds this object's `_pk`, `destination` the destination's;
        /// `position` orders this side, when ordered.
        case joinTable(table: String, source: String, destination: String, position: String?)
    }

    public let name: String
    /// The destination entity's `_entity` number.
    public let destinationEntityID: Int32
    /// The destination entity's class (for predicates through the relationship).
    public let destination: ManagedObject.Type?
    /// The index of the inverse in the destination entity's `relationships`, when it has one.
    public let inverse: Int?
    public let isToMany: Bool
    public let isOrdered: Bool
    public let isOptional: Bool
    public let minCount: Int?
    public let maxCount: Int?
    public let deletionRule: DeletionRule
    public let storage: Storage

    public init(
        name: String, destinationEntityID: Int32, destination: ManagedObject.Type? = nil, inverse: Int?, isToMany: Bool,
        isOrdered: Bool = false,
        isOptional: Bool = true, minCount: Int? = nil, maxCount: Int? = nil, deletionRule: DeletionRule = .nullify,
        storage: Storage
    ) {
        self.name = name
        self.destinationEntityID = destinationEntityID
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.deletionRule = deletionRule
        self.storage = storage
    }

    /// Whether the links live in a join table (a row of the destination may be linked to several
    /// objects of this entity).
    var isManyToMany: Bool {
        if case .joinTable = storage { true } else { false }
    }

    /// The foreign-key column this entity's rows hold, for an owning to-one.
    var foreignKeyColumn: String? {
        if case .foreignKey(let column) = storage { column } else { nil }
    }
}
