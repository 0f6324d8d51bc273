/// A unit of work on a store (Core Data's managed object context): one object per row (identity
/// map), the lists of inserted, updated and deleted objects, and `save()` as one transaction.
///
/// Not `Sendable`: a context belongs to the task that made it.
public final class ObjectContext {
    public let store: PersistentStore
    /// Objects by identity: one object per row in this context.
    let registered = IdentityMap()
    /// Set once any object of this context has relationship state (cycles to break at the end).
    var hasLinks = false
    var insertedObjects: [ManagedObject] = []
    var updatedObjects: [ManagedObject] = []
    var deletedObjects: [ManagedObject] = []
    /// Changes of join-table relationships, in the order they were made.
    var linkChanges: [LinkChange] = []
    /// An error met while applying deletion rules, reported by the next save.
    private var deletionError: DatabaseError?
    private var nextTemporaryRow: Int64 = -1
    /// UPDATE statements by entity and changed-column mask.
    private var updateSQL: [UpdateKey: String] = [:]
    /// Objects of the running save whose version conflict the merge policy resolved.
    private var mergedConflicts: [ManagedObject] = []

    private struct UpdateKey: Hashable {
        var entity: ObjectIdentifier
        var mask: UInt64
        var relationshipMask: UInt64
    }

    init(store: PersistentStore) {
        self.store = store
        seenChanges = store.changeLog.current
    }

    deinit {
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
    /// Whether each fetch, count and save first merges what other contexts saved
    /// (`mergeChangesFromStore()`); otherwise call it when wanted.
    public var automaticallyMergesChangesFromStore = false
    /// The change-log sequence this context has merged up to.
    var seenChanges: Int

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
        object.objectID = ObjectID(entityID: type(of: object).entityDescription.entityID, rowID: nextTemporaryRow)
        nextTemporaryRow -= 1
        object.context = self
        // Unsaved objects are found through `insertedObjects`; the identity map holds saved rows.
        insertedObjects.append(object)
    }

    func noteUpdate(_ object: ManagedObject) {
        guard !object.isListedAsUpdated, !object.isListedAsDeleted else { return }
        object.isListedAsUpdated = true
        updatedObjects.append(object)
    }

    /// Marks `object` for deletion at the next save (an unsaved insert is simply dropped) and
    /// applies its relationships' deletion rules: Nullify and Cascade now, Deny at the save.
    public func delete(_ object: ManagedObject) {
        do {
            try delete(object, rules: true)
        } catch {
            deletionError = deletionError ?? error
        }
    }

