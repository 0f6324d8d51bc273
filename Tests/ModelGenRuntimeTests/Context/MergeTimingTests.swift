import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// When a context shows what others saved (ConcurrencyAndContexts.md): a context bound to a
/// queue merges every save promptly on that queue, whoever saved (another context, another store
/// on the same PostgreSQL database, another process on the same SQLite file), with no call of the
/// program's; an unbound context with `automaticallyMergesChangesFromStore` merges at its next
/// fetch, count, values fetch or save, and its objects keep their values between operations.
@Suite struct MergeTimingTests {
    /// Polls `read` on `queue` until it gives `expected` or `limit` seconds pass; the seconds it took.
    static func seconds<T: Equatable & Sendable>(
        until expected: T, on queue: DispatchQueue, limit: TimeInterval = 2, _ read: @escaping () -> T
    ) -> TimeInterval? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            var value: T?
            queue.sync { value = read() }
            if value == expected { return Date().timeIntervalSince(start) }
            usleep(5_000)
        }
        return nil
    }

    @Test(arguments: Backend.allCases) func aQueueBoundContextShowsAnotherContextsSaveOnItsQueue(_ backend: Backend)
        throws
    {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, _ in
            let writer = store.newContext()
            let user = ContextMergingTests.addUser("Ada", in: writer)
            try writer.save()
            let queue = DispatchQueue(label: "view")
            let view = store.newContext(mergingOn: queue)
            var copy: User?
            try queue.sync { copy = try User.first(in: view, where: \User.id == user.id) }
            let shown = try #require(copy)
            nonisolated(unsafe) var changes = 0
            var handle: ObservationHandle?
            queue.sync { handle = view.observeObjects { _ in changes += 1 } }
            defer { withExtendedLifetime(handle) {} }

            user.hobby = "go"
            try writer.save()
            let took = Self.seconds(until: "go", on: queue) { shown.hobby }
            #expect(took != nil, "never merged")
            #expect((took ?? 9) < 0.5, "merged after \(took ?? -1) s")
            queue.sync { #expect(changes >= 1, "observers told on the queue") }

            writer.delete(user)
            try writer.save()
            #expect(Self.seconds(until: true, on: queue) { shown.context == nil } != nil, "a deleted object leaves")
        }
    }

    @Test func aQueueBoundContextShowsAnotherProcesssSaveToTheFile() throws {
        try TemporaryStore.with(GradeBookModel.model, on: .sqlite) { store, location in
            let setup = store.newContext()
            let quiz = Quiz(in: setup, id: UUID(), name: "before")
            try setup.save()
            let queue = DispatchQueue(label: "view")
            let view = store.newContext(mergingOn: queue)
            var copy: Quiz?
            try queue.sync { copy = try Quiz.find(id: quiz.id, in: view) }
            let shown = try #require(copy)
            let result = try StressTool.start([
                "rename-quiz", "--store", location.argument, "--id", quiz.id.uuidString, "--name", "after",
            ]).finish()
            try #require(result.status == 0, "the other process failed: \(result.stdout)")
            // The file is checked every 0.1 s (OpenOptions.externalChangeInterval).
            let took = Self.seconds(until: "after", on: queue) { shown.name }
            #expect(took != nil && (took ?? 9) < 0.5, "merged after \(took ?? -1) s")
        }
    }

    @Test func aQueueBoundContextShowsAnotherStoresSaveOnTheServer() throws {
        try PostgresStoreTests.withSchema(application: "bound") { _, _, connectionString in
            let first = try PersistentStore(postgres: connectionString, model: HelloCoreDataModel.model)
            let second = try PersistentStore(postgres: connectionString, model: HelloCoreDataModel.model)
            let writer = first.newContext()
            let user = ContextMergingTests.addUser("Ada", in: writer)
            try writer.save()
            let queue = DispatchQueue(label: "view")
            let view = second.newContext(mergingOn: queue)
            var copy: User?
            try queue.sync { copy = try User.first(in: view, where: \User.id == user.id) }
            let shown = try #require(copy)
            user.hobby = "go"
            try writer.save()
            let took = Self.seconds(until: "go", on: queue) { shown.hobby }
            #expect(took != nil && (took ?? 9) < 0.5, "merged after \(took ?? -1) s")
        }
    }

    /// The main queue is the main actor's: a context for UI code merges there.
    @Test func aMainQueueContextMergesOnTheMainActor() async throws {
        try await TemporaryStore.with(HelloCoreDataModel.model, on: .sqlite) { store in
            let writer = store.newContext()
            let user = ContextMergingTests.addUser("Ada", in: writer)
            try await writer.save()
            let id = user.id
            let view = store.newContext(mergingOn: .main)
            nonisolated(unsafe) let shared = view
            nonisolated(unsafe) var copy: User?
            try await MainActor.run { copy = try User.first(in: shared, where: \User.id == id) }
            user.hobby = "go"
            try await writer.save()
            var merged = false
            for _ in 0..<200 where !merged {
                try await _Concurrency.Task.sleep(nanoseconds: 5_000_000)
                // No operation of the context here: only the merge on the main queue changes it.
                merged = await MainActor.run { copy?.hobby == "go" }
            }
            #expect(merged)
        }
    }

    /// The unbound context: its objects keep their values until its next operation, which merges.
    @Test(arguments: Backend.allCases) func anUnboundContextMergesAtItsNextOperation(_ backend: Backend) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, _ in
            let writer = store.newContext()
            let user = ContextMergingTests.addUser("Ada", in: writer)
            try writer.save()
            let reader = store.newContext()
            reader.automaticallyMergesChangesFromStore = true
            let copy = try #require(try User.first(in: reader, where: \User.id == user.id))
            user.hobby = "go"
            try writer.save()
            usleep(200_000)
            #expect(copy.hobby == "chess", "no operation of the reader yet: its objects keep their values")
            _ = try User.count(in: reader)
            #expect(copy.hobby == "go", "a count merged")
            user.hobby = "tennis"
            try writer.save()
            try reader.save()
            #expect(copy.hobby == "tennis", "a save (with nothing to save) merged")
        }
    }
}
