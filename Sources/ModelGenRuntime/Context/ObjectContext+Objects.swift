extension ObjectContext {
    // MARK: - Objects by identifier

    /// The object of `id` in this context: the one already here, or the row read from the store;
    /// `nil` when the row is gone (or `id` is another context's temporary identifier).
    ///
    /// An object deleted in this context but not saved yet is still returned (its row exists).
    public func object(with id: ObjectID) -> ManagedObject? {
        try? existingObject(with: id)
    }

    /// The object of `id` as `type` (`nil` when the row is gone or is not a `type`).
    public func object<T: ManagedObject>(with id: ObjectID, as type: T.Type) -> T? {
        object(with: id) as? T
    }

    /// The object of `id` in this context: the one already here, or the row read from the store.
    /// - Throws: `.missingObject` when no row of the store has `id` (deleted, or never saved: a
    ///   temporary identifier resolves only in the context that made it); `.misuse` when the
    ///   store's model has no entity of `id`'s number.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        if let object = registered[id] { return object }
        if id.isTemporary, let object = insertedObjects.first(where: { $0.objectID == id }) ?? parentInserted[id] {
            return object
        }
        // A child finds it in its parent (with the parent's unsaved values).
        if let parent { return childObject(for: try parent.existingObject(with: id)) }
        if id.isTemporary {
            throw DatabaseError(
                .missingObject, "\(id) is a temporary identifier of no object of this context (it was never saved here)"
            )
        }
        guard let entity = store.entity(id.entityID) else {
            throw DatabaseError(
                .misuse,
                "the model \(store.model.name) has no entity numbered \(id.entityID) (object \(id.stringValue))")
        }
        // The row of that number, if it is of that entity (not of another sharing the table).
        let rows = try materializeRows(entity.selectRowSQL, parameters: [.key(id.rowID)], as: entity)
        guard let object = rows.first, object.objectID.entityID == id.entityID else {
            throw DatabaseError(
                .missingObject, "\(entity.name) \(id.stringValue) is not in the store", entity: entity.name)
        }
        return object
    }

    /// The object of `id` as `type`.
    /// - Throws: as `existingObject(with:)`, and `.wrongType` when the object is not a `type`.
    public func existingObject<T: ManagedObject>(with id: ObjectID, as type: T.Type) throws -> T {
        let object = try existingObject(with: id)
        guard let typed = object as? T else {
            let entity = Swift.type(of: object).entityDescription.name
            throw DatabaseError(
                .wrongType, "object \(id.stringValue) is a \(entity), not a \(T.entityDescription.name)", entity: entity
            )
        }
        return typed
    }
}
