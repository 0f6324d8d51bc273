/// An order for fetched objects: an attribute, ascending or descending, optionally ignoring ASCII
/// case (SQLite's NOCASE). Strings order by their UTF-8 bytes (Unicode scalar order), in SQL and in
/// memory alike.
///
/// ```swift
/// let byName = [ObjectSortDescriptor(\Student.lastName), ObjectSortDescriptor(\Student.firstName)]
/// ```
public struct ObjectSortDescriptor<T: ManagedObject>: Sendable {
    let slot: Int
    public var ascending: Bool
    public var caseInsensitive: Bool

    /// Why the descriptor cannot sort (a key path to a transient attribute or a relationship): a
    /// fetch with it throws this.
    let failure: DatabaseError?

    public init<V>(_ keyPath: KeyPath<T, V>, ascending: Bool = true, caseInsensitive: Bool = false) {
        if let slot = T.slot(for: keyPath) {
            self.slot = slot
            failure = nil
        } else {
            slot = 0
            failure = DatabaseError(
                .predicate, "cannot sort by \(keyPath): it is not a stored attribute of \(T.entityDescription.name)",
                entity: T.entityDescription.name)
        }
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }

    /// Sorts by the attribute called `key`.
    /// - Throws: `.unknownKey` when there is no such attribute.
    public init(key: String, ascending: Bool = true, caseInsensitive: Bool = false) throws {
        let entity = T.entityDescription
        guard let slot = entity.slot(of: key) else {
            throw DatabaseError(
                .unknownKey, "\(entity.name) has no attribute '\(key)'", entity: entity.name, property: key)
        }
        self.slot = slot
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
        failure = nil
    }

    /// Sorts by the attribute in `slot`.
    init(slot: Int, ascending: Bool, caseInsensitive: Bool = false) {
        self.slot = slot
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
        failure = nil
    }

    /// The ORDER BY term; `nil` when `dialect` cannot order as the runtime does (a
    /// case-insensitive sort where SQL does not fold ASCII case: the objects are sorted in memory).
    func sql(_ dialect: StoreDialect) -> String? {
        let attribute = T.entityDescription.attributes[slot]
        let column = EntityDescription.quoted(attribute.column)
        let text = attribute.type == .string || attribute.type == .url
        if caseInsensitive {
            guard dialect.foldsASCIICase else { return text ? nil : dialect.orderTerm(column, ascending: ascending) }
            return dialect.orderTerm(column + " COLLATE NOCASE", ascending: ascending)
        }
        return dialect.orderTerm(text ? dialect.byteOrderedText(column) : column, ascending: ascending)
    }
}

/// What to fetch: a predicate, an order, a window.
///
/// ```swift
/// var request = FetchRequest<Grade>(predicate: \.points > 50, sortDescriptors: [ObjectSortDescriptor(\.points)], fetchLimit: 20)
/// request.relationshipKeyPathsForPrefetching = ["student"]
/// let firstPage = try context.fetch(request)
/// let total = try context.count(request)
/// ```
public struct FetchRequest<T: ManagedObject>: Sendable {
    public var predicate: ObjectPredicate<T>?
    public var sortDescriptors: [ObjectSortDescriptor<T>]
    /// The most objects to return; `nil` or 0 (as in Core Data) for no limit.
    public var fetchLimit: Int?
    public var fetchOffset: Int
    /// Relationships to read with the result (`"grades"`, or through relationships
    /// `"grades.quiz"`), Core Data's `relationshipKeyPathsForPrefetching`: each relationship of a
    /// key path is read for all objects in one query, instead of one query per object when each
    /// is first followed. Not applied in a child context, whose objects read through the parent.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// Rows per batch of `ObjectContext.fetchBatched(_:)` (Core Data's `fetchBatchSize`); 0 for
    /// its default, 1,000. A plain `fetch` reads every row at once whatever it says.
    public var fetchBatchSize: Int = 0

    /// Adds a relationship of `T` to `relationshipKeyPathsForPrefetching` by its key path
    /// (`request.prefetch(\Student.grades)`); a key path that is no relationship makes the fetch
    /// throw `.unknownKey`.
    public mutating func prefetch(_ relationship: PartialKeyPath<T>) {
        let index = T.relationshipIndex(for: relationship)
        // An empty name is no relationship: the fetch reports it.
        relationshipKeyPathsForPrefetching.append(index.map { T.entityDescription.relationships[$0].name } ?? "")
    }

    /// The limit applied: none for `nil`, 0 or less.
    var effectiveLimit: Int? { fetchLimit.flatMap { $0 > 0 ? $0 : nil } }

    /// The ORDER BY list of the descriptors SQL orders as the runtime does, then `_pk`; and
    /// whether that is the whole order (else the objects are sorted in memory afterwards):
    /// decimals are text on SQLite, and a dialect may not fold case as the runtime does.
    func order(_ dialect: StoreDialect) -> (sql: String, isExact: Bool) {
        let terms = sortDescriptors.map { $0.sql(dialect) }
        let isExact =
            !terms.contains(nil)
            && !sortDescriptors.contains { T.entityDescription.attributes[$0.slot].type == .decimal }
        return ((terms.compactMap { $0 } + ["\"_pk\""]).joined(separator: ", "), isExact)
    }

    public init(
        predicate: ObjectPredicate<T>? = nil, sortDescriptors: [ObjectSortDescriptor<T>] = [], fetchLimit: Int? = nil,
        fetchOffset: Int = 0
    ) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}
