/// The state of one observation: the results, each object's values as they were placed (to find
/// it again after its values changed), and the change log's sequence it has seen. Used by one
/// thread at a time, the one using its context.
///
/// After saves it brings the results up to date in one of two ways. When it knows exactly which
/// objects the saves touched and nothing else can matter (no pending changes in the context, no
/// window, a predicate on the entity's own attributes), it places those objects again: found by
/// binary search under their old values, checked against the predicate, inserted under their new
/// ones — a few index lookups and one query for rows it has not seen, whatever the result's size.
/// Otherwise it fetches the request again and compares. Either way the results are what `fetch`
/// returns for the request at that moment.
///
/// Not generic: generic code called from the module of the generated classes would run
/// unspecialized (type metadata looked up at run time on every step); the typed results are made
/// from its objects at delivery (`ObservedResults`), whose layout is the same for any class.
final class ResultsTracker {
    let context: ObjectContext
    /// The section key's slot; the first sort descriptor sorts by it.
    let sectionSlot: Int?
    let entity: EntityDescription
    /// Fetches the request in the context.
    let fetchRequest: () throws(DatabaseError) -> [ManagedObject]
    /// Whether an object is of the request's class.
    let isResult: (ManagedObject) -> Bool
    let hasWindow: Bool
    let sectionAscending: Bool
    let condition: PredicateCondition?
    /// The slots the request sorts by, and how.
    let sortSlots: [Int]
    let order: (Placement, Placement) -> Bool
    /// Conditions through relationships depend on other objects: any save may change the results.
    let dependsOnOtherObjects: Bool
    var objects: [ManagedObject] = []
    /// The placement of each object of `objects`, at the same index (binary searches read it).
    var placements: [Placement] = []
    /// Each result object's placement, by object.
    var placed: [ObjectIdentifier: Placement] = [:]
    /// Result objects by row (permanent identifiers only).
    var byRow: [ObjectID: ManagedObject] = [:]
    /// How many result objects were unsaved when placed (their rank changes when they are saved).
    var unsaved = 0
    var sectionKeys: [StoredValue] = []
    var sectionCounts: [Int] = []
    /// The change-log sequence seen up to.
    var seen: Int
    /// Set when a child context saved into the context since the last update.
    var childSaved = false
    /// Above this many changed objects, fetching again is cheaper than placing each.
    let placementLimit: Int
    /// How many updates placed objects and how many fetched again (for tests and tuning).
    private(set) var placingUpdates = 0
    private(set) var refetchingUpdates = 0

    /// How one sort descriptor orders.
    struct Direction {
        var ascending: Bool
        var caseInsensitive: Bool
    }

    struct Placement {
        /// The value of the first sort descriptor's attribute (`NULL` without sort descriptors),
        /// and of the others when there are (kept apart so that a placement by one attribute,
        /// the common case, holds no array to retain on every comparison).
        var first: StoredValue
        var rest: [StoredValue]?
        var version: Int64
        var rank: Rank
    }

    /// Saved rows by row number, then unsaved objects in insertion order (as `fetch` orders
    /// objects that sort equal).
    struct Rank: Comparable {
        var unsaved: Bool
        var number: Int64
        static func < (lhs: Rank, rhs: Rank) -> Bool {
            lhs.unsaved != rhs.unsaved ? rhs.unsaved : lhs.number < rhs.number
        }
    }

