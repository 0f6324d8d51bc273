/// The next temporary row number of a context and its children (unique in the family, so that
/// objects inserted in a child and in its parent never share an identifier).
final class TemporaryRows {
    var next: Int64 = -1
}

extension ObjectContext {
    // MARK: - Child contexts

    /// A scratch context whose `save()` pushes its changes into this context instead of the
    /// store — an editing form that may be cancelled: drop the child and nothing happened; save
    /// it and this context has the changes (unsaved, until it saves). Core Data's child context.
    ///
    /// The child sees this context as it is, unsaved changes included: its fetches and lookups
    /// read this context's objects (copied into the child), then apply the child's own changes.
    /// Use it on the thread that uses this context. After this context saves, objects the child
    /// copied while they were unsaved keep their temporary identifiers: start a new child for
    /// the next edit. The child's relationships are read from the store as of this context's
    /// last save (with the child's own changes): a relationship changed here but not saved is
    /// not seen through the child.
    ///
    /// ```swift
    /// let form = context.newChildContext()
    /// let draft = try form.existingObject(with: user.objectID, as: User.self)
    /// draft.name = nameField.text
    /// try form.save()      // into `context`; `try context.save()` writes it to the store
    /// ```
    public func newChildContext() -> ObjectContext {
        ObjectContext(store: store, parent: self)
    }

    /// The child's copy of `object`, an object of the parent: the one made before, or a new one
    /// with its values.
    func childObject(for object: ManagedObject) -> ManagedObject {
        let id = object.objectID
        if let existing = id.isTemporary ? parentInserted[id] : registered[id] { return existing }
        let copy = type(of: object).init()
        copy.objectID = id
        let entity = type(of: object).entityDescription
        for slot in entity.attributes.indices { try? copy.setValue(object.value(atSlot: slot), atSlot: slot) }
        copy.changedMask = 0
        copy.adopt(id: id, version: object.version, context: Unmanaged.passUnretained(self))
        if id.isTemporary { parentInserted[id] = copy } else { registered[id] = copy }
        return copy
    }

    /// `fetch` in a child: every object of the entity as the parent sees it, with the child's
    /// changes, filtered, sorted and windowed in memory.
    func fetchInChild<T: ManagedObject>(_ request: FetchRequest<T>, from parent: ObjectContext) throws(DatabaseError)
        -> [T]
    {
        let entity = T.entityDescription
        var objects: [T] = []
        for object in try DatabaseError.rethrown({ try parent.fetch(FetchRequest<T>()) }) {
            let copy = childObject(for: object)
            if !copy.isListedAsDeleted { objects.append(unsafeDowncast(copy, to: T.self)) }
        }
        for object in insertedObjects
        where !object.isListedAsDeleted && entity.includes(type(of: object).entityDescription.entityID) {
            objects.append(unsafeDowncast(object, to: T.self))
        }
        if let condition = request.predicate?.condition {
            objects = objects.filter { PredicateEvaluator.matches(condition, $0) }
        }
        objects = Self.sorted(objects, by: request.sortDescriptors)
        let start = min(request.fetchOffset, objects.count)
        let end = request.effectiveLimit.map { min(start + $0, objects.count) } ?? objects.count
        return Array(objects[start..<end])
    }

    /// `save()` in a child: the inserted, changed and deleted objects become changes of the
    /// parent's objects (new objects inserted there), all or nothing as far as the values go.
    func pushToParent(_ parent: ObjectContext) throws(DatabaseError) {
        guard hasChanges else { return }
        let inserted = insertedObjects
        let updated = updatedObjects.filter { !$0.isListedAsDeleted }
        try validate(updated: updated)
        let newHere = Set(inserted.map(ObjectIdentifier.init))
        // The parent's object of each child object: made for the child's new objects (once: a
        // later save of the same child changes it), found for the others.
        func target(_ object: ManagedObject) throws(DatabaseError) -> ManagedObject {
            if let pushed = pushed[ObjectIdentifier(object)] { return pushed }
            if newHere.contains(ObjectIdentifier(object)) {
                let made = type(of: object).init()
                parent.insert(made)
                pushed[ObjectIdentifier(object)] = made
                return made
            }
            return try DatabaseError.rethrown { try parent.existingObject(with: object.objectID) }
        }
        for object in inserted + updated {
            let entity = type(of: object).entityDescription
            let destination = try target(object)
            let isNew = newHere.contains(ObjectIdentifier(object))
            for slot in entity.attributes.indices where isNew || object.changedMask & EntityDescription.bit(slot) != 0 {
                try destination.setValue(object.value(atSlot: slot), atSlot: slot)
            }
        }
        // Relationships once every new object has its parent's object.
        for object in inserted + updated {
            let entity = type(of: object).entityDescription
            let isNew = newHere.contains(ObjectIdentifier(object))
            for (index, relationship) in entity.relationships.enumerated() {
                let touched =
                    isNew
                    ? index < object.links.count && !object.links[index].isUnloaded
                    : object.relationshipMask & EntityDescription.bit(index) != 0
                guard touched else { continue }
                let value = try DatabaseError.rethrown { try object.value(forKey: relationship.name) }
                let mapped: Any?
                if let many = value as? [ManagedObject] {
                    var objects: [ManagedObject] = []
                    for member in many { objects.append(try target(member)) }
                    mapped = objects
                } else if let one = value as? ManagedObject {
                    mapped = try target(one)
                } else {
                    mapped = nil
                }
                try DatabaseError.rethrown { try target(object).setValue(mapped, forKey: relationship.name) }
            }
        }
        for object in deletedObjects { parent.delete(try target(object)) }
        if let error = parent.recordedError {
            parent.recordedError = nil
            throw error
        }
        // The child's objects now match the parent's: nothing left to push.
        for object in inserted {
            // Found as the parent's object is found from now on (one object per row here too).
            if let made = pushed[ObjectIdentifier(object)] { parentInserted[made.objectID] = object }
            object.changedMask = 0
            object.relationshipMask = 0
        }
        for object in updatedObjects {
            object.isListedAsUpdated = false
            object.changedMask = 0
            object.relationshipMask = 0
        }
        for object in deletedObjects {
            registered[object.objectID] = nil
            parentInserted[pushed[ObjectIdentifier(object)]?.objectID ?? object.objectID] = nil
            object.isListedAsDeleted = false
            object.context = nil
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        linkChanges.removeAll()
        clearedByDeletion.removeAll()
        parent.tellObservers(
            ObjectsDidChange(reason: .childSaved, inserted: inserted.compactMap { pushed[ObjectIdentifier($0)] }))
    }
}

extension ManagedObject.Link {
    var isUnloaded: Bool {
        if case .unloaded = self { true } else { false }
    }
}