    func delete(_ object: ManagedObject, rules: Bool) throws(DatabaseError) {
        guard object.context === self, !object.isListedAsDeleted else { return }
        object.isListedAsDeleted = true
        if rules { try applyDeletionRules(object) }
        if object.objectID.isTemporary {
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
    public func save() throws(DatabaseError) {
        if let deletionError {
            self.deletionError = nil
            throw deletionError
        }
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        guard hasChanges else { return }
        try validate(updated: updatedObjects.filter { !$0.isListedAsDeleted })
        try checkDeny()
        try resolveUniquenessInMemory()
        var updated: [ManagedObject] = []
        var newRows: [Int64] = []
        newRows.reserveCapacity(insertedObjects.count)
        lastInsert = nil
        lastUpdate = nil
        lastDelete = nil
        mergedConflicts = []
        defer {
            lastInsert = nil
            lastUpdate = nil
            lastDelete = nil
        }
        do {
            try store.withConnection { connection in
                try connection.transaction {
                    try resolveUniquenessAgainstStore(connection)
                    updated = updatedObjects.filter { !$0.isListedAsDeleted }
                    try assignRows(connection)
                    for object in insertedObjects { newRows.append(try insertRow(object, connection)) }
                    for object in updated where object.changedMask != 0 || object.hasForeignKeyChange {
                        try updateRow(object, connection)
                    }
                    try writeLinks(updated: updated, connection)
                    for object in deletedObjects { try deleteRow(object, connection) }
                }
            }
        } catch let error as DatabaseError {
            // SQLITE_CONSTRAINT_UNIQUE: a unique index refused a row.
            if error.sqliteCode == 2067 {
                throw DatabaseError(.uniqueness, error.message, entity: error.entity, sql: error.sql, sqliteCode: error.sqliteCode)
            }
            throw error
        } catch {
            throw DatabaseError(.sqlite, "\(error)")
        }
        let conflicts = mergedConflicts
        mergedConflicts = []
        // Committed: make the new identities and versions visible, and tell other contexts.
        // (A large save is logged without identifiers; other contexts then refresh everything.)
        let listed = insertedObjects.count + updated.count + deletedObjects.count <= ChangeLog.largeSave
        let changes = listed
            ? (
                inserted: zip(insertedObjects, newRows).map { ObjectID(entityID: $0.objectID.entityID, rowID: $1) },
                updated: updated.filter { $0.changedMask != 0 || $0.relationshipMask != 0 }.map(\.objectID),
                deleted: deletedObjects.map(\.objectID)
            ) : nil
        defer { store.changeLog.record(origin: ObjectIdentifier(self), changes: changes) }
        for (object, row) in zip(insertedObjects, newRows) {
            object.objectID = ObjectID(entityID: object.objectID.entityID, rowID: row)
            // Replaces the pending row, which an unsaved object keeps in the version's place.
            object.version = 1
            object.changedMask = 0
            object.relationshipMask = 0
        }
        // New rows come in ascending order: into an empty map they go at once.
        registered.register(fetched: insertedObjects)
        for object in updated where object.changedMask != 0 || object.hasForeignKeyChange {
            object.version += 1
            object.changedMask = 0
        }
        for object in updated { object.relationshipMask = 0 }
        linkChanges.removeAll()
        for object in updatedObjects { object.isListedAsUpdated = false }
        for object in deletedObjects {
            registered[object.objectID] = nil
            object.isListedAsDeleted = false
            object.context = nil
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        // Objects whose version conflict the merge policy resolved hold the merged row.
        for object in conflicts { try? refresh(object) }
    }

    private func validate(updated: [ManagedObject]) throws(DatabaseError) {
        for object in insertedObjects {
            let entity = type(of: object).entityDescription
            for (slot, attribute) in entity.requiredWithoutDefault
            where object.changedMask & (slot < 63 ? 1 << UInt64(slot) : 1 << 63) == 0 {
                throw DatabaseError(
                    .validation, "\(entity.name).\(attribute) is required and was never set", entity: entity.name,
                    property: attribute)
            }
            if !entity.ruledAttributes.isEmpty { try AttributeValidator.validate(object, entity) }
            if !entity.relationships.isEmpty { try validateRelationships(object) }
        }
        for object in updated {
            let entity = type(of: object).entityDescription
            if !entity.ruledAttributes.isEmpty && object.changedMask != 0 { try AttributeValidator.validate(object, entity) }
            if !entity.relationships.isEmpty { try validateRelationships(object) }
        }
    }

    /// The statement for `sql`, reused without a cache lookup while consecutive objects share it
    /// (saves write objects of one entity in runs, so this avoids hashing the SQL per row).
    private func statement(
        _ sql: String, entity: EntityDescription, last: inout (EntityDescription, Statement)?, _ connection: Connection
    ) throws(DatabaseError) -> Statement {
        if let (previous, statement) = last, previous === entity {
            // Inserts, updates and deletes bind every parameter of their statement.
            statement.resetForRebinding()
            return statement
        }
        let statement = try connection.cachedStatement(sql)
        last = (entity, statement)
        return statement
    }

    private var lastInsert: (EntityDescription, Statement)?
    private var lastUpdate: (UpdateKey, Statement)?
    private var lastDelete: (EntityDescription, Statement)?

    private func insertRow(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) -> Int64 {
        let entity = type(of: object).entityDescription
        let statement = try statement(entity.insertSQL, entity: entity, last: &lastInsert, connection)
        statement.bind(object.pendingRow, at: 1)
        statement.bind(Int64(entity.entityID), at: 2)
        var next = object.bind(to: statement, startingAt: 3, mask: .max)
        if entity.hasForeignKeys { next = bindForeignKeys(object, entity, statement, next, mask: .max) }
        try statement.run()
        return object.pendingRow
    }

    private func updateRow(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) {
        let entity = type(of: object).entityDescription
        let foreignKeyMask = entity.hasForeignKeys ? object.relationshipMask & entity.foreignKeyMask : 0
        let key = UpdateKey(entity: ObjectIdentifier(entity), mask: object.changedMask, relationshipMask: foreignKeyMask)
        let statement: Statement
        // Saves update runs of objects with the same changes: reuse the statement without
        // hashing its SQL per row.
        if let (previous, cached) = lastUpdate, previous == key {
            cached.resetForRebinding()
            statement = cached
        } else {
            let sql: String
            if let cached = updateSQL[key] {
                sql = cached
            } else {
                sql = entity.updateSQL(mask: object.changedMask, relationshipMask: foreignKeyMask)
                updateSQL[key] = sql
            }
            statement = try connection.cachedStatement(sql)
            lastUpdate = (key, statement)
        }
        /// Binds the changed values, the row and the `_version` the row must still have, and runs.
        func write(expecting version: Int64) throws(DatabaseError) {
            var next = object.bind(to: statement, startingAt: 1, mask: object.changedMask)
            if foreignKeyMask != 0 { next = bindForeignKeys(object, entity, statement, next, mask: foreignKeyMask) }
            statement.bind(object.objectID.rowID, at: next)
            statement.bind(version, at: next + 1)
            try statement.run()
        }
        try write(expecting: object.version)
        if connection.changes == 1 { return }
        // Optimistic locking: the row is gone, or another writer changed it since it was read.
        let stored = try storedVersion(of: object, entity, connection)
        switch mergePolicy {
        case .error:
            throw DatabaseError(
                .conflict,
                "\(entity.name) \(object.objectID) was changed by someone else since it was read (version \(object.version), now \(stored))",
                entity: entity.name, sql: statement.sql)
        case .objectTrump:
            // The changed properties are written over the newer row; the others keep its values.
            statement.reset()
            try write(expecting: stored)
        case .storeTrump:
            // The store's row wins: this object's changes are not written.
            break
        }
        mergedConflicts.append(object)
    }

    /// The `_version` of `object`'s row now.
    /// - Throws: `.missingObject` when the row is gone.
    private func storedVersion(of object: ManagedObject, _ entity: EntityDescription, _ connection: Connection) throws(DatabaseError) -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT \"_version\" FROM \(EntityDescription.quoted(entity.table)) WHERE \"_pk\" = ?")
        defer { statement.reset() }
        statement.bind(object.objectID.rowID, at: 1)
        guard try statement.step() else {
            throw DatabaseError(
                .missingObject, "\(entity.name) \(object.objectID) was deleted by someone else", entity: entity.name)
        }
        return statement.int64(0)
    }

    private func deleteRow(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) {
        let entity = type(of: object).entityDescription
        let statement = try statement(entity.deleteSQL, entity: entity, last: &lastDelete, connection)
        statement.bind(object.objectID.rowID, at: 1)
        try statement.run()
    }

    /// Forgets every unsaved change: inserted objects leave the context, changed objects are read
    /// again from the store, deleted ones come back.
    public func rollback() {
        deletionError = nil
        for object in insertedObjects {
            object.context = nil
            object.links = []
        }
        insertedObjects.removeAll()
        // Relationships are read again from the store when next used.
        registered.forEach { object in
            object.links = []
            object.relationshipMask = 0
        }
        linkChanges.removeAll()
        let changed = updatedObjects
        for object in updatedObjects + deletedObjects {
            object.isListedAsUpdated = false
            object.isListedAsDeleted = false
        }
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        for object in changed { try? refresh(object) }
    }

    /// Reads `object` again from the store, dropping its unsaved changes.
    /// - Throws: `.missingObject` when its row is gone.
    public func refresh(_ object: ManagedObject) throws(DatabaseError) {
        guard !object.objectID.isTemporary else { return }
        let entity = type(of: object).entityDescription
        let sql = "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_pk\" = ?"
        try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            statement.bind(object.objectID.rowID, at: 1)
            guard try statement.step() else {
                throw DatabaseError(.missingObject, "\(entity.name) \(object.objectID) is no longer in the store", entity: entity.name)
            }
            object.version = statement.int64(2)
            object.read(from: statement, startingAt: 3)
            object.links = []
            if entity.hasForeignKeys { Self.readForeignKeys(object, entity, statement) }
        }
        object.changedMask = 0
        object.relationshipMask = 0
        if object.isListedAsUpdated {
            object.isListedAsUpdated = false
            updatedObjects.removeAll { $0 === object }
        }
    }
}