    init<T: ManagedObject>(context: ObjectContext, request: FetchRequest<T>, sectionSlot: Int?) {
        self.context = context
        self.sectionSlot = sectionSlot
        entity = T.entityDescription
        fetchRequest = { () throws(DatabaseError) in try DatabaseError.rethrown { try context.fetch(request) } }
        isResult = { $0 is T }
        hasWindow = request.effectiveLimit != nil || request.fetchOffset != 0
        sectionAscending = request.sortDescriptors.first?.ascending ?? true
        condition = request.predicate?.condition
        dependsOnOtherObjects = condition?.followsRelationships ?? false
        seen = context.store.changeLog.current
        placementLimit = 512
        sortSlots = request.sortDescriptors.map(\.slot)
        let descriptors = request.sortDescriptors.map {
            Direction(ascending: $0.ascending, caseInsensitive: $0.caseInsensitive)
        }
        order = { lhs, rhs in
            if let direction = descriptors.first {
                let order = StoredValue.order(lhs.first, rhs.first, caseInsensitive: direction.caseInsensitive)
                if order != 0 { return direction.ascending ? order < 0 : order > 0 }
            }
            if let left = lhs.rest, let right = rhs.rest {
                for index in left.indices {
                    let direction = descriptors[index + 1]
                    let order = StoredValue.order(left[index], right[index], caseInsensitive: direction.caseInsensitive)
                    if order != 0 { return direction.ascending ? order < 0 : order > 0 }
                }
            }
            return lhs.rank < rhs.rank
        }
    }

    /// Calls `changed` after every save to the store (on the saving thread) and after every
    /// save of a child context into the context (marking it for `update`), until the handle is
    /// cancelled or dropped.
    func listen(_ changed: @escaping @Sendable () -> Void) -> ObservationHandle {
        let saves = context.store.subscribe { _ in changed() }
        let children = context.observeObjects { [weak self] change in
            guard change.reason == .childSaved, let self else { return }
            childSaved = true
            changed()
        }
        return ObservationHandle {
            saves.cancel()
            children.cancel()
        }
    }

    // MARK: - Results

    /// Fetches the results for the first time; the change set inserts them all.
    func start() throws(DatabaseError) -> ResultsChanges {
        seen = context.store.changeLog.current
        context.mergeChangesFromStore()
        let fresh = try fetch()
        objects = fresh.map(\.object)
        placements = fresh.map(\.placement)
        for (object, placement) in fresh { remember(object, placement) }
        rebuildSections()
        var changes = ResultsChanges()
        if sectionSlot != nil {
            changes.insertedSections = Array(sectionKeys.indices)
        } else {
            changes.inserted = objects.indices.map { ResultPosition(section: 0, item: $0) }
        }
        return changes
    }

    /// Brings the results up to date with the saves since the last call; `nil` when they did
    /// not change.
    func update() throws(DatabaseError) -> ResultsChanges? {
        let (saves, complete, next) = context.store.changeLog.changes(since: seen)
        seen = next
        if childSaved {
            // A child pushed changes into the context: unsaved changes, which only a fetch sees.
            childSaved = false
            refetchingUpdates += 1
            let changes = try fetchAgain(updated: [])
            return changes.isEmpty ? nil : changes
        }
        guard !saves.isEmpty || !complete else { return nil }
        var inserted: [ObjectID] = []
        var updated: [ObjectID] = []
        var deleted: [ObjectID] = []
        var listed = complete
        for save in saves {
            if save.isLarge { listed = false }
            inserted += save.inserted.filter { entity.includes($0.entityID) }
            updated += save.updated.filter { entity.includes($0.entityID) }
            deleted += save.deleted.filter { entity.includes($0.entityID) }
        }
        if listed && !dependsOnOtherObjects && inserted.isEmpty && updated.isEmpty && deleted.isEmpty {
            return nil
        }
        let changes: ResultsChanges
        if listed && !dependsOnOtherObjects && !hasWindow && unsaved == 0
            && !context.hasChanges && inserted.count + updated.count + deleted.count <= placementLimit
        {
            placingUpdates += 1
            changes = try place(inserted: inserted, updated: updated, deleted: deleted)
        } else {
            refetchingUpdates += 1
            changes = try fetchAgain(updated: Set(updated))
        }
        return changes.isEmpty ? nil : changes
    }

