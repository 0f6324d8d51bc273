import Foundation

/// A value for an attribute, in a batch update or insert: `BatchValue(\Book.pages, 0)`.
///
/// `Sendable`, like `AggregateCondition`: it holds a value of the attribute's Swift type that no
/// one changes once it is given, so batches can be built in one task and run in another.
public struct BatchValue<T: ManagedObject>: @unchecked Sendable {
    let slot: Int
    let value: Any?
    let failure: DatabaseError?

    public init<V>(_ keyPath: KeyPath<T, V>, _ value: V) {
        let entity = T.entityDescription
        if let slot = T.slot(for: keyPath) {
            self.slot = slot
            failure = nil
        } else {
            slot = 0
            failure = DatabaseError(
                .misuse, "\(keyPath) is not a stored attribute of \(entity.name): a batch cannot set it",
                entity: entity.name)
        }
        self.value = value
    }

    /// The value as its column stores it, checked as a save checks it (type, required, bounds,
    /// pattern).
    func stored(_ entity: EntityDescription) throws(DatabaseError) -> (AttributeDescription, StoredValue) {
        if let failure { throw failure }
        let attribute = entity.attributes[slot]
        guard var plain = unwrappedValue(value) else {
            guard attribute.isOptional else {
                throw DatabaseError(
                    .validation, "\(entity.name).\(attribute.name) is required: a batch cannot set it to nil",
                    entity: entity.name, property: attribute.name)
            }
            return (attribute, .null)
        }
        if let conversion = attribute.conversion { plain = try conversion.stored(plain) }
        guard let stored = StoredValue.from(plain, for: attribute.type) else {
            throw DatabaseError(
                .wrongType, "\(String(describing: plain)) cannot be stored in \(entity.name).\(attribute.name)",
                entity: entity.name, property: attribute.name)
        }
        // What a save refuses, a batch refuses with the same code.
        if case .real(let number) = stored, number.isNaN || (number == 0 && number.sign == .minus) {
            throw DatabaseError(
                .validation,
                "\(entity.name).\(attribute.name) is NaN or -0.0, which SQLite cannot store as it is (NaN becomes NULL, -0.0 becomes 0)",
                entity: entity.name, property: attribute.name)
        }
        if attribute.hasRule { try AttributeValidator.validate(plain, attribute, entity) }
        return (attribute, stored)
    }
}

/// The origin batch operations record their changes under: no context's, so that every context
/// merges them, the one that ran the operation too.
private enum BatchOrigin {}

extension ObjectContext {
    // MARK: - Batch operations

    /// Deletes the objects of `type` (and its sub-entities) that `predicate` selects, as rows, in
    /// one transaction, without making objects: a statement per table and relationship, whatever
    /// the number of rows. Deletion rules apply as a save applies them: Cascade deletes the
    /// destinations too (recursively), Nullify clears the keys of the rows that stay, and the
    /// delete is refused (nothing deleted) where a Deny relationship still leads to a row that
    /// stays (`.deny`) or Nullify would empty a required to-one (`.validation`).
    ///
    /// The predicate selects rows as the store holds them (this context's unsaved changes do not
    /// count). Afterwards every context on the store merges the change: deleted objects leave the
    /// contexts (unsaved changes of theirs included), and observers hear of it.
    ///
    /// ```swift
    /// let purged = try context.batchDelete(LogEntry.self, where: \.created < cutoff)
    /// ```
    ///
    /// - Returns: How many objects were deleted, cascades included.
    @discardableResult
    public func batchDelete<T: ManagedObject>(_ type: T.Type, where predicate: ObjectPredicate<T>? = nil)
        throws -> Int
    {
        guard parent == nil else {
            throw DatabaseError(.misuse, "a batch delete runs on a context of the store, not a child context")
        }
        if let failure = predicate?.failure { throw failure }
        let entity = T.entityDescription
        // The store's rows as saved: this context's changes do not count.
        let plan = FetchPlan(FetchRequest<T>(predicate: predicate), pending: false, dialect: store.dialect)
        let family = entity.fetchedEntityIDs.compactMap { store.entity($0) }
        if plan.sqlCountsAll, family.count == entity.fetchedEntityIDs.count, family.allSatisfy(\.relationships.isEmpty)
        {
            return try deleteRows(of: entity, plan.compiled?.sql, plan.parameters)
        }
        var deletion: BatchDeletion?
        try inBatchTransaction { connection throws(DatabaseError) in
            let ids = try DatabaseError.rethrown {
                try store.newContext().fetchObjectIDs(FetchRequest<T>(predicate: predicate))
            }
            var plan = BatchDeletion(store: store, connection: connection)
            try plan.add(ids, table: entity.table)
            let groups = try plan.groups()
            try plan.check(groups)
            try plan.write(groups)
            deletion = plan
            return plan.count + plan.updated.count <= ChangeLog.largeSave
                ? (inserted: [], updated: plan.updated, deleted: plan.deleted) : nil
        }
        return deletion?.count ?? 0
    }

