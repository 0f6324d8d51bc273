/// The `async` forms of a context's database work: each runs on the store's own threads
/// (`StoreExecutor`), never blocking a thread of Swift's cooperative pool, while the calling task
/// waits; a task cancelled before the work starts gets `CancellationError` and nothing runs.
///
/// A context belongs to one task at a time: these are `nonisolated`, so the compiler refuses a
/// call that would send an actor's context away from it (in Swift 6 mode).
///
/// ```swift
/// let context = store.newContext()
/// let recent = try await context.fetch(FetchRequest<Student>(predicate: \Student.last_name == "Lovelace"))
/// recent.first?.first_name = "Ada"
/// try await context.save()
/// ```
extension ObjectContext {
    /// `fetch(_:)`, on the store's threads.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) async throws -> [T] {
        try await store.executor.run { try self.fetch(request) }
    }

    /// `fetchObjectIDs(_:)`, on the store's threads.
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) async throws -> [ObjectID] {
        try await store.executor.run { try self.fetchObjectIDs(request) }
    }

    /// `count(_:)`, on the store's threads.
    public func count<T: ManagedObject>(_ request: FetchRequest<T>) async throws -> Int {
        try await store.executor.run { try self.count(request) }
    }

    /// `fetchValues(_:)`, on the store's threads.
    public func fetchValues<T: ManagedObject>(_ request: ValuesRequest<T>) async throws -> [ResultRow<T>] {
        try await store.executor.run { try self.fetchValues(request) }
    }

    /// `save()`, on the store's threads. Once its transaction has begun a save runs to its end:
    /// cancellation stops only a save that has not started.
    public func save() async throws {
        try await store.executor.run { try self.save() }
    }
}
