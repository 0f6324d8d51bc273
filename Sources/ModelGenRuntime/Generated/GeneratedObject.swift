/// The compile-time handshake: every generated file declares a type conforming to this protocol,
/// so a generator and a runtime of different contract versions do not compile together (the error
/// names the missing protocol, i.e. the version the generated code expects).
public protocol GeneratedCodeVersion_0_2 {}

/// What the generated extension of a `category` entity supplies: the class is the user's, so the
/// metadata and key-path lookup come through this protocol instead of overrides, and the
/// attributes live in the runtime's per-object storage.
public protocol GeneratedEntity: ManagedObject {
    @_spi(Generated) static var modelGenEntity: EntityDescription { get }
    @_spi(Generated) static func modelGenSlot(for keyPath: AnyKeyPath) -> Int?
    @_spi(Generated) static func modelGenRelationshipIndex(for keyPath: AnyKeyPath) -> Int?
    /// The model's default of the attribute in `slot` (a new object starts with it), or `nil`.
    @_spi(Generated) static func modelGenInitialValue(atSlot slot: Int) -> Any?
}

extension GeneratedEntity {
    @_spi(Generated) public static func modelGenInitialValue(atSlot slot: Int) -> Any? { nil }
}

/// The typed fetch helpers of every generated entity class (the root of each hierarchy conforms;
/// sub-entity classes inherit them, typed for themselves).
///
/// ```swift
/// let smiths = try Student.fetch(in: context, where: \.lastName == "Smith", sortedBy: [ObjectSortDescriptor(\.firstName)])
/// ```
public protocol FetchableObject: ManagedObject {}

extension FetchableObject {
    /// A request for objects of this class (and its sub-entities).
    public static func fetchRequest() -> FetchRequest<Self> { FetchRequest() }

    /// The objects that match `predicate`, in the order given.
    public static func fetch(
        in context: ObjectContext, where predicate: ObjectPredicate<Self>? = nil,
        sortedBy sortDescriptors: [ObjectSortDescriptor<Self>] = [],
        limit: Int? = nil
    ) throws -> [Self] {
        try context.fetch(FetchRequest(predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: limit))
    }

    /// How many objects match `predicate`.
    public static func count(in context: ObjectContext, where predicate: ObjectPredicate<Self>? = nil)
        throws -> Int
    {
        try context.count(FetchRequest<Self>(predicate: predicate))
    }

    /// The first object that matches `predicate` in the order given.
    public static func first(
        in context: ObjectContext, where predicate: ObjectPredicate<Self>? = nil,
        sortedBy sortDescriptors: [ObjectSortDescriptor<Self>] = []
    ) throws -> Self? {
        try context.fetch(FetchRequest(predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: 1)).first
    }
}
