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
        let work = SaveWork(inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects)
        // Saved objects that were deleted afterwards are only deleted.
        var updated = deletedObjects.isEmpty ? updatedObjects : updatedObjects.filter { !$0.isListedAsDeleted }
        try validate(updated: updated)
        if work.checksDeny { try checkDeny() }
        if work.checksUniqueness { try resolveUniquenessInMemory() }
        mergedConflicts = []
        /// What the save changes, as the change log and other stores learn it: set once its rows
        /// are written (`nil` for a save too large to list).
        var changes: SavedChanges?
        do {
            try store.withConnection { connection in
                try connection.transaction {
                    if work.checksUniqueness {
                        try resolveUniquenessAgainstStore(connection)
                        // Merging moves objects between the lists.
                        updated = updatedObjects.filter { !$0.isListedAsDeleted }
                    }
                    if work.hasRelationships { try releaseForeignKeys(updated: updated, connection) }
                    // Unique values go (deletes) and move away (updates) before changed and new
                    // rows take them; new rows keep the numbers given before the deletes (past
                    // every row the table had), so a deleted row's number is not reused in the
                    // same save.
                    try assignRows(connection)
                    // A run of one entity at a time (a large delete is one run: no per-object lookup).
                    var deletedTables: Set<String> = []
                    Self.forEachRun(of: deletedObjects) { entity, _ in deletedTables.insert(entity.table) }
                    try deleteRows(connection)
                    try updateRows(updated, connection)
                    try insertRows(connection, numbered: deletedTables)
                    if work.hasRelationships || !linkChanges.isEmpty { try writeLinks(updated: updated, connection) }
                    changes = savedChanges(updated: updated)
                    // Queued writes go with the commit (their errors fail it, and the save).
                    if let feed = store.changeFeed { try notify(feed, changes, connection) }
                }
            }
        } catch let error as DatabaseError {
            // SQLITE_CONSTRAINT_UNIQUE / unique_violation: a unique index refused a row.
            if error.isUniqueViolation { throw uniquenessError(error) }
            // foreign_key_violation at commit: a row another writer added points at a deleted one.
            if error.isForeignKeyViolation {
                var refused = error
                refused.code = .deny
                refused.message =
                    "a row still refers to a deleted object (the store refused the save): \(error.message)"
                throw refused
            }
            throw error
        } catch {
            throw DatabaseError(.sqlite, "\(error)")
        }
        let conflicts = mergedConflicts
        mergedConflicts = []
        // Committed: make the new identities and versions visible, and tell other contexts.
        defer { store.changeLog.record(origin: ObjectIdentifier(self), changes: changes) }
        for object in insertedObjects {
            object.objectID = ObjectID(entityID: object.objectID.entityID, rowID: object.pendingRow)
            // Replaces the pending row, which an unsaved object keeps in the version's place.
            object.version = 1
            object.changedMask = 0
            object.relationshipMask = 0
        }
        // New rows come in ascending order: into an empty map they go at once.
        registered.register(fetched: insertedObjects)
        for object in updated {
            if object.changedMask != 0 || object.hasForeignKeyChange {
                object.version += 1
                object.changedMask = 0
            }
            object.relationshipMask = 0
        }
        linkChanges.removeAll()
        clearedByDeletion.removeAll()
        for object in updatedObjects { object.isListedAsUpdated = false }
        let report =
            objectObservers.isEmpty
            ? nil
            : ObjectsDidChange(reason: .saved, inserted: insertedObjects, updated: updated, deleted: deletedObjects)
        let saved = store.hasLifecycleHooks ? insertedObjects + updated + deletedObjects : []
        registered.remove(deletedObjects)
        for object in deletedObjects {
            object.isListedAsDeleted = false
            object.context = nil
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        // Objects whose version conflict the merge policy resolved hold the merged row.
        for object in conflicts { try? refresh(object) }
        for object in saved { object.lifecycle?.didSave() }
        if let report { tellObservers(report) }
    }

    /// The objects a save inserted, updated and deleted (new objects by the rows they get); `nil`
    /// for a save larger than `ChangeLog.largeSave`, which is logged without identifiers (other
    /// contexts then refresh everything).
    private func savedChanges(updated: [ManagedObject]) -> SavedChanges? {
        guard insertedObjects.count + updated.count + deletedObjects.count <= ChangeLog.largeSave else { return nil }
        return (
            inserted: insertedObjects.map { ObjectID(entityID: $0.objectID.entityID, rowID: $0.pendingRow) },
            updated: updated.filter { $0.changedMask != 0 || $0.relationshipMask != 0 }.map(\.objectID),
            deleted: deletedObjects.map(\.objectID)
        )
    }

    /// Tells the other stores on the database what this save changes (queued: delivered at commit).
    func notify(_ feed: PostgresChangeFeed, _ changes: SavedChanges?, _ connection: Connection)
        throws(DatabaseError)
    {
        let statement = try connection.cachedStatement("SELECT pg_notify(?, ?)")
        defer { statement.reset() }
        statement.bind(feed.channel, at: 1)
        statement.bind(feed.payload(changes), at: 2)
        try statement.runQueued()
    }

    /// A unique index's refusal (an UPDATE, or a row another writer added) as `.uniqueness`,
    /// naming the entity whose constraint it is and its attributes, not SQLite's table and columns.
    func uniquenessError(_ error: DatabaseError) -> DatabaseError {
        let table: String?
        let columns: [String]
        if let detail = error.detail, error.sqlState != nil {
            // PostgreSQL names the table, and its detail the columns: "Key (a, b)=(…) already exists."
            table = error.table
            let list = detail.firstMatch(of: /^Key \(([^)]*)\)=/)?.output.1 ?? ""
            columns = list.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        } else {
            // SQLite says "UNIQUE constraint failed: table.column, table.column".
            let failed = error.message.split(separator: ":", maxSplits: 1).last.map { $0.split(separator: ",") } ?? []
            let pairs = failed.compactMap { part -> (String, String)? in
                let names = part.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1).map(
                    String.init)
                return names.count == 2 ? (names[0], names[1]) : nil
            }
            table = pairs.first?.0
            columns = pairs.map(\.1)
        }
        // The entity that declares the constraint: of the entities of that table having it, the
        // one whose rows include the others'.
        func columnsOf(_ constraint: UniquenessConstraint, _ entity: EntityDescription) -> Set<String> {
            Set(
                constraint.attributes.map { entity.attributes[$0].column }
                    + constraint.relationships.compactMap { entity.relationships[$0].foreignKeyColumn })
        }
        let owners = store.model.entities.filter { entity in
            entity.table == table && entity.uniquenessConstraints.contains { columnsOf($0, entity) == Set(columns) }
        }
        guard let owner = owners.max(by: { $0.fetchedEntityIDs.count < $1.fetchedEntityIDs.count }),
            let constraint = owner.uniquenessConstraints.first(where: { columnsOf($0, owner) == Set(columns) })
        else {
            return DatabaseError(
                .uniqueness, error.message, entity: error.entity, sql: error.sql, sqliteCode: error.sqliteCode)
        }
        let names =
            constraint.attributes.map { owner.attributes[$0].name }
            + constraint.relationships.map { owner.relationships[$0].name }
        return DatabaseError(
            .uniqueness,
            "another \(owner.name) already has the same \(names.joined(separator: ", ")) (the store refused the save)",
            entity: owner.name, property: names.first, sql: error.sql, sqliteCode: error.sqliteCode)
    }

    /// Checks what a save would store: required attributes of new objects, attribute rules and
    /// relationship counts. Entities without any of those are skipped a run of objects at a time.
    /// A required typed attribute whose Swift type is optional, set to `nil` (one never set is
    /// reported as such).
    private static func checkRequiredConverted(
        _ object: ManagedObject, _ entity: EntityDescription, into problems: inout [DatabaseError]
    ) {
        for slot in entity.requiredConverted
        where object.changedMask & EntityDescription.bit(slot) != 0 && unwrappedValue(object.value(atSlot: slot)) == nil
        {
            let name = entity.attributes[slot].name
            problems.append(
                DatabaseError(.validation, "\(entity.name).\(name) is required", entity: entity.name, property: name))
        }
    }

    /// Every problem is reported, as Core Data does: one is thrown as it is, several as one
    /// `.validation` error listing them all (entity and property of the first).
    func validate(updated: [ManagedObject]) throws(DatabaseError) {
        var problems: [DatabaseError] = []
        func check(_ body: () throws(DatabaseError) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        let inserted = insertedObjects
        Self.forEachRun(of: inserted) { entity, run in
            if entity.isAbstract {
                problems.append(
                    DatabaseError(
                        .misuse,
                        "\(entity.name) is abstract: insert objects of its sub-entities instead (\(run.count) inserted)",
                        entity: entity.name))
            }
            guard
                !entity.requiredWithoutDefault.isEmpty || !entity.ruledAttributes.isEmpty
                    || !entity.relationships.isEmpty
                    || !entity.requiredConverted.isEmpty
            else { return }
            for object in inserted[run] {
                Self.checkRequiredConverted(object, entity, into: &problems)
                for (slot, attribute) in entity.requiredWithoutDefault
                where object.changedMask & (slot < 63 ? 1 << UInt64(slot) : 1 << 63) == 0 {
                    problems.append(
                        DatabaseError(
                            .validation, "\(entity.name).\(attribute) is required and was never set",
                            entity: entity.name,
                            property: attribute))
                }
                if !entity.ruledAttributes.isEmpty {
                    check { () throws(DatabaseError) in try AttributeValidator.validate(object, entity) }
                }
                if !entity.relationships.isEmpty {
                    check { () throws(DatabaseError) in try validateRelationships(object) }
                }
            }
        }
        Self.forEachRun(of: updated) { entity, run in
            guard !entity.ruledAttributes.isEmpty || !entity.relationships.isEmpty || !entity.requiredConverted.isEmpty
            else { return }
            for object in updated[run] {
                Self.checkRequiredConverted(object, entity, into: &problems)
                if !entity.ruledAttributes.isEmpty && object.changedMask != 0 {
                    check { () throws(DatabaseError) in try AttributeValidator.validate(object, entity) }
                }
                if !entity.relationships.isEmpty {
                    check { () throws(DatabaseError) in try validateRelationships(object) }
                }
            }
        }
        if store.hasLifecycleHooks { validateWithHooks(inserted: inserted, updated: updated, into: &problems) }
        guard let first = problems.first else { return }
        guard problems.count > 1 else { throw first }
        // A relationship's loading failing is not a validation problem: it goes as it is.
        if let failure = problems.first(where: { $0.code != .validation }) { throw failure }
        throw DatabaseError(
            .validation, "\(problems.count) problems: " + problems.map(\.message).joined(separator: "; "),
            entity: first.entity,
            property: first.property)
    }

    /// Runs the `validateFor…` hooks of the objects a save writes.
    private func validateWithHooks(
        inserted: [ManagedObject], updated: [ManagedObject], into problems: inout [DatabaseError]
    ) {
        func run(_ object: ManagedObject, _ hook: (any ObjectLifecycle) throws -> Void) {
            guard let lifecycle = object.lifecycle else { return }
            do { try hook(lifecycle) } catch { problems.append(Self.validationError(error, object)) }
        }
        for object in inserted { run(object) { try $0.validateForInsert() } }
        for object in updated { run(object) { try $0.validateForUpdate() } }
        for object in deletedObjects { run(object) { try $0.validateForDelete() } }
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
