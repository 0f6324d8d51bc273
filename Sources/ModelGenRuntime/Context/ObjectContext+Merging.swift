extension ObjectContext {
    /// Brings this context's objects up to date with what other contexts saved: changed objects
    /// without unsaved changes here are read again, deleted ones leave the context, and
    /// relationships are read again when next used. Saves of other processes to a SQLite file
    /// are noticed but not listed: then every object without unsaved changes is read again. Objects with unsaved changes keep them (their
    /// save then meets the version conflict, which `mergePolicy` decides).
    public func mergeChangesFromStore() {
        store.externalChanges?.checkUnlessWatching()
        let (changes, complete, next) = store.changeLog.changes(since: seenChanges)
        seenChanges = next
        let foreign = changes.filter { $0.origin != ObjectIdentifier(self) }
        guard !foreign.isEmpty || !complete else { return }
        var report = objectObservers.isEmpty ? nil : ObjectsDidChange(reason: .merged)
        var refreshAll = !complete
        var deleted: [ObjectID] = []
        var updated: [ObjectID] = []
        for change in foreign {
            deleted += change.deleted
            updated += change.updated
            if change.isLarge { refreshAll = true }
        }
        for id in deleted {
            guard let object = registeredObject(id) else { continue }
            report?.deleted.append(object)
            registered[id] = nil
            insertedObjects.removeAll { $0 === object }
            updatedObjects.removeAll { $0 === object }
            deletedObjects.removeAll { $0 === object }
            object.isListedAsUpdated = false
            object.isListedAsDeleted = false
            object.links = []
            object.context = nil
        }
        let clean: (ManagedObject) -> Bool = {
            $0.changedMask == 0 && $0.relationshipMask == 0 && !$0.isListedAsDeleted
        }
        if refreshAll {
            var objects: [ManagedObject] = []
            registered.forEach { if clean($0) { objects.append($0) } }
            let (changed, gone) = refreshChanged(objects)
            report?.updated += changed
            report?.deleted += gone
            report?.isComplete = false
        } else {
            for id in updated {
                guard let object = registeredObject(id), clean(object) else { continue }
                if refreshIgnoringMissing(object) {
                    report?.updated.append(object)
                } else {
                    report?.deleted.append(object)
                }
            }
        }
        // To-many relationships may have gained or lost members: read them again when used —
        // when some object here has relationships loaded and a changed object's entity takes
        // part in a relationship.
        func touchesRelationships() -> Bool {
            refreshAll
                || foreign.contains { change in
                    [change.inserted, change.updated, change.deleted].contains { ids in
                        ids.contains { store.relatedEntityIDs.contains($0.entityID) }
                    }
                }
        }
        if hasLinks && touchesRelationships() {
            registered.forEach { object in
                guard object.relationshipMask == 0 && !object.links.isEmpty else { return }
                object.links = []
                // Read again when next used, perhaps different: observers are told now.
                if type(of: object).entityDescription.isObserved { object.modelGenValuesDidChange() }
            }
        }
        if let report { tellObservers(report) }
    }

    /// Reads again those of `objects` whose rows changed (their `_version` moved), a query per
    /// 256 objects of a table, and takes those whose rows are gone out of the context: what a
    /// merge does when it does not know which objects changed (another process's save to a SQLite
    /// file, a save too large to list). Objects whose rows did not change are left as they are.
    private func refreshChanged(_ objects: [ManagedObject]) -> (changed: [ManagedObject], gone: [ManagedObject]) {
        var byEntity: [ObjectIdentifier: (entity: EntityDescription, objects: [ManagedObject])] = [:]
        for object in objects {
            let entity = type(of: object).entityDescription
            byEntity[ObjectIdentifier(entity), default: (entity, [])].objects.append(object)
        }
        var changed: [ManagedObject] = []
        var gone: [ManagedObject] = []
        let width = 256
        for (entity, members) in byEntity.values.sorted(by: { $0.entity.entityID < $1.entity.entityID }) {
            let sql =
                "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_pk\" IN ("
                + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
            var start = 0
            while start < members.count {
                let chunk = members[start..<min(start + width, members.count)]
                start += width
                var pending = Dictionary(chunk.map { ($0.objectID.rowID, $0) }, uniquingKeysWith: { first, _ in first })
                do {
                    try store.withReadConnection { connection throws(DatabaseError) in
                        let statement = try connection.cachedStatement(sql)
                        defer { statement.reset() }
                        // The last row repeated fills the list: one statement whatever the count.
                        for index in 0..<width {
                            statement.bind(
                                chunk[chunk.startIndex + min(index, chunk.count - 1)].objectID.rowID,
                                at: Int32(index + 1))
                        }
                        while try statement.step() {
                            guard let object = pending.removeValue(forKey: statement.int64(0)),
                                statement.int64(2) != object.version
                            else { continue }
                            try Self.readAgain(object, entity, from: statement)
                            changed.append(object)
                        }
                    }
                } catch {
                    // Unreadable now: read them one by one, as a refresh would.
                    for object in pending.values {
                        if refreshIgnoringMissing(object) { changed.append(object) } else { gone.append(object) }
                    }
                    continue
                }
                for object in pending.values.sorted(by: { $0.objectID.rowID < $1.objectID.rowID }) {
                    registered[object.objectID] = nil
                    object.links = []
                    object.context = nil
                    gone.append(object)
                }
            }
        }
        for object in changed { object.lifecycle?.awakeFromFetch() }
        return (changed, gone)
    }

    /// Reads `object` again; false when its row is gone (it then leaves the context).
    private func refreshIgnoringMissing(_ object: ManagedObject) -> Bool {
        do {
            try refresh(object)
            return true
        } catch {
            // Gone meanwhile: it leaves the context like a deleted object.
            registered[object.objectID] = nil
            object.links = []
            object.context = nil
            return false
        }
    }

    // MARK: - Observing the context's objects

    /// Calls `body` each time this context's objects change as a whole: after a save (what it
    /// inserted, updated and deleted), after merging other contexts' saves (the objects read
    /// again and those that left the context), after `rollback()`. Called on the thread using
    /// the context, before the operation returns. Core Data's `objectsDidChange` and
    /// `didSave` notifications.
    public func observeObjects(_ body: @escaping (ObjectsDidChange) -> Void) -> ObservationHandle {
        let number = nextObserver
        nextObserver += 1
        objectObservers.append((number, body))
        return ObservationHandle { [weak self] in self?.objectObservers.removeAll { $0.number == number } }
    }

    func tellObservers(_ change: ObjectsDidChange) {
        for (_, body) in objectObservers { body(change) }
    }
}

/// How a context's objects changed: see `ObjectContext.observeObjects(_:)`.
public struct ObjectsDidChange {
    public enum Reason: Sendable, Hashable {
        /// The context saved: its inserted, updated and deleted objects are now the store's.
        case saved
        /// The context merged other contexts' saves: `updated` were read again, `deleted` left it.
        case merged
        /// `rollback()` dropped the unsaved changes: `inserted` left the context, `updated` were
        /// read again, `deleted` are back.
        case rolledBack
        /// A child context saved into this one: its changes are now this context's unsaved
        /// changes (`inserted` lists the objects made here for the child's new ones).
        case childSaved
    }

    public var reason: Reason
    public var inserted: [ManagedObject]
    public var updated: [ManagedObject]
    public var deleted: [ManagedObject]
    /// False when a merge could not know which objects changed and read every object again.
    public var isComplete = true

    init(reason: Reason, inserted: [ManagedObject] = [], updated: [ManagedObject] = [], deleted: [ManagedObject] = []) {
        self.reason = reason
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
