extension ObjectContext {
    /// Reads `object`, a registered object, again from the statement's current row (its entity's
    /// columns): version, values, to-one keys; other relationships are read again when used.
    /// - Throws: `.conversion` when a typed value of the row does not convert.
    static func readAgain(_ object: ManagedObject, _ entity: EntityDescription, from statement: Statement)
        throws(DatabaseError)
    {
        object.version = statement.int64(2)
        object.read(from: statement, startingAt: 3)
        if entity.hasConversions { try statement.checkConversions(entity, row: object.objectID.rowID) }
        if entity.isObserved { object.modelGenValuesDidChange() }
        object.links = []
        if entity.hasForeignKeys { readForeignKeys(object, entity, statement) }
    }

    /// Records the owning to-one keys of a row just read (columns after `_pk`, `_entity`,
    /// `_version`), so the destinations can be found without another query of this table.
    static func readForeignKeys(_ object: ManagedObject, _ entity: EntityDescription, _ statement: Statement) {
        if let (_, position) = entity.singleForeignKey, object.links.isEmpty {
            let column = Int32(3 + position)
            object.heldKey = statement.isNull(column) ? ManagedObject.heldNull : statement.int64(column)
            return
        }
        object.prepareLinks()
        for (index, position) in entity.foreignKeyPositions.enumerated() {
            guard let position else { continue }
            let column = Int32(3 + position)
            object.links[index] = .key(statement.isNull(column) ? nil : statement.int64(column))
        }
    }

    /// Calls `body` for each run of consecutive objects of one class, with the class's entity and
    /// the run's indices. Objects are inserted, changed and deleted in loops, so the lists of a
    /// save come in long runs: the entity is looked up once per run, not once per object.
    static func forEachRun<E: Error>(
        of objects: [ManagedObject], _ body: (EntityDescription, Range<Int>) throws(E) -> Void
    ) throws(E) {
        var start = 0
        while start < objects.count {
            let runClass = type(of: objects[start])
            let identity = ObjectIdentifier(runClass)
            var end = start + 1
            while end < objects.count, ObjectIdentifier(type(of: objects[end])) == identity { end += 1 }
            try body(runClass.entityDescription, start..<end)
            start = end
        }
    }

    /// What a save must do besides writing rows, decided from the entities of its objects: a save
    /// of entities without uniqueness constraints or relationships skips those passes.
    struct SaveWork {
        /// Some entity has uniqueness constraints.
        var checksUniqueness = false
        /// Some entity has relationships (positions or join rows may have to be written).
        var hasRelationships = false
        /// Some entity has a Deny rule.
        var checksDeny = false