    /// The results now, with `changes`, as objects of the request's class `T`.
    func results<T: ManagedObject>(_ changes: ResultsChanges, isInitial: Bool) -> ObservedResults<T> {
        // Every object is of the request's class (`isResult`): an array of class references has
        // one layout whatever the class.
        let typed = unsafeBitCast(objects, to: [T].self)
        var sections: [ResultsSection<T>] = []
        var start = 0
        for (key, count) in zip(sectionKeys, sectionCounts) {
            let slice = typed[start..<start + count]
            let value = sectionSlot.flatMap { slot in slice.first.flatMap { $0.value(atSlot: slot) } }
            sections.append(ResultsSection(value: value, name: Self.name(of: key, value), objects: slice))
            start += count
        }
        let (order, slots) = (order, sortSlots)
        let sorted = SortedArray(presorted: typed) { lhs, rhs in
            order(Self.placement(of: lhs, slots), Self.placement(of: rhs, slots))
        }
        return ObservedResults(objects: sorted, sections: sections, changes: changes, isInitial: isInitial)
    }

    static func name(of key: StoredValue, _ value: Any?) -> String {
        switch key {
        case .null: ""
        case .text(let text): text
        default: value.map { "\($0)" } ?? ""
        }
    }

    // MARK: - Fetching again

    /// Fetches the request again and compares with the results before.
    func fetchAgain(updated: Set<ObjectID>) throws(DatabaseError) -> ResultsChanges {
        context.mergeChangesFromStore()
        let before = sections()
        let previous = objects
        let previousPlacements = placed
        let fresh = try fetch()
        placed = [:]
        byRow = [:]
        unsaved = 0
        objects = fresh.map(\.object)
        placements = fresh.map(\.placement)
        for (object, placement) in fresh { remember(object, placement) }
        rebuildSections()
        var oldIndex: [ObjectIdentifier: Int] = [:]
        oldIndex.reserveCapacity(previous.count)
        for (index, object) in previous.enumerated() { oldIndex[ObjectIdentifier(object)] = index }
        var added: [Int] = []
        var pairs: [ResultsChangeBuilder.Pair] = []
        for (index, (object, placement)) in fresh.enumerated() {
            guard let old = oldIndex.removeValue(forKey: ObjectIdentifier(object)) else {
                added.append(index)
                continue
            }
            let was = previousPlacements[ObjectIdentifier(object)]!
            let changed =
                was.version != placement.version || was.first != placement.first || was.rest != placement.rest
                || updated.contains(object.objectID)
                || object.changedMask != 0 || object.relationshipMask != 0
            pairs.append(ResultsChangeBuilder.Pair(old: old, new: index, updated: changed, mayStay: true))
        }
        return ResultsChangeBuilder(old: before, new: sections(), sectioned: sectionSlot != nil)
            .changes(removed: oldIndex.values.sorted(), added: added, pairs: pairs)
    }

    /// The objects of the request, each with its placement, in the results' order.
    func fetch() throws(DatabaseError) -> [(object: ManagedObject, placement: Placement)] {
        var fresh = try fetchRequest().map { ($0, Self.placement(of: $0, sortSlots)) }
        // `fetch` orders the same way; sorting an ordered array is one pass, and it keeps the
        // binary searches exact whatever the engine.
        fresh.sort { order($0.1, $1.1) }
        return fresh
    }

    /// The values `object` sorts by (in `slots`), its version and its rank.
    static func placement(of object: ManagedObject, _ slots: [Int]) -> Placement {
        Placement(
            first: slots.first.map { PredicateEvaluator.value($0, object) } ?? .null,
            rest: slots.count > 1 ? slots.dropFirst().map { PredicateEvaluator.value($0, object) } : nil,
            version: object.version,
            rank: rank(of: object))
    }

    static func rank(of object: ManagedObject) -> Rank {
        object.objectID.isTemporary
            ? Rank(unsaved: true, number: -object.objectID.rowID) : Rank(unsaved: false, number: object.objectID.rowID)
    }

    func remember(_ object: ManagedObject, _ placement: Placement) {
        placed[ObjectIdentifier(object)] = placement
        if placement.rank.unsaved { unsaved += 1 } else { byRow[object.objectID] = object }
    }

    func forget(_ object: ManagedObject) {
        guard let placement = placed.removeValue(forKey: ObjectIdentifier(object)) else { return }
        if placement.rank.unsaved {
            unsaved -= 1
        } else if byRow[object.objectID] === object {
            byRow[object.objectID] = nil
        }
    }

}
