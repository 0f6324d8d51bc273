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

    public var hasChanges: Bool { !insertedObjects.isEmpty || !updatedObjects.isEmpty || !deletedObjects.isEmpty }

    // MARK: - Changes

    /// Inserts a new object of `type` with the model's defaults.
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        let object = T()
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
    ///   `.missingObject` when an updated row is gone or was changed by another context since it
    ///   was read, `.sqlite` for what the database refuses.
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
        // Committed: make the new identities and versions visible, and tell other contexts.
        // (A large save is logged without identifiers; other contexts then refresh everything.)
        let listed = insertedObjects.count + updated.count + deletedObjects.count <= ChangeLog.largeSave
        let changedIDs = (
            inserted: listed ? zip(insertedObjects, newRows).map { ObjectID(entityID: $0.objectID.entityID, rowID: $1) } : [],
            updated: listed ? updated.filter { $0.changedMask != 0 || $0.relationshipMask != 0 }.map(\.objectID) : [],
            deleted: listed ? deletedObjects.map(\.objectID) : []
        )
        defer {
            store.changeLog.record(
                origin: ObjectIdentifier(self), inserted: changedIDs.inserted, updated: changedIDs.updated, deleted: changedIDs.deleted,
                large: !listed)
        }
        for (object, row) in zip(insertedObjects, newRows) {
            object.objectID = ObjectID(entityID: object.objectID.entityID, rowID: row)
            object.version = 1
            object.changedMask = 0
            object.relationshipMask = 0
            object.pendingRow = 0
            registered[object.objectID] = object
        }
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
            statement.reset()
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
            cached.reset()
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
        var next = object.bind(to: statement, startingAt: 1, mask: object.changedMask)
        if foreignKeyMask != 0 { next = bindForeignKeys(object, entity, statement, next, mask: foreignKeyMask) }
        statement.bind(object.objectID.rowID, at: next)
        statement.bind(object.version, at: next + 1)
        try statement.run()
        guard connection.changes == 1 else {
            throw DatabaseError(
                .missingObject, "\(entity.name) \(object.objectID) was deleted or changed by someone else",
                entity: entity.name, sql: statement.sql)
        }
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

    // MARK: - Fetching

    /// Every object of `type` (and its sub-entities), in row order; see `fetch(_:)`.
    public func fetchAll<T: ManagedObject>(_ type: T.Type) throws(DatabaseError) -> [T] {
        try fetch(FetchRequest<T>())
    }

    /// The objects `request` selects, as Core Data fetches them: objects already in this context
    /// come back as they are (one object per row), and the context's unsaved inserts, changes and
    /// deletes are taken into account.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws(DatabaseError) -> [T] {
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        let entity = T.entityDescription
        let pending = hasChanges
        // Unsaved changes of other objects can change what a condition through relationships
        // means: then every row is checked in memory.
        let throughRelationships = pending && (request.predicate.map { $0.condition.followsRelationships } ?? false)
        let compiled = throughRelationships ? nil : request.predicate.map { CompiledPredicate<T>($0.condition) }
        let windowInSQL = compiled?.residue == nil && !pending
        var sql =
            "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_entity\" IN ("
            + entity.fetchedEntityIDs.map(String.init).joined(separator: ", ") + ")"
        if let compiled, compiled.sql != "1" { sql += " AND (\(compiled.sql))" }
        sql += " ORDER BY " + (request.sortDescriptors.map(\.sql) + ["\"_pk\""]).joined(separator: ", ")
        if windowInSQL, request.fetchLimit != nil || request.fetchOffset > 0 {
            sql += " LIMIT \(request.fetchLimit ?? -1) OFFSET \(request.fetchOffset)"
        }
        var objects = try materialize(T.self, sql: sql, parameters: compiled?.parameters ?? [])
        if windowInSQL { return objects }
        let condition = request.predicate?.condition
        if pending {
            // Objects changed in memory may no longer match, or may match now.
            objects = objects.filter { object in
                (object.changedMask == 0 && object.relationshipMask == 0 && !throughRelationships)
                    || condition.map { PredicateEvaluator.matches($0, object) } ?? true
            }
            let present = Set(objects.map(ObjectIdentifier.init))
            for object in updatedObjects + insertedObjects where !object.isListedAsDeleted {
                guard let object = object as? T, !present.contains(ObjectIdentifier(object)) else { continue }
                if condition.map({ PredicateEvaluator.matches($0, object) }) ?? true { objects.append(object) }
            }
            objects = Self.sorted(objects, by: request.sortDescriptors)
        } else if let residue = compiled?.residue {
            objects = objects.filter { PredicateEvaluator.matches(residue, $0) }
        }
        let start = min(request.fetchOffset, objects.count)
        let end = request.fetchLimit.map { min(start + $0, objects.count) } ?? objects.count
        return Array(objects[start..<end])
    }

    /// How many objects `request` selects (its limit and offset applied).
    public func count<T: ManagedObject>(_ request: FetchRequest<T>) throws(DatabaseError) -> Int {
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        let entity = T.entityDescription
        guard !hasChanges else { return try fetch(request).count }
        let compiled = request.predicate.map { CompiledPredicate<T>($0.condition) }
        guard compiled?.residue == nil else { return try fetch(request).count }
        var sql =
            "SELECT count(*) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_entity\" IN ("
            + entity.fetchedEntityIDs.map(String.init).joined(separator: ", ") + ")"
        if let compiled, compiled.sql != "1" { sql += " AND (\(compiled.sql))" }
        let total: Int = try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            for (index, value) in (compiled?.parameters ?? []).enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            _ = try statement.step()
            return Int(statement.int64(0))
        }
        let afterOffset = max(0, total - request.fetchOffset)
        return request.fetchLimit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// Sorts objects in memory the way SQL orders their rows: by the descriptors, then by row
    /// (unsaved inserts last, in insertion order).
    static func sorted<T: ManagedObject>(_ objects: [T], by descriptors: [ObjectSortDescriptor<T>]) -> [T] {
        func rank(_ object: T) -> (Int, Int64) {
            object.objectID.isTemporary ? (1, -object.objectID.rowID) : (0, object.objectID.rowID)
        }
        return objects.sorted { lhs, rhs in
            for descriptor in descriptors {
                let order = StoredValue.order(
                    PredicateEvaluator.value(descriptor.slot, lhs), PredicateEvaluator.value(descriptor.slot, rhs),
                    caseInsensitive: descriptor.caseInsensitive)
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return rank(lhs) < rank(rhs)
        }
    }

    /// Runs a SELECT of an entity's columns and turns rows into objects through the identity map.
    private func materialize<T: ManagedObject>(_ type: T.Type, sql: String, parameters: [StoredValue]) throws(DatabaseError) -> [T] {
        let objects = try materializeRows(sql, parameters: parameters, as: T.entityDescription, type: T.self)
        // Every row is of T's entity or a sub-entity, so every object is a T; an array of class
        // references has one layout whatever the class (no per-row generic work, no copy).
        return unsafeBitCast(objects, to: [T].self)
    }

    /// Runs a SELECT of `entity`'s columns (`_pk`, `_entity`, `_version`, then `entity.columns`)
    /// and turns rows into objects through the identity map; rows of sub-entities become objects of
    /// their own classes, deleted objects are left out.
    func materializeRows(
        _ sql: String, parameters: [StoredValue], as entity: EntityDescription, type: ManagedObject.Type? = nil
    ) throws(DatabaseError) -> [ManagedObject] {
        var objects: [ManagedObject] = []
        try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            for (index, value) in parameters.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            let checkRegistered = !registered.isEmpty
            let ownType = entity.objectType ?? type
            while try statement.step() {
                let id = ObjectID(entityID: Int32(truncatingIfNeeded: statement.int64(1)), rowID: statement.int64(0))
                if checkRegistered, let existing = registered[id] {
                    if !existing.isListedAsDeleted { objects.append(existing) }
                    continue
                }
                let rowEntity = id.entityID == entity.entityID ? entity : (store.entity(id.entityID) ?? entity)
                guard let objectType = id.entityID == entity.entityID ? ownType : rowEntity.objectType else {
                    throw DatabaseError(.misuse, "the model has no class for entity \(id.entityID) of table \(entity.table)", entity: entity.name)
                }
                let object = objectType.init()
                object.objectID = id
                object.version = statement.int64(2)
                object.context = self
                object.read(from: statement, startingAt: 3)
                if rowEntity.hasForeignKeys { Self.readForeignKeys(object, rowEntity, statement) }
                registered[id] = object
                objects.append(object)
            }
        }
        return objects
    }
}
