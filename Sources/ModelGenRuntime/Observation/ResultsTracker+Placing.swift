extension ResultsTracker {
    // MARK: - Placing objects

    /// Places the objects the saves touched again (see the type's description).
    func place(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID]) throws(DatabaseError) -> ResultsChanges {
        let touched = try touchedObjects(inserted: inserted, updated: updated, deleted: deleted)
        let before = sections()
        if touched.count == 1, let changes = moveIfStillIn(touched[0], before) { return changes }
        let (wasAt, nowAt) = placeAgain(touched)
        // The objects nothing touched keep their order: a touched object may stay where it is
        // when as many untouched objects precede it before and after.
        let oldPlaces = wasAt.values.sorted()
        let newPlaces = nowAt.values.sorted()
        func untouchedBefore(_ index: Int, _ places: [Int]) -> Int { index - Self.countBelow(index, places) }
        var removed: [Int] = []
        var added: [Int] = []
        var pairs: [ResultsChangeBuilder.Pair] = []
        for object in touched {
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

    /// The objects the saves touched that are in the results or may now be (merging the saves
    /// into the context first; rows the context does not hold and the request selects are read).
    private func touchedObjects(inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID]) throws(DatabaseError)
        -> [ManagedObject]
    {
        var touched: [ManagedObject] = []
        var noted = Set<ObjectIdentifier>()
        func note(_ object: ManagedObject) {
            if noted.insert(ObjectIdentifier(object)).inserted { touched.append(object) }
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
        return touched
    }

    /// Takes `touched` out of the results and puts back those that still belong; where each was
    /// and where each is now.
    private func placeAgain(_ touched: [ManagedObject]) -> (
        wasAt: [ObjectIdentifier: Int], nowAt: [ObjectIdentifier: Int]
    ) {
        var wasAt: [ObjectIdentifier: Int] = [:]
        var removals: [(index: Int, object: ManagedObject)] = []
        for object in touched {
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
        for object in touched where object.context === context && !object.isListedAsDeleted {
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
        return (wasAt, nowAt)
    }

    /// The common case of one changed object that was in the results and still is: it moves from
    /// its old place to its new one, and only the objects between the two shift (removing it and
    /// inserting it again would shift every object after either place). `nil` when it was not in
    /// the results or is no longer.
    func moveIfStillIn(_ object: ManagedObject, _ before: ResultsChangeBuilder.Sections) -> ResultsChanges? {
        guard let old = placed[ObjectIdentifier(object)], object.context === context, !object.isListedAsDeleted,
            condition.map({ PredicateEvaluator.matches($0, object) }) ?? true
        else { return nil }
        let from = index(of: object, old)
        let new = Self.placement(of: object, sortSlots)
        // Where it goes among the others: where it was when it still orders between its
        // neighbours (a change of other attributes), else by a binary search that steps over its
        // own place.
        var to = from
        if (from > 0 && !order(placements[from - 1], new))
            || (from + 1 < objects.count && !order(new, placements[from + 1]))
        {
            var low = 0
            var high = objects.count - 1
            while low < high {
                let middle = (low + high) / 2
                if order(placements[middle < from ? middle : middle + 1], new) {
                    low = middle + 1
                } else {
                    high = middle
                }
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
            if from != to {
                changes.moved = [
                    ResultsChanges.Move(
                        from: ResultPosition(section: 0, item: from), to: ResultPosition(section: 0, item: to))
                ]
            }
            changes.updated = [ResultPosition(section: 0, item: to)]
            return changes
        }
        let pair = ResultsChangeBuilder.Pair(old: from, new: to, updated: true, mayStay: from == to)
        return ResultsChangeBuilder(old: before, new: sections(), sectioned: true).changes(
            removed: [], added: [], pairs: [pair])
    }

    /// Moves the element at `from` to `to`, shifting those between (and only those).
    static func move<Element>(_ array: inout [Element], from: Int, to: Int) {
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
    func loadMatching(_ ids: [ObjectID]) throws(DatabaseError) -> [ManagedObject] {
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
                "SELECT \(entity.selectColumnsSQL) \(entity.fetchedRowsSQL) AND \"_pk\" "
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
    static func countBelow(_ index: Int, _ places: [Int]) -> Int {
        var low = 0
        var high = places.count
        while low < high {
            let middle = (low + high) / 2
            if places[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first index whose object does not order before `placement`.
    func insertionIndex(_ placement: Placement) -> Int {
        var low = 0
        var high = objects.count
        while low < high {
            let middle = (low + high) / 2
            if order(placements[middle], placement) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where `object`, placed with `placement`, is in `objects`.
    func index(of object: ManagedObject, _ placement: Placement) -> Int {
        let index = insertionIndex(placement)
        if index < objects.count && objects[index] === object { return index }
        // Not where its placement says (cannot happen while placements are kept exact): look.
        return objects.firstIndex { $0 === object }!
    }
}