    /// A batch delete of rows no relationship of theirs leads from (links to them from other
    /// entities are the database's to clear, as in any delete): one DELETE, after a SELECT of the
    /// rows' numbers for the change log that stops past the most it lists.
    private func deleteRows(of entity: EntityDescription, _ condition: String?, _ parameters: [SQLArgument])
        throws(DatabaseError) -> Int
    {
        var count = 0
        try inBatchTransaction { connection throws(DatabaseError) in
            let rows = entity.fetchedRowsSQL(where: condition, store.dialect)
            let select = try connection.cachedStatement(
                "SELECT \"_pk\", \"_entity\" \(rows) LIMIT \(ChangeLog.largeSave + 1)")
            defer { select.resetForRebinding() }
            for (index, value) in parameters.enumerated() { value.bind(to: select, at: Int32(index + 1)) }
            var deleted: [ObjectID] = []
            while try select.step() { deleted.append(select.objectID(key: 0, entity: 1)) }
            let delete = try connection.cachedStatement("DELETE " + rows)
            defer { delete.resetForRebinding() }
            for (index, value) in parameters.enumerated() { value.bind(to: delete, at: Int32(index + 1)) }
            try delete.run()
            count = connection.changes
            return deleted.count <= ChangeLog.largeSave ? (inserted: [], updated: [], deleted: deleted) : nil
        }
        return count
    }

    /// Sets attributes of the objects of `type` (and its sub-entities) that `predicate` selects, as
    /// rows, in one statement, without making objects. Values are checked as a save checks them
    /// (type, required, bounds, pattern); a unique index that refuses a value refuses the whole
    /// update (`.uniqueness`). Each row's `_version` moves, so a context holding an object with
    /// unsaved changes meets the conflict its merge policy decides. Afterwards every context
    /// merges the change: objects without unsaved changes are read again.
    ///
    /// ```swift
    /// try context.batchUpdate(Book.self, set: [BatchValue(\.pages, 0)], where: \.year == nil)
    /// ```
    ///
    /// - Returns: How many objects were updated.
    @discardableResult
    public func batchUpdate<T: ManagedObject>(
        _ type: T.Type, set values: [BatchValue<T>], where predicate: ObjectPredicate<T>? = nil
    ) throws -> Int {
        guard parent == nil else {
            throw DatabaseError(.misuse, "a batch update runs on a context of the store, not a child context")
        }
        if let failure = predicate?.failure { throw failure }
        let entity = T.entityDescription
        var assignments: [(AttributeDescription, StoredValue)] = []
        for value in values { assignments.append(try value.stored(entity)) }
        guard !assignments.isEmpty else { return 0 }
        var count = 0
        try inBatchTransaction { connection throws(DatabaseError) in
            let ids = try DatabaseError.rethrown {
                try store.newContext().fetchObjectIDs(FetchRequest<T>(predicate: predicate))
            }
            count = ids.count
            guard !ids.isEmpty else { return (inserted: [], updated: [], deleted: []) }
            let quoted = EntityDescription.quoted
            let sets = assignments.map { "\(quoted($0.0.column)) = ?" } + ["\"_version\" = \"_version\" + 1"]
            let statement = try connection.cachedStatement(
                "UPDATE \(quoted(entity.table)) SET \(sets.joined(separator: ", ")) WHERE "
                    + store.dialect.isOneOfKeys("\"_pk\""))
            defer { statement.resetForRebinding() }
            for (index, (attribute, value)) in assignments.enumerated() {
                value.bind(to: statement, at: Int32(index + 1), as: attribute.type)
            }
            store.dialect.keyList(ids.map(\.rowID)).bind(to: statement, at: Int32(assignments.count + 1))
            try statement.run()
            return ids.count <= ChangeLog.largeSave ? (inserted: [], updated: ids, deleted: []) : nil
        }
        return count
    }

