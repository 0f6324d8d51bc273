import Foundation

/// What one save to the store changed: the identifiers of the objects it inserted, updated and
/// deleted (each carries its entity's number: `store.entity(id.entityID)`). For a server that
/// pushes updates to its clients, or anything that must follow the store.
///
/// A save is listed completely unless it changed more than 10,000 objects or was made by another
/// process on the same SQLite file (which the store notices, but whose objects it does not
/// learn): then `isComplete` is false and anything may have changed.
public struct StoreChange: Sendable, Hashable {
    public var inserted: [ObjectID]
    public var updated: [ObjectID]
    public var deleted: [ObjectID]
    /// False when the save's objects are not listed: treat every object as possibly changed.
    public var isComplete: Bool
    /// Whether a context of this store saved; false for another store (or process) on the same
    /// database.
    public var isLocal: Bool

    init(_ changes: StoreChanges) {
        inserted = changes.inserted
        updated = changes.updated
        deleted = changes.deleted
        isComplete = !changes.isLarge
        isLocal = changes.isLocal
    }
}

/// A running observation; `cancel()` ends it, as does dropping the handle.
public final class ObservationHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var onCancel: (() -> Void)?

    init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }

    /// Ends the observation: nothing more is delivered once this returns (on the observation's
    /// own thread or queue; a delivery already running elsewhere finishes).
    public func cancel() {
        lock.lock()
        let body = onCancel
        onCancel = nil
        lock.unlock()
        body?()
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return onCancel == nil
    }

    deinit { cancel() }
}

extension PersistentStore {
    /// Calls `body` after every save to the store from now on, on the thread that saved (for
    /// another process's saves, a thread of the store's): keep it short, or hand the change on.
    ///
    /// ```swift
    /// let handle = store.observeChanges { change in
    ///     for id in change.updated { push(id.stringValue) }
    /// }
    /// ```
    public func observeChanges(_ body: @escaping @Sendable (StoreChange) -> Void) -> ObservationHandle {
        subscribe { body(StoreChange($0)) }
    }

    /// Every save to the store from now on, as a stream (buffered: a slow reader misses none).
    ///
    /// ```swift
    /// for await change in store.changes { … }
    /// ```
    public var changes: AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self)
        let handle = observeChanges { continuation.yield($0) }
        continuation.onTermination = { _ in handle.cancel() }
        return stream
    }

    /// Tells `body` of each save from now on, and watches the file for other processes' saves
    /// while anyone subscribes.
    func subscribe(_ body: @escaping @Sendable (StoreChanges) -> Void) -> ObservationHandle {
        let number = changeLog.subscribe(body)
        externalChanges?.start()
        return ObservationHandle { [weak self] in self?.changeLog.unsubscribe(number) }
    }

    /// Runs `body` with a new context on one of the store's threads (`StoreExecutor`: a bounded
    /// set, never a thread per call, never one of Swift's cooperative pool) and returns its
    /// result; the context is gone afterwards (save inside `body` what should last). Objects do
    /// not cross back: return values, or `ObjectID`s to look up with `existingObject(with:)`.
    ///
    /// ```swift
    /// let id = try await store.perform { context in
    ///     let user = User(in: context); user.name = "Ada"; try context.save()
    ///     return user.objectID
    /// }
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before `body` starts (then it
    ///   does not run); else what `body` throws.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        try await executor.run { try body(self.newContext()) }
    }

    /// Runs `body` with a new context on the calling thread and returns its result (the
    /// blocking form of `perform`, for code that is not `async`).
    public func performAndWait<T>(_ body: (ObjectContext) throws -> T) rethrows -> T {
        try body(newContext())
    }
}
