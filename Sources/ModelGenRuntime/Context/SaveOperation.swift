/// One save of a root context to its store, in three steps: `check` what it would write
/// (validation, Deny rules, uniqueness among the context's own objects), `write` every change in
/// one transaction, and `finish` once it is committed (new identities and versions, the lists
/// emptied, other contexts and observers told). A failure before the commit leaves the store as
/// it was and the context with its unsaved changes.
///
/// The rows themselves are written by the context's writing passes (`ObjectContext+Saving.swift`,
/// `+Keys`, `+Uniqueness`); this type decides their order and what happens around them.
struct SaveOperation {
    private unowned let context: ObjectContext
    private let work: ObjectContext.SaveWork
    /// The updated objects the save writes: saved objects deleted afterwards are only deleted.
    private var updated: [ManagedObject]
    /// What the save changes, as the change log and other stores learn it: set once its rows are
    /// written (`nil` for a save too large to list).
    private var changes: SavedChanges?
    /// Objects whose version conflict the merge policy resolved: read again after the commit.
    private var conflicts: [ManagedObject] = []

    init(_ context: ObjectContext) {
        self.context = context
        work = ObjectContext.SaveWork(
            inserted: context.insertedObjects, updated: context.updatedObjects, deleted: context.deletedObjects)
        updated =
            context.deletedObjects.isEmpty
            ? context.updatedObjects : context.updatedObjects.filter { !$0.isListedAsDeleted }
    }

    /// Checks what the save would write, before any row is.
    func check() throws(DatabaseError) {
        try context.validate(updated: updated)
        if work.checksDeny { try context.checkDeny() }
        if work.checksUniqueness { try context.resolveUniquenessInMemory() }
    }

    /// Writes every change in one transaction, and maps the database's refusals to the errors a
    /// save reports.
    mutating func write() throws {
        context.mergedConflicts = []
        do {
            try context.store.withConnection { connection in
                try connection.transaction { try writeRows(connection) }
            }
        } catch let error as DatabaseError {
            // SQLITE_CONSTRAINT_UNIQUE / unique_violation: a unique index refused a row.
            if error.isUniqueViolation { throw context.uniquenessError(error) }
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
        conflicts = context.mergedConflicts
        context.mergedConflicts = []
    }

    /// The passes of the transaction, in the order rows depend on each other.
    private mutating func writeRows(_ connection: Connection) throws(DatabaseError) {
        if work.checksUniqueness {
            try context.resolveUniquenessAgainstStore(connection)
            // Merging moves objects between the lists.
            updated = context.updatedObjects.filter { !$0.isListedAsDeleted }
        }
        if work.hasRelationships { try context.releaseForeignKeys(updated: updated, connection) }
        // Unique values go (deletes) and move away (updates) before changed and new rows take
        // them; new rows keep the numbers given before the deletes (past every row the table
        // had), so a deleted row's number is not reused in the same save.
        try context.assignRows(connection)
        // A run of one entity at a time (a large delete is one run: no per-object lookup).
        var deletedTables: Set<String> = []
        ObjectContext.forEachRun(of: context.deletedObjects) { entity, _ in deletedTables.insert(entity.table) }
        try context.deleteRows(connection)
        try context.updateRows(updated, connection)
        try context.insertRows(connection, numbered: deletedTables)
        if work.hasRelationships || !context.linkChanges.isEmpty {
            try context.writeLinks(updated: updated, connection)
        }
        changes = savedChanges()
        // Queued writes go with the commit (their errors fail it, and the save).
        if let feed = context.store.changeFeed { try context.notify(feed, changes, connection) }
    }

    /// The objects the save inserted, updated and deleted (new objects by the rows they get);
    /// `nil` for a save larger than `ChangeLog.largeSave`, which is logged without identifiers
    /// (other contexts then refresh everything).
    private func savedChanges() -> SavedChanges? {
        let inserted = context.insertedObjects
        let deleted = context.deletedObjects
        guard inserted.count + updated.count + deleted.count <= ChangeLog.largeSave else { return nil }
        return (
            inserted: inserted.map { ObjectID(entityID: $0.objectID.entityID, rowID: $0.pendingRow) },
            updated: updated.filter { $0.changedMask != 0 || $0.relationshipMask != 0 }.map(\.objectID),
            deleted: deleted.map(\.objectID)
        )
    }

    /// After the commit: the new identities and versions made visible, the lists emptied, other
    /// contexts and the context's observers told.
    func finish() {
        defer { context.store.changeLog.record(origin: ObjectIdentifier(context), changes: changes) }
        let inserted = context.insertedObjects
        let deleted = context.deletedObjects
        for object in inserted {
            object.objectID = ObjectID(entityID: object.objectID.entityID, rowID: object.pendingRow)
            // Replaces the pending row, which an unsaved object keeps in the version's place.
            object.version = 1
            object.changedMask = 0
            object.relationshipMask = 0
        }
        // New rows come in ascending order: into an empty map they go at once.
        context.registered.register(fetched: inserted)
        for object in updated {
            if object.changedMask != 0 || object.hasForeignKeyChange {
                object.version += 1
                object.changedMask = 0
            }
            object.relationshipMask = 0
        }
        context.linkChanges.removeAll()
        context.clearedByDeletion.removeAll()
        for object in context.updatedObjects { object.isListedAsUpdated = false }
        let report =
            context.objectObservers.isEmpty
            ? nil : ObjectsDidChange(reason: .saved, inserted: inserted, updated: updated, deleted: deleted)
        let saved = context.store.hasLifecycleHooks ? inserted + updated + deleted : []
        context.registered.remove(deleted)
        for object in deleted {
            object.isListedAsDeleted = false
            object.context = nil
        }
        context.insertedObjects.removeAll()
        context.updatedObjects.removeAll()
        context.deletedObjects.removeAll()
        // Objects whose version conflict the merge policy resolved hold the merged row.
        for object in conflicts { try? context.refresh(object) }
        for object in saved { object.lifecycle?.didSave() }
        if let report { context.tellObservers(report) }
    }
}

extension ObjectContext {
    /// Tells the other stores on the database what a save or batch changes (queued: delivered at
    /// the commit).
    func notify(_ feed: PostgresChangeFeed, _ changes: SavedChanges?, _ connection: Connection)
        throws(DatabaseError)
    {
        let statement = try connection.cachedStatement("SELECT pg_notify(?, ?)")
        defer { statement.reset() }
        statement.bind(feed.channel, at: 1)
        statement.bind(feed.payload(changes), at: 2)
        try statement.runQueued()
    }
}