    /// Inserts a row of `type` per element of `rows`, from values, in one transaction, without
    /// making objects; attributes a row does not name take the model's default (a required one
    /// without a default refuses the insert). Relationships are not set. Values are checked as a
    /// save checks them; a unique index that refuses a row refuses them all (`.uniqueness`).
    ///
    /// ```swift
    /// let ids = try context.batchInsert(Book.self, rows: titles.map { [BatchValue(\.title, $0)] })
    /// ```
    ///
    /// - Returns: The new objects' IDs, in the order of `rows`.
    @discardableResult
    public func batchInsert<T: ManagedObject>(_ type: T.Type, rows: [[BatchValue<T>]]) throws
        -> [ObjectID]
    {
        guard parent == nil else {
            throw DatabaseError(.misuse, "a batch insert runs on a context of the store, not a child context")
        }
        let entity = T.entityDescription
        var prepared: [[(AttributeDescription, StoredValue)]] = []
        for row in rows {
            var values: [(AttributeDescription, StoredValue)] = []
            for value in row { values.append(try value.stored(entity)) }
            let named = Set(values.map(\.0.name))
            if let missing = entity.attributes.first(where: {
                !$0.isOptional && !$0.hasDefault && !named.contains($0.name)
            }) {
                throw DatabaseError(
                    .validation, "\(entity.name).\(missing.name) is required and has no default: each row must name it",
                    entity: entity.name, property: missing.name)
            }
            prepared.append(values)
        }
        var ids: [ObjectID] = []
        try inBatchTransaction { connection throws(DatabaseError) in
            let quoted = EntityDescription.quoted
            for values in prepared {
                let columns = ["\"_entity\""] + values.map { quoted($0.0.column) }
                let statement = try connection.cachedStatement(
                    "INSERT INTO \(quoted(entity.table)) (\(columns.joined(separator: ", "))) VALUES ("
                        + columns.map { _ in "?" }.joined(separator: ", ") + ") RETURNING \"_pk\"")
                defer { statement.resetForRebinding() }
                statement.bind(Int64(entity.entityID), at: 1)
                for (index, (attribute, value)) in values.enumerated() {
                    value.bind(to: statement, at: Int32(index + 2), as: attribute.type)
                }
                guard try statement.step() else {
                    throw DatabaseError(.misuse, "the insert into \(entity.table) returned no row number")
                }
                ids.append(ObjectID(entityID: entity.entityID, rowID: statement.int64(0)))
            }
            return ids.count <= ChangeLog.largeSave ? (inserted: ids, updated: [], deleted: []) : nil
        }
        return ids
    }

    /// Runs `body` in a transaction on the store (sending PostgreSQL's change notification with
    /// it), then records what it changed for every context and merges it here.
    private func inBatchTransaction(_ body: (Connection) throws(DatabaseError) -> SavedChanges?)
        throws(DatabaseError)
    {
        var changes: SavedChanges?
        do {
            try store.withConnection { connection in
                try connection.transaction {
                    changes = try body(connection)
                    if let feed = store.changeFeed { try notify(feed, changes, connection) }
                }
            }
        } catch let error as DatabaseError {
            if error.isUniqueViolation { throw uniquenessError(error) }
            throw error
        } catch {
            throw DatabaseError(.sqlite, "\(error)")
        }
        store.changeLog.record(origin: ObjectIdentifier(BatchOrigin.self), changes: changes)
        mergeChangesFromStore()
    }
}
