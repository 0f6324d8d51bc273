import Foundation

/// What one save changed, as other contexts on the store learn it.
struct StoreChanges: Sendable {
    var sequence: Int
    /// The context that saved (it needs no merge).
    var origin: ObjectIdentifier
    var inserted: [ObjectID]
    var updated: [ObjectID]
    var deleted: [ObjectID]
    /// Too many changes to list: merging refreshes every object.
    var isLarge = false
}

/// The objects one save inserted, updated and deleted.
typealias SavedChanges = (inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID])

/// The store's recent saves, for contexts to merge (thread-safe). Keeps the last
/// `capacity`; a context further behind refreshes everything instead.
final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [StoreChanges] = []
    private var nextSequence = 1
    private let capacity = 256

    /// The sequence number the next save gets (a new context has seen everything before it).
    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return nextSequence
    }

    /// A save changing more objects than this is recorded without its identifiers: contexts
    /// merging it refresh everything (the log stays small).
    static let largeSave = 10_000

    /// Records a save; `changes` is `nil` for a save larger than `largeSave`.
    func record(origin: ObjectIdentifier, changes: SavedChanges?) {
        lock.lock()
        defer { lock.unlock() }
        entries.append(
            StoreChanges(
                sequence: nextSequence, origin: origin, inserted: changes?.inserted ?? [], updated: changes?.updated ?? [],
                deleted: changes?.deleted ?? [], isLarge: changes == nil))
        nextSequence += 1
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    /// The saves since `sequence` (exclusive of earlier ones), and whether some were dropped.
    func changes(since sequence: Int) -> (changes: [StoreChanges], complete: Bool, next: Int) {
        lock.lock()
        defer { lock.unlock() }
        let complete = entries.first.map { $0.sequence <= sequence } ?? true || sequence >= nextSequence
        return (entries.filter { $0.sequence >= sequence }, complete, nextSequence)
    }
}

extension PersistentStore {
    /// Runs `body` with a new context on a background thread and returns its result; the
    /// context is gone afterwards (save inside `body` what should last).
    ///
    /// ```swift
    /// try await store.perform { context in
    ///     let user = User(in: context); user.name = "Ada"; try context.save()
    /// }
    /// ```
    public func perform<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let context = self.newContext()
                do {
                    continuation.resume(returning: try body(context))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

extension ObjectContext {
    /// Brings this context's objects up to date with what other contexts saved: changed objects
    /// without unsaved changes here are read again, deleted ones leave the context, and
    /// relationships are read again when next used. Objects with unsaved changes keep them (their
    /// save then meets the version conflict, which `mergePolicy` decides).
    public func mergeChangesFromStore() {
        let (changes, complete, next) = store.changeLog.changes(since: seenChanges)
        seenChanges = next
        let foreign = changes.filter { $0.origin != ObjectIdentifier(self) }
        guard !foreign.isEmpty || !complete else { return }
        var refreshAll = !complete
        var deleted: [ObjectID] = []
        var updated: [ObjectID] = []
        for change in foreign {
            deleted += change.deleted
            updated += change.updated
            if change.isLarge { refreshAll = true }
        }
        for id in deleted {
            guard let object = registeredObject(id) else { continue }
            registered[id] = nil
            insertedObjects.removeAll { $0 === object }
            updatedObjects.removeAll { $0 === object }
            deletedObjects.removeAll { $0 === object }
            object.isListedAsUpdated = false
            object.isListedAsDeleted = false
            object.links = []
            object.context = nil
        }
        let clean: (ManagedObject) -> Bool = { $0.changedMask == 0 && $0.relationshipMask == 0 && !$0.isListedAsDeleted }
        if refreshAll {
            var objects: [ManagedObject] = []
            registered.forEach { objects.append($0) }
            for object in objects where clean(object) { refreshIgnoringMissing(object) }
        } else {
            for id in updated {
                if let object = registeredObject(id), clean(object) { refreshIgnoringMissing(object) }
            }
        }
        // To-many relationships may have gained or lost members: read them again when used.
        registered.forEach { object in
            if object.relationshipMask == 0 && !object.links.isEmpty { object.links = [] }
        }
    }

    private func refreshIgnoringMissing(_ object: ManagedObject) {
        do {
            try refresh(object)
        } catch {
            // Gone meanwhile: it leaves the context like a deleted object.
            registered[object.objectID] = nil
            object.links = []
            object.context = nil
        }
    }
}
