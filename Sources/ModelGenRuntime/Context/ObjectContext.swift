/// A unit of work on a store (Core Data's managed object context): one object per row (identity
/// map), the sets of inserted, updated and deleted objects, and `save()` as one transaction.
///
/// Not `Sendable`: a context belongs to the task that made it.
public final class ObjectContext {
    public let store: PersistentStore
    /// Objects by identity: one object per row in this context.
    private var registered: [ObjectID: ManagedObject] = [:]
    private var insertedObjects: [ManagedObject] = []
    private var updatedObjects: [ObjectIdentifier: ManagedObject] = [:]
    private var deletedObjects: [ObjectIdentifier: ManagedObject] = [:]
    private var nextTemporaryRow: Int64 = -1

    init(store: PersistentStore) {
        self.store = store
    }

    public var hasChanges: Bool { !insertedObjects.isEmpty || !updatedObjects.isEmpty || !deletedObjects.isEmpty }
    public var insertedCount: Int { insertedObjects.count }

    // MARK: - Changes

    /// Inserts a new object of `type` with the model's defaults.
    @_spi(Generated)
    public func insert<T: GeneratedObject>(_ type: T.Type) -> T {
        let object = T()
        object.objectID = ObjectID(entityID: T.entityDescription.entityID, rowID: nextTemporaryRow)
        nextTemporaryRow -= 1
        object.context = self
        registered[object.objectID] = object
        insertedObjects.append(object)
        return object
    }

    func noteUpdate(_ object: ManagedObject) {
        guard !object.objectID.isTemporary, deletedObjects[ObjectIdentifier(object)] == nil else { return }
        updatedObjects[ObjectIdentifier(object)] = object
    }

    /// Marks `object` for deletion at the next save (an unsaved insert is simply dropped).
    public func delete(_ object: ManagedObject) {
        guard object.context === self else { return }
        if object.objectID.isTemporary {
            insertedObjects.removeAll { $0 === object }
            registered[object.objectID] = nil
            object.context = nil
            return
        }
        updatedObjects[ObjectIdentifier(object)] = nil
        deletedObjects[ObjectIdentifier(object)] = object
    }

    // MARK: - Saving