        init(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]) {
            // Merges move objects between the lists, so each flag covers the entities of all three.
            for objects in [inserted, updated, deleted] {
                ObjectContext.forEachRun(of: objects) { entity, _ in
                    checksUniqueness = checksUniqueness || !entity.uniquenessConstraints.isEmpty
                    hasRelationships = hasRelationships || !entity.relationships.isEmpty
                    checksDeny = checksDeny || entity.hasDenyRule
                }
            }
        }
    }

    /// Gives every inserted object its `_pk` before any row is written, so foreign keys between
    /// new objects can be bound directly (the tables' foreign keys are checked at commit).
    ///
    /// On SQLite: one past the table's largest, in list order, which is the number SQLite gives a
    /// row inserted without one (`insertRows` checks that it did); the save holds the database's
    /// write lock, so no other writer can take it. On PostgreSQL, where many sessions write at
    /// once, the numbers come from the table's identity sequence, one query per run of one entity.
    func assignRows(_ connection: Connection) throws(DatabaseError) {
        let objects = insertedObjects
        if connection.numbersRowsFromSequence {
            try Self.forEachRun(of: objects) { entity, run throws(DatabaseError) in
                // The sequence named in the SQL, not looked up per row: a tenth of the time.
                let sequence = try connection.keySequence(of: entity.table)
                let statement = try connection.cachedStatement(
                    "SELECT nextval(\(StoreDialect.literal(sequence))::regclass) FROM generate_series(1, CAST(? AS integer))"
                )
                defer { statement.reset() }
                statement.bind(Int64(run.count), at: 1)
                for object in objects[run] {
                    guard try statement.step() else {
                        throw DatabaseError(
                            .postgres, "the sequence of \(entity.table)._pk gave too few numbers", entity: entity.name)
                    }
                    object.pendingRow = statement.int64(0)
                }
            }
            return
        }
        var next: [String: Int64] = [:]
        try Self.forEachRun(of: objects) { entity, run throws(DatabaseError) in
            let table = entity.table
            var row: Int64
            if let known = next[table] {
                row = known
            } else {
                let statement = try connection.cachedStatement(
                    connection.keyQueries[table]
                        ?? "SELECT coalesce(max(\"_pk\"), 0) FROM \(EntityDescription.quoted(table))")
                _ = try statement.step()
                row = statement.int64(0)
                statement.reset()
            }
            for object in objects[run] {
                // A table whose largest `_pk` is `Int64.max` has no next row number: the save fails
                // (as SQLite's own numbering reports `SQLITE_FULL`) instead of the number overflowing.
                guard row < Int64.max else {
                    throw DatabaseError(
                        .sqlite, "table \(table) has no row number left after \(row) for a new \(entity.name)",
                        entity: entity.name,
                        sqliteCode: SQLiteResultCode.full)
                }
                row += 1
                object.pendingRow = row
            }
            next[table] = row
        }
    }

    /// Writes the rows of the inserted objects, one statement per run of one entity. Rows of
    /// tables in `numbered` (and every row on PostgreSQL) are inserted with the `_pk`
    /// `assignRows` gave them (the save deleted rows there, so SQLite's own numbering could
    /// differ); elsewhere SQLite numbers them.
    func insertRows(_ connection: Connection, numbered: Set<String> = []) throws(DatabaseError) {
        let objects = insertedObjects
        let numbersAll = connection.numbersRowsFromSequence
        try Self.forEachRun(of: objects) { entity, run throws(DatabaseError) in
            let givesKey = numbersAll || numbered.contains(entity.table) || connection.keyQueries[entity.table] != nil
            let statement = try connection.cachedStatement(givesKey ? entity.insertWithKeySQL : entity.insertSQL)
            for object in objects[run] {
                if givesKey { statement.bind(object.pendingRow, at: 1) }
                var next = object.bindAttributes(to: statement, startingAt: givesKey ? 2 : 1, mask: .max, entity)
                if entity.hasForeignKeys { next = bindForeignKeys(object, entity, statement, next, mask: .max) }
                try statement.checkStorable(object, entity)
                // A row with its `_pk` given needs nothing back: on PostgreSQL it is queued.
                if givesKey { try statement.runQueued() } else { try statement.run() }
                // The statement binds every parameter anew for the next row.
                statement.resetForRebinding()
                if givesKey { continue }
                // SQLite numbered the row (quicker than checking a given `_pk` is free); foreign keys
                // to the object were bound with the number `assignRows` gave it, so they must agree
                // (they can only differ if something else, such as a trigger, inserted into the table).
                let stored = try connection.lastInsertedRowID
                guard stored == object.pendingRow else {
                    throw DatabaseError(
                        .sqlite,
                        "table \(entity.table) numbered a new \(entity.name) \(stored) where \(object.pendingRow) was expected",
                        entity: entity.name, sql: statement.sql)
                }
            }
        }
    }

    /// Writes the changed columns of each updated object; runs of objects with the same changes
    /// share one statement without looking it up again. On PostgreSQL the UPDATEs are queued and
    /// sent in pipelines; the rows they changed are checked afterwards, and each object whose row
    /// had another `_version` is resolved then, as on SQLite.
    func updateRows(_ objects: [ManagedObject], _ connection: Connection) throws(DatabaseError) {
        var last: (UpdateKey, Statement)?
        let queued = connection.pipelinesWrites
        var written: [(ManagedObject, EntityDescription, UInt64)] = []
        // Statements queued before (released keys, deletes) come first in the flush's counts.
        let first = connection.queuedCount
        try Self.forEachRun(of: objects) { entity, run throws(DatabaseError) in
            for object in objects[run] {
                let foreignKeyMask = entity.hasForeignKeys ? object.relationshipMask & entity.foreignKeyMask : 0
                guard object.changedMask != 0 || foreignKeyMask != 0 else { continue }
                let statement = try updateStatement(object, entity, foreignKeyMask: foreignKeyMask, &last, connection)
                try bindUpdate(object, entity, foreignKeyMask: foreignKeyMask, expecting: object.version, statement)
                if queued {
                    try statement.runQueued()
                    written.append((object, entity, foreignKeyMask))
                } else {
                    try statement.run()
                    if connection.changes != 1 {
                        try resolveVersionConflict(
                            object, entity, foreignKeyMask: foreignKeyMask, statement, connection)
                    }
                }
            }
        }
        guard queued, !written.isEmpty else { return }
        let counts = try connection.flush()
        for (index, (object, entity, foreignKeyMask)) in written.enumerated()
        where first + index >= counts.count || counts[first + index] != 1 {
            let sql = updateSQL[
                UpdateKey(entity: ObjectIdentifier(entity), mask: object.changedMask, relationshipMask: foreignKeyMask)]!
            try resolveVersionConflict(
                object, entity, foreignKeyMask: foreignKeyMask, try connection.cachedStatement(sql), connection)
        }
    }

    /// The UPDATE statement of `object`'s changes (the previous one when it has the same changes).
    private func updateStatement(
        _ object: ManagedObject, _ entity: EntityDescription, foreignKeyMask: UInt64,
        _ last: inout (UpdateKey, Statement)?,
        _ connection: Connection
    ) throws(DatabaseError) -> Statement {
        let key = UpdateKey(
            entity: ObjectIdentifier(entity), mask: object.changedMask, relationshipMask: foreignKeyMask)
        if let (previous, cached) = last, previous == key {
            // The statement binds every parameter anew.
            cached.resetForRebinding()
            return cached
        }
        let sql: String
        if let cached = updateSQL[key] {
            sql = cached
        } else {
            sql = entity.updateSQL(mask: object.changedMask, relationshipMask: foreignKeyMask)
            updateSQL[key] = sql
        }
        let statement = try connection.cachedStatement(sql)
        last = (key, statement)
        return statement
    }

    /// Binds the changed values, the row and the `_version` the row must still have.
    private func bindUpdate(
        _ object: ManagedObject, _ entity: EntityDescription, foreignKeyMask: UInt64, expecting version: Int64,
        _ statement: Statement
    ) throws(DatabaseError) {
        var next = object.bindAttributes(to: statement, startingAt: 1, mask: object.changedMask, entity)
        if foreignKeyMask != 0 { next = bindForeignKeys(object, entity, statement, next, mask: foreignKeyMask) }
        statement.bind(object.objectID.rowID, at: next)
        statement.bind(version, at: next + 1)
        try statement.checkStorable(object, entity)
    }

    /// Optimistic locking: `object`'s UPDATE matched no row, so the row is gone or another writer
    /// changed it since it was read. The merge policy decides.
    private func resolveVersionConflict(
        _ object: ManagedObject, _ entity: EntityDescription, foreignKeyMask: UInt64, _ statement: Statement,
        _ connection: Connection
    ) throws(DatabaseError) {
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
            try bindUpdate(object, entity, foreignKeyMask: foreignKeyMask, expecting: stored, statement)
            try statement.run()
        case .storeTrump:
            // The store's row wins: this object's changes are not written.
            break
        }
        mergedConflicts.append(object)
    }

    /// The `_version` of `object`'s row now.
    /// - Throws: `.missingObject` when the row is gone.
    private func storedVersion(of object: ManagedObject, _ entity: EntityDescription, _ connection: Connection)
        throws(DatabaseError) -> Int64
    {
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

    /// Deletes the rows of the deleted objects, one statement per run of one entity.
    func deleteRows(_ connection: Connection) throws(DatabaseError) {
        let objects = deletedObjects
        try Self.forEachRun(of: objects) { entity, run throws(DatabaseError) in
            let statement = try connection.cachedStatement(entity.deleteSQL)
            for object in objects[run] {
                statement.bind(object.objectID.rowID, at: 1)
                try statement.runQueued()
                statement.resetForRebinding()
            }
        }
    }

    /// Binds the owning to-one keys whose bits are set in `mask`, in relationship order.
    func bindForeignKeys(
        _ object: ManagedObject, _ entity: EntityDescription, _ statement: Statement, _ start: Int32, mask: UInt64
    ) -> Int32 {
        var index = start
        object.prepareLinks()
        for (number, relationship) in entity.relationships.enumerated() where relationship.foreignKeyColumn != nil {
            guard mask & EntityDescription.bit(number) != 0 else { continue }
            switch object.links[number] {
            case .key(let row?): statement.bind(row, at: index)
            case .toOne(let destination?) where destination.context === self && !destination.isListedAsDeleted:
                statement.bind(destination.rowForSave, at: index)
            default: statement.bindNull(index)
            }
            index += 1
        }
        return index
    }

    /// Writes join-table changes and the positions of ordered relationships.
    func writeLinks(updated: [ManagedObject], _ connection: Connection) throws(DatabaseError) {
        for change in linkChanges {
            guard
                case .joinTable(let table, let source, let target, _) = type(of: change.source).entityDescription
                    .relationships[change.relationship].storage,
                change.source.context === self, change.destination.context === self,
                !change.source.isListedAsDeleted, !change.destination.isListedAsDeleted
            else { continue }
            let quoted = (
                EntityDescription.quoted(table), EntityDescription.quoted(source), EntityDescription.quoted(target)
            )
            let sql =
                change.added
                ? connection.dialect.insertIgnoringDuplicate(into: quoted.0, columns: [quoted.1, quoted.2])
                : "DELETE FROM \(quoted.0) WHERE \(quoted.1) = ? AND \(quoted.2) = ?"
            let statement = try connection.cachedStatement(sql)
            statement.bind(change.source.rowForSave, at: 1)
            statement.bind(change.destination.rowForSave, at: 2)
            try statement.runQueued()
        }
        for object in insertedObjects where object.relationshipMask != 0 { try writePositions(object, connection) }
        for object in updated where object.relationshipMask != 0 { try writePositions(object, connection) }
    }

    private func writePositions(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) {
        let entity = type(of: object).entityDescription
        for (index, relationship) in entity.relationships.enumerated()
        where relationship.isOrdered && object.relationshipMask & EntityDescription.bit(index) != 0 {
            guard case .toMany(let list) = object.links[index],
                let destination = store.entity(relationship.destinationEntityID)
            else { continue }
            let sql: String
            switch relationship.storage {
            case .inverseForeignKey(_, let position?):
                sql =
                    "UPDATE \(EntityDescription.quoted(destination.table)) SET \(EntityDescription.quoted(position)) = ? WHERE \"_pk\" = ?"
            case .joinTable(let table, let source, let target, let position?):
                sql =
                    "UPDATE \(EntityDescription.quoted(table)) SET \(EntityDescription.quoted(position)) = ? WHERE \(EntityDescription.quoted(target)) = ? AND \(EntityDescription.quoted(source)) = ?"
            default:
                continue
            }
            let statement = try connection.cachedStatement(sql)
            for (position, member) in list.objects.enumerated()
            where !member.isListedAsDeleted && member.context === self {
                statement.bind(Int64(position), at: 1)
                statement.bind(member.rowForSave, at: 2)
                if case .joinTable = relationship.storage { statement.bind(object.rowForSave, at: 3) }
                try statement.runQueued()
                statement.reset()
            }
        }
    }
}

extension ManagedObject {
    /// Whether an owning to-one key changed (an UPDATE must write it).
    var hasForeignKeyChange: Bool {
        relationshipMask != 0 && relationshipMask & type(of: self).entityDescription.foreignKeyMask != 0
    }
}
