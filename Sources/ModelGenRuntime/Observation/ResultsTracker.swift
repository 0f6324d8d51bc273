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
    private let entity: EntityDescription
    /// Fetches the request in the context.
    private let fetchRequest: () throws(DatabaseError) -> [ManagedObject]
    /// Whether an object is of the request's class.
    private let isResult: (ManagedObject) -> Bool
    private let hasWindow: Bool
    private let sectionAscending: Bool
    private let condition: PredicateCondition?
    /// The slots the request sorts by, and how.
    private let sortSlots: [Int]
    private let order: (Placement, Placement) -> Bool
    /// Conditions through relationships depend on other objects: any save may change the results.
    private let dependsOnOtherObjects: Bool
    private(set) var objects: [ManagedObject] = []
    /// The placement of each object of `objects`, at the same index (binary searches read it).
    private var placements: [Placement] = []
    /// Each result object's placement, by object.
    private var placed: [ObjectIdentifier: Placement] = [:]
    /// Result objects by row (permanent identifiers only).
    private var byRow: [ObjectID: ManagedObject] = [:]
    /// How many result objects were unsaved when placed (their rank changes when they are saved).
    private var unsaved = 0
    private var sectionKeys: [StoredValue] = []
    private var sectionCounts: [Int] = []
    /// The change-log sequence seen up to.
    private var seen: Int
    /// Set when a child context saved into the context since the last update.
    var childSaved = false
    /// Above this many changed objects, fetching again is cheaper than placing each.
    private let placementLimit: Int
    /// How many updates placed objects and how many fetched again (for tests and tuning).
    private(set) var placingUpdates = 0
    private(set) var refetchingUpdates = 0

    /// How one sort descriptor orders.
    private struct Direction {
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
        fetchRequest = { () throws(DatabaseError) in try context.fetch(request) }
        isResult = { $0 is T }
        hasWindow = request.effectiveLimit != nil || request.fetchOffset != 0
        sectionAscending = request.sortDescriptors.first?.ascending ?? true
        condition = request.predicate?.condition
        dependsOnOtherObjects = condition?.followsRelationships ?? false
        seen = context.store.changeLog.current
        placementLimit = 512
        sortSlots = request.sortDescriptors.map(\.slot)
        let descriptors = request.sortDescriptors.map { Direction(ascending: $0.ascending, caseInsensitive: $0.caseInsensitive) }
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

    private static func name(of key: StoredValue, _ value: Any?) -> String {
        switch key {
        case .null: ""
        case .text(let text): text
        default: value.map { "\($0)" } ?? ""
        }
    }

    // MARK: - Placing objects

    /// Places the objects the saves touched again (see the type's description).
    private func place(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID]) throws(DatabaseError) -> ResultsChanges {
        var affected: [ManagedObject] = []
        var noted = Set<ObjectIdentifier>()
        func note(_ object: ManagedObject) {
            if noted.insert(ObjectIdentifier(object)).inserted { affected.append(object) }
        }
        // Result objects the saves deleted are found before merging takes them out of the context.
        for id in deleted { if let object = byRow[id] { note(object) } }
        context.mergeChangesFromStore()
        var unseen: [ObjectID] = []
        for id in updated + inserted {
            if let object = byRow[id] {
                note(object)
            } else if let object = context.registeredObject(id) {
                if isResult(object) { note(object) }
            } else {
                unseen.append(id)
            }
        }
        for object in try loadMatching(unseen) { note(object) }

        let before = sections()
        if affected.count == 1, let changes = moveIfStillIn(affected[0], before) { return changes }
        var wasAt: [ObjectIdentifier: Int] = [:]
        var removals: [(index: Int, object: ManagedObject)] = []
        for object in affected {
            guard let placement = placed[ObjectIdentifier(object)] else { continue }
            removals.append((index(of: object, placement), object))
        }
        for (index, object) in removals.sorted(by: { $0.index > $1.index }) {
            objects.remove(at: index)
            placements.remove(at: index)
            leaveSection(placed[ObjectIdentifier(object)]!.first)
            wasAt[ObjectIdentifier(object)] = index
            forget(object)
        }
        var stillIn: [ManagedObject] = []
        for object in affected where object.context === context && !object.isListedAsDeleted {
            guard condition.map({ PredicateEvaluator.matches($0, object) }) ?? true else { continue }
            let placement = Self.placement(of: object, sortSlots)
            remember(object, placement)
            let index = insertionIndex(placement)
            objects.insert(object, at: index)
            placements.insert(placement, at: index)
            enterSection(placement.first)
            stillIn.append(object)
        }
        var nowAt: [ObjectIdentifier: Int] = [:]
        for object in stillIn { nowAt[ObjectIdentifier(object)] = index(of: object, placed[ObjectIdentifier(object)]!) }

        // The objects nothing touched keep their order: a touched object may stay where it is
        // when as many untouched objects precede it before and after.
        let oldPlaces = wasAt.values.sorted()
        let newPlaces = nowAt.values.sorted()
        func untouchedBefore(_ index: Int, _ places: [Int]) -> Int { index - Self.countBelow(index, places) }
        var removed: [Int] = []
        var added: [Int] = []
        var pairs: [ResultsChangeBuilder.Pair] = []
        for object in affected {
            switch (wasAt[ObjectIdentifier(object)], nowAt[ObjectIdentifier(object)]) {
            case (let old?, nil): removed.append(old)
            case (nil, let new?): added.append(new)
            case (let old?, let new?):
                let mayStay = untouchedBefore(old, oldPlaces) == untouchedBefore(new, newPlaces)
                pairs.append(ResultsChangeBuilder.Pair(old: old, new: new, updated: true, mayStay: mayStay))
            case (nil, nil): break
            }
        }
        return ResultsChangeBuilder(old: before, new: sections(), sectioned: sectionSlot != nil)
            .changes(removed: removed, added: added, pairs: pairs)
    }

    /// The common case of one changed object that was in the results and still is: it moves from
    /// its old place to its new one, and only the objects between the two shift (removing it and
    /// inserting it again would shift every object after either place). `nil` when it was not in
    /// the results or is no longer.
    private func moveIfStillIn(_ object: ManagedObject, _ before: ResultsChangeBuilder.Sections) -> ResultsChanges? {
        guard let old = placed[ObjectIdentifier(object)], object.context === context, !object.isListedAsDeleted,
            condition.map({ PredicateEvaluator.matches($0, object) }) ?? true
        else { return nil }
        let from = index(of: object, old)
        let new = Self.placement(of: object, sortSlots)
        // Where it goes among the others: where it was when it still orders between its
        // neighbours (a change of other attributes), else by a binary search that steps over its
        // own place.
        var to = from
        if (from > 0 && !order(placements[from - 1], new)) || (from + 1 < objects.count && !order(new, placements[from + 1])) {
            var low = 0
            var high = objects.count - 1
            while low < high {
                let middle = (low + high) / 2
                if order(placements[middle < from ? middle : middle + 1], new) { low = middle + 1 } else { high = middle }
            }
            to = low
        }
        Self.move(&objects, from: from, to: to)
        Self.move(&placements, from: from, to: to)
        placements[to] = new
        leaveSection(old.first)
        placed[ObjectIdentifier(object)] = new
        enterSection(new.first)
        if sectionSlot == nil {
            // One section throughout: the positions are the indexes.
            var changes = ResultsChanges()
            if from != to { changes.moved = [ResultsChanges.Move(from: ResultPosition(section: 0, item: from), to: ResultPosition(section: 0, item: to))] }
            changes.updated = [ResultPosition(section: 0, item: to)]
            return changes
        }
        let pair = ResultsChangeBuilder.Pair(old: from, new: to, updated: true, mayStay: from == to)
        return ResultsChangeBuilder(old: before, new: sections(), sectioned: true).changes(removed: [], added: [], pairs: [pair])
    }

    /// Moves the element at `from` to `to`, shifting those between (and only those).
    private static func move<Element>(_ array: inout [Element], from: Int, to: Int) {
        guard from != to else { return }
        array.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let moving = (base + from).move()
            if to < from {
                (base + to + 1).moveInitialize(from: base + to, count: from - to)
            } else {
                (base + from).moveInitialize(from: base + from + 1, count: to - from)
            }
            (base + to).initialize(to: moving)
        }
    }

    /// The rows of `ids` that the request selects and the context does not hold yet, in one
    /// query per 64 rows (the predicate applied in SQL where it can be, the rest in memory).
    private func loadMatching(_ ids: [ObjectID]) throws(DatabaseError) -> [ManagedObject] {
        guard !ids.isEmpty else { return [] }
        let dialect = context.store.dialect
        let compiled = condition.map { CompiledPredicate<ManagedObject>($0, dialect, entity: entity) }
        let rows = ids.map(\.rowID)
        var found: [ManagedObject] = []
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 64, rows.count)]
            start += 64
            // One row, or 64 (the last repeated): two statements to cache, whatever the count.
            let width = chunk.count == 1 ? 1 : 64
            let keys = Array(chunk) + Array(repeating: chunk.last!, count: width - chunk.count)
            var sql =
                "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_entity\" IN ("
                + entity.fetchedEntityIDs.map(String.init).joined(separator: ", ") + ") AND \"_pk\" "
                + (width == 1 ? "= ?" : "IN (" + Array(repeating: "?", count: width).joined(separator: ", ") + ")")
            if let compiled, compiled.sql != dialect.trueCondition { sql += " AND (\(compiled.sql))" }
            let parameters = keys.map(SQLArgument.key) + (compiled?.parameters ?? [])
            let objects = try context.materializeRows(sql, parameters: parameters, as: entity, type: entity.objectType)
            for object in objects where isResult(object) {
                if let residue = compiled?.residue, !PredicateEvaluator.matches(residue, object) { continue }
                found.append(object)
            }
        }
        return found
    }

    /// How many of the sorted `places` are below `index`.
    private static func countBelow(_ index: Int, _ places: [Int]) -> Int {
        var low = 0
        var high = places.count
        while low < high {
            let middle = (low + high) / 2
            if places[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first index whose object does not order before `placement`.
    private func insertionIndex(_ placement: Placement) -> Int {
        var low = 0
        var high = objects.count
        while low < high {
            let middle = (low + high) / 2
            if order(placements[middle], placement) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where `object`, placed with `placement`, is in `objects`.
    private func index(of object: ManagedObject, _ placement: Placement) -> Int {
        let index = insertionIndex(placement)
        if index < objects.count && objects[index] === object { return index }
        // Not where its placement says (cannot happen while placements are kept exact): look.
        return objects.firstIndex { $0 === object }!
    }

    // MARK: - Fetching again

    /// Fetches the request again and compares with the results before.
    private func fetchAgain(updated: Set<ObjectID>) throws(DatabaseError) -> ResultsChanges {
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
                was.version != placement.version || was.first != placement.first || was.rest != placement.rest || updated.contains(object.objectID)
                || object.changedMask != 0 || object.relationshipMask != 0
            pairs.append(ResultsChangeBuilder.Pair(old: old, new: index, updated: changed, mayStay: true))
        }
        return ResultsChangeBuilder(old: before, new: sections(), sectioned: sectionSlot != nil)
            .changes(removed: oldIndex.values.sorted(), added: added, pairs: pairs)
    }

    /// The objects of the request, each with its placement, in the results' order.
    private func fetch() throws(DatabaseError) -> [(object: ManagedObject, placement: Placement)] {
        var fresh = try fetchRequest().map { ($0, Self.placement(of: $0, sortSlots)) }
        // `fetch` orders the same way; sorting an ordered array is one pass, and it keeps the
        // binary searches exact whatever the engine.
        fresh.sort { order($0.1, $1.1) }
        return fresh
    }

    /// The values `object` sorts by (in `slots`), its version and its rank.
    private static func placement(of object: ManagedObject, _ slots: [Int]) -> Placement {
        Placement(
            first: slots.first.map { PredicateEvaluator.value($0, object) } ?? .null,
            rest: slots.count > 1 ? slots.dropFirst().map { PredicateEvaluator.value($0, object) } : nil, version: object.version,
            rank: rank(of: object))
    }

    private static func rank(of object: ManagedObject) -> Rank {
        object.objectID.isTemporary
            ? Rank(unsaved: true, number: -object.objectID.rowID) : Rank(unsaved: false, number: object.objectID.rowID)
    }

    private func remember(_ object: ManagedObject, _ placement: Placement) {
        placed[ObjectIdentifier(object)] = placement
        if placement.rank.unsaved { unsaved += 1 } else { byRow[object.objectID] = object }
    }

    private func forget(_ object: ManagedObject) {
        guard let placement = placed.removeValue(forKey: ObjectIdentifier(object)) else { return }
        if placement.rank.unsaved { unsaved -= 1 } else if byRow[object.objectID] === object { byRow[object.objectID] = nil }
    }

    // MARK: - Sections

    /// The sections now, for the change builder (one section, keyed `NULL`, when not sectioned).
    private func sections() -> ResultsChangeBuilder.Sections {
        var starts: [Int] = []
        starts.reserveCapacity(sectionCounts.count)
        var start = 0
        for count in sectionCounts {
            starts.append(start)
            start += count
        }
        return ResultsChangeBuilder.Sections(keys: sectionKeys, starts: starts)
    }

    private func rebuildSections() {
        guard sectionSlot != nil else {
            sectionKeys = [.null]
            sectionCounts = [objects.count]
            return
        }
        sectionKeys = []
        sectionCounts = []
        for placement in placements {
            let key = placement.first
            if sectionKeys.last == key {
                sectionCounts[sectionCounts.count - 1] += 1
            } else {
                sectionKeys.append(key)
                sectionCounts.append(1)
            }
        }
    }

    /// The index of the section of `key`, or where it would go.
    private func sectionIndex(_ key: StoredValue) -> Int {
        let ascending = sectionAscending
        var low = 0
        var high = sectionKeys.count
        while low < high {
            let middle = (low + high) / 2
            let order = StoredValue.order(sectionKeys[middle], key)
            if ascending ? order < 0 : order > 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func leaveSection(_ key: StoredValue) {
        guard sectionSlot != nil else { return sectionCounts[0] -= 1 }
        let index = sectionIndex(key)
        sectionCounts[index] -= 1
        if sectionCounts[index] == 0 {
            sectionKeys.remove(at: index)
            sectionCounts.remove(at: index)
        }
    }

    private func enterSection(_ key: StoredValue) {
        guard sectionSlot != nil else { return sectionCounts[0] += 1 }
        let index = sectionIndex(key)
        if index < sectionKeys.count && sectionKeys[index] == key {
            sectionCounts[index] += 1
        } else {
            sectionKeys.insert(key, at: index)
            sectionCounts.insert(1, at: index)
        }
    }
}