    /// Writes every change in one transaction: all or nothing. On failure the store is unchanged
    /// and the context keeps its unsaved changes.
    /// - Throws: `.validation` (naming entity and attribute) for a required attribute never set,
    ///   `.missingObject` when an updated or deleted row is gone or was changed by another
    ///   context, `.sqlite` for what the database refuses.
    public func save() throws(DatabaseError) {
        guard hasChanges else { return }
        try validate()
        let inserted = insertedObjects
        let updated = Array(updatedObjects.values)
        let deleted = Array(deletedObjects.values)
        var newIDs: [(ManagedObject, ObjectID)] = []
        do {
            try store.withConnection { connection in
                try connection.transaction {
                    for object in inserted {
                        newIDs.append((object, try Self.insertRow(object, connection)))
                    }
                    for object in updated { try Self.updateRow(object, connection) }
                    for object in deleted { try Self.deleteRow(object, connection) }
                }
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(.sqlite, "\(error)")
        }
        // Committed: make the new identities and versions visible.
        for (object, id) in newIDs {
            registered[object.objectID] = nil
            object.objectID = id
            object.version = 1
            registered[id] = object
        }
        for object in updated { object.version += 1 }
        for object in deleted {
            registered[object.objectID] = nil
            object.context = nil
        }
        for object in inserted + updated { object.changedSlots.removeAll() }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
    }

    private func validate() throws(DatabaseError) {
        for object in insertedObjects {
            guard let generated = object as? any GeneratedObject else { continue }
            let entity = type(of: generated).entityDescription
            for (slot, attribute) in entity.attributes.enumerated()
            where !attribute.isOptional && !attribute.hasDefault && !object.changedSlots.contains(slot) {
                throw DatabaseError(
                    .validation, "\(entity.name).\(attribute.name) is required and was never set",
                    entity: entity.name, property: attribute.name)
            }
        }
    }

    private static func description(of object: ManagedObject) -> (EntityDescription, any GeneratedObject) {
        guard let generated = object as? any GeneratedObject else {
            preconditionFailure("\(type(of: object)) is not a generated entity class")
        }
        return (type(of: generated).entityDescription, generated)
    }

    private static func insertRow(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) -> ObjectID {
        let (entity, generated) = description(of: object)
        let statement = try connection.cachedStatement(entity.insertSQL)
        statement.bind(Int64(entity.entityID), at: 1)
        generated.bind(to: statement, startingAt: 2)
        try statement.run()
        return ObjectID(entityID: entity.entityID, rowID: connection.lastInsertedRowID)
    }

    private static func updateRow(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) {
        let (entity, generated) = description(of: object)
        let statement = try connection.cachedStatement(entity.updateSQL)
        generated.bind(to: statement, startingAt: 1)
        let next = Int32(entity.attributes.count) + 1
        statement.bind(object.objectID.rowID, at: next)
        statement.bind(object.version, at: next + 1)
        try statement.run()
        guard connection.changes == 1 else {
            throw DatabaseError(
                .missingObject, "\(entity.name) \(object.objectID) was deleted or changed by someone else", entity: entity.name,
                sql: entity.updateSQL)
        }
    }

    private static func deleteRow(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) {
        let (entity, _) = description(of: object)
        let statement = try connection.cachedStatement(entity.deleteSQL)
        statement.bind(object.objectID.rowID, at: 1)
        try statement.run()
    }

    /// Forgets every unsaved change: inserted objects leave the context, changed objects are read
    /// again from the store, deleted ones come back.
    public func rollback() {
        for object in insertedObjects {
            registered[object.objectID] = nil
            object.context = nil
        }
        insertedObjects.removeAll()
        let changed = Array(updatedObjects.values)
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        for object in changed {
            object.changedSlots.removeAll()
            try? refresh(object)
        }
    }

    /// Reads `object` again from the store, dropping its unsaved changes.
    public func refresh(_ object: ManagedObject) throws(DatabaseError) {
        let (entity, generated) = Self.description(of: object)
        guard !object.objectID.isTemporary else { return }
        let sql = "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_pk\" = ?"
        try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            statement.bind(object.objectID.rowID, at: 1)
            guard try statement.step() else {
                throw DatabaseError(.missingObject, "\(entity.name) \(object.objectID) is no longer in the store", entity: entity.name)
            }
            object.version = statement.int64(2)
            generated.read(from: statement, startingAt: 3)
            object.changedSlots.removeAll()
            updatedObjects[ObjectIdentifier(object)] = nil
        }
    }

    // MARK: - Fetching

    /// Every object of `type` (and its sub-entities) in the store, in row order; objects already
    /// in this context are returned as they are (with their unsaved changes), unsaved inserts last.
    @_spi(Generated)
    public func fetchAll<T: GeneratedObject>(_ type: T.Type) throws(DatabaseError) -> [T] {
        let entity = T.entityDescription
        let ids = entity.fetchedEntityIDs.map(String.init).joined(separator: ", ")
        let sql =
            "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_entity\" IN (\(ids)) ORDER BY \"_pk\""
        var result: [T] = try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            var objects: [T] = []
            while try statement.step() {
                let id = ObjectID(entityID: Int32(statement.int64(1)), rowID: statement.int64(0))
                if let existing = registered[id] as? T {
                    if deletedObjects[ObjectIdentifier(existing)] == nil { objects.append(existing) }
                    continue
                }
                let object = T()
                object.objectID = id
                object.version = statement.int64(2)
                object.context = self
                object.read(from: statement, startingAt: 3)
                registered[id] = object
                objects.append(object)
            }
            return objects
        }
        result += insertedObjects.compactMap { $0 as? T }
        return result
    }
}
