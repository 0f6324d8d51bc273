import Foundation

/// A unit of work on a store (Core Data's managed object context): one object per row (identity
/// map), the lists of inserted, updated and deleted objects, and `save()` as one transaction.
///
/// Not `Sendable`: a context belongs to the task that made it.
///
/// ```swift
/// let context = store.newContext()
/// let quiz = Quiz(in: context, id: UUID(), name: "Quiz 1")
/// let grades = try Grade.fetch(in: context, where: \.points > 90)   // sees `quiz` unsaved
/// context.delete(grades[0])
/// try context.save()                                                // all of it, or nothing
/// ```
public final class ObjectContext {
    public let store: PersistentStore
    /// The context a child context's `save()` pushes into (`nil`: saves go to the store).
    public let parent: ObjectContext?
    /// Shared with the parent and children.
    let temporaryRows: TemporaryRows
    /// What a child context's objects carry in bit 2 of their context word (0 in a root context).
    let childBit: UInt
    /// In a child: the parent's object made for each object the child inserted and pushed.
    var pushed: [ObjectIdentifier: ManagedObject] = [:]
    /// In a child: copies of the parent's unsaved objects, and the child's own pushed ones, by
    /// their temporary identifiers.
    var parentInserted: [ObjectID: ManagedObject] = [:]
    /// Objects by identity: one object per row in this context.
    let registered = IdentityMap()
    /// Set once any object of this context has relationship state (cycles to break at the end).
    var hasLinks = false
    // The lists are `@exclusivity(unchecked)`: a context is used by one thread at a time and never
    // hands them out `inout`, and the run-time check on each append was measurable in loops that
    // insert, change or delete 100,000 objects.
    @exclusivity(unchecked) var insertedObjects: [ManagedObject] = []
    @exclusivity(unchecked) var updatedObjects: [ManagedObject] = []
    @exclusivity(unchecked) var deletedObjects: [ManagedObject] = []
    /// Changes of join-table relationships, in the order they were made.
    @exclusivity(unchecked) var linkChanges: [LinkChange] = []
    /// What cleared a to-one of an object when another object's deletion nullified it (by object
    /// and relationship index): a required one left empty so is reported with its cause.
    @exclusivity(unchecked) var clearedByDeletion: [ObjectIdentifier: [Int: String]] = [:]
    /// An error met while applying deletion rules, reported by the next save.
    /// The first error of an operation that cannot throw (`delete`, a generated relationship
    /// setter given an object of another context), thrown by the next `save()`.
    var recordedError: DatabaseError?
    /// Objects whose deletion rules are being applied: already listed as deleted, yet still what
    /// their partners' relationships lead to while those are taken apart (loading a partner's
    /// to-one must find them, or the inverse would not be cleared).
    var deletionsInProgress: Set<ObjectIdentifier> = []

    /// Whether a listed-as-deleted object is still to be found through relationships.
    @inline(__always)
    func isGone(_ object: ManagedObject) -> Bool {
        object.isListedAsDeleted
            && (deletionsInProgress.isEmpty || !deletionsInProgress.contains(ObjectIdentifier(object)))
    }
    /// UPDATE statements by entity and changed-column mask.
    var updateSQL: [UpdateKey: String] = [:]
    /// Objects of the running save whose version conflict the merge policy resolved.
    var mergedConflicts: [ManagedObject] = []

    struct UpdateKey: Hashable {
        var entity: ObjectIdentifier
        var mask: UInt64
        var relationshipMask: UInt64
    }

    init(store: PersistentStore, parent: ObjectContext? = nil) {
        self.store = store
        self.parent = parent
        temporaryRows = parent?.temporaryRows ?? TemporaryRows()
        childBit = parent == nil ? 0 : 4
        seenChanges = store.changeLog.current
    }

    deinit {
        if let mergeSubscription { store.changeLog.unsubscribe(mergeSubscription) }
        // Objects outlive their context without it; relationships hold their destinations
        // strongly, so their cycles are broken here.
        let breakCycles = hasLinks
        registered.removeAll { object in
            object.context = nil
            if breakCycles { object.links = [] }
        }
        for object in insertedObjects {
            object.context = nil
            if breakCycles { object.links = [] }
        }
    }

    func registeredObject(_ id: ObjectID) -> ManagedObject? { registered[id] }

    /// How a save resolves an object whose uniqueness-constraint values another object or row
    /// already has: `.error` (the default) fails the save.
    public var mergePolicy: MergePolicy = .error
    /// Whether each fetch, count, values fetch and save first merges what other contexts and
    /// processes saved (`mergeChangesFromStore()`); otherwise call it when wanted. Reading an
    /// object's properties does not merge: between two operations of the context its objects
    /// keep their values. A context bound to a queue (`PersistentStore.newContext(mergingOn:)`)
    /// also merges on that queue as soon as another save is known.
    public var automaticallyMergesChangesFromStore = false
    /// The change-log subscription of a context bound to a queue.
    var mergeSubscription: Int?
    /// The change-log sequence this context has merged up to.
    var seenChanges: Int
    /// Who `observeObjects` registered, in that order.
    var objectObservers: [(number: Int, body: (ObjectsDidChange) -> Void)] = []
    var nextObserver = 1

    public var hasChanges: Bool {
        !insertedObjects.isEmpty || !updatedObjects.isEmpty || !deletedObjects.isEmpty || !linkChanges.isEmpty
    }

    // MARK: - Changes

    /// Inserts a new object of `type` with the model's defaults.
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        // `type.init()`, not `T()`: a class passed as `ManagedObject.Type` makes its own objects.
        let object = type.init()
        insert(object)
        return object
    }

    /// Inserts `object`, made with `init()` and not yet in any context (generated convenience
    /// initializers call this).
    public func insert(_ object: ManagedObject) {
        guard object.context == nil, object.objectID.rowID == 0 else { return }
        object.objectID = ObjectID(entityID: type(of: object).entityDescription.entityID, rowID: temporaryRows.next)
        temporaryRows.next -= 1
        object.context = self
        // Unsaved objects are found through `insertedObjects`; the identity map holds saved rows.
        insertedObjects.append(object)
        object.lifecycle?.awakeFromInsert()
    }

    func noteUpdate(_ object: ManagedObject) {
        guard !object.isListedAsUpdated, !object.isListedAsDeleted else { return }
        // An unsaved object is an insert, except in a child: there, once pushed, or a copy of the
        // parent's unsaved object, it is an update of the parent's.
        if object.objectID.isTemporary && pushed[ObjectIdentifier(object)] == nil
            && parentInserted[object.objectID] !== object
        {
            return
        }
        object.isListedAsUpdated = true
        updatedObjects.append(object)
    }

    /// Marks `object` for deletion at the next save (an unsaved insert is simply dropped) and
    /// applies its relationships' deletion rules: Nullify and Cascade now, Deny at the save.
    public func delete(_ object: ManagedObject) {
        do {
            try delete(object, rules: true)
        } catch {
            recordedError = recordedError ?? error
        }
    }

    func delete(_ object: ManagedObject, rules: Bool) throws(DatabaseError) {
        guard object.context === self, !object.isListedAsDeleted else { return }
        object.isListedAsDeleted = true
        if rules {
            deletionsInProgress.insert(ObjectIdentifier(object))
            defer { deletionsInProgress.remove(ObjectIdentifier(object)) }
            try applyDeletionRules(object)
        }
        if object.objectID.isTemporary {
            // An unsaved object simply goes: its partners no longer lead to it, whatever the rules.
            if rules { try detachFromPartners(object) }
            object.isListedAsDeleted = false
            insertedObjects.removeAll { $0 === object }
            linkChanges.removeAll { $0.source === object || $0.destination === object }
            object.links = []
            object.context = nil
            return
        }
        deletedObjects.append(object)
    }

    // MARK: - Saving

    /// Writes every change in one transaction: all or nothing. On failure the store is unchanged
    /// and the context keeps its unsaved changes.
    /// - Throws: `.validation` (naming entity and attribute) for a required attribute never set,
    ///   `.missingObject` when an updated row is gone, `.conflict` when another context or process
    ///   changed it since it was read and `mergePolicy` is `.error` (`.objectTrump` writes the
    ///   changed properties over the newer row, `.storeTrump` keeps the row and drops the
    ///   object's changes), `.sqlite` for what the database refuses.
    public func save() throws {
        if let recordedError {
            self.recordedError = nil
            throw recordedError
        }
        if let parent { return try pushToParent(parent) }
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        guard hasChanges else { return }
        callWillSave()
        var operation = SaveOperation(self)
        try operation.check()
        try operation.write()
        operation.finish()
    }

    /// Forgets every unsaved change: inserted objects leave the context, changed objects are read
    /// again from the store, deleted ones come back.
    public func rollback() {
        recordedError = nil
        let report =
            objectObservers.isEmpty || !hasChanges
            ? nil
            : ObjectsDidChange(
                reason: .rolledBack, inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects)
        for object in insertedObjects {
            object.context = nil
            object.links = []
        }
        insertedObjects.removeAll()
        // Relationships are read again from the store when next used.
        registered.forEach { object in
            let relationshipsChanged = object.relationshipMask != 0
            object.links = []
            object.relationshipMask = 0
            if relationshipsChanged && type(of: object).entityDescription.isObserved {
                object.modelGenValuesDidChange()
            }
        }
        linkChanges.removeAll()
        clearedByDeletion.removeAll()
        let changed = updatedObjects
        for object in updatedObjects + deletedObjects {
            object.isListedAsUpdated = false
            object.isListedAsDeleted = false
        }
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        for object in changed { try? refresh(object) }
        if let report { tellObservers(report) }
    }

    /// Reads `object` again from the store, dropping its unsaved changes.
    /// - Throws: `.missingObject` when its row is gone.
    public func refresh(_ object: ManagedObject) throws {
        guard !object.objectID.isTemporary else { return }
        let entity = type(of: object).entityDescription
        try store.withReadConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(entity.selectRowSQL)
            statement.bind(object.objectID.rowID, at: 1)
            guard try statement.step() else {
                throw DatabaseError(
                    .missingObject, "\(entity.name) \(object.objectID) is no longer in the store", entity: entity.name)
            }
            try Self.readAgain(object, entity, from: statement)
        }
        object.changedMask = 0
        object.relationshipMask = 0
        if object.isListedAsUpdated {
            object.isListedAsUpdated = false
            updatedObjects.removeAll { $0 === object }
        }
        object.lifecycle?.awakeFromFetch()
    }
}
