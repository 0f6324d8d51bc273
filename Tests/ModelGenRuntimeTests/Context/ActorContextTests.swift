import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// Contexts bound to an actor (`newContext(isolatedTo:)`): another context's save is merged into
/// them promptly, on their actor, with no call of the program's, and their observers are told
/// there — for an actor of the program's and for the main actor.
@Suite struct ActorContextTests {
    /// An actor that keeps a context and one object of it, as a model layer of an app would.
    actor Viewer {
        private var context: ObjectContext?
        private var shown: User?
        private var handle: ObservationHandle?
        private(set) var observedChanges = 0
        private(set) var observedOffActor = 0

        func open(_ store: PersistentStore, user id: UUID) throws {
            let context = store.newContext(isolatedTo: self)
            self.context = context
            shown = try User.first(in: context, where: \User.id == id)
            handle = context.observeObjects { [unowned self] _ in
                // Called where the merge runs: on this actor.
                self.assertIsolated("observers are told on the context's actor")
                self.observedChanges += 1
            }
        }

        var hobby: String? { shown?.hobby }
        var isGone: Bool { shown?.context == nil }
    }

    /// How soon a merge must arrive on the main actor (the main thread).
    static let prompt: TimeInterval = 2
    /// How soon on an actor of the program's. Such an actor runs on Swift's cooperative pool,
    /// whose two threads here other tests of the suite hold for many seconds at a time (synchronous
    /// tests run on them), so this bound is wide: what it tells apart is a merge that arrives by
    /// itself from one that waits for a call of the program's, which never arrives.
    static let promptOnThePool: TimeInterval = 15

    /// Polls `read` until it gives `expected` or `limit` seconds pass; the seconds it took.
    static func seconds<T: Equatable>(
        until expected: T, limit: TimeInterval = 60, _ read: () async -> T
    ) async throws -> TimeInterval? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if await read() == expected { return Date().timeIntervalSince(start) }
            try await _Concurrency.Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    @Test(arguments: Backend.allCases) func anActorsContextShowsAnotherContextsSaveOnTheActor(_ backend: Backend)
        async throws
    {
        try await TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store in
            let writer = store.newContext()
            let user = ContextMergingTests.addUser("Ada", in: writer)
            try await writer.save()
            let viewer = Viewer()
            try await viewer.open(store, user: user.id)
            #expect(await viewer.hobby == "chess")

            user.hobby = "go"
            try await writer.save()
            let took = try await Self.seconds(until: "go") { await viewer.hobby }
            #expect(took != nil, "never merged")
            #expect((took ?? 99) < Self.promptOnThePool, "merged after \(took ?? -1) s")
            #expect(await viewer.observedChanges >= 1, "observers told on the actor")

            writer.delete(user)
            try await writer.save()
            #expect(try await Self.seconds(until: true) { await viewer.isGone } != nil, "a deleted object leaves")
        }
    }

    @MainActor @Test(arguments: Backend.allCases) func theMainActorsContextShowsABackgroundSave(_ backend: Backend)
        async throws
    {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(HelloCoreDataModel.model)
        let setup = store.newContext()
        let id = ContextMergingTests.addUser("Ada", in: setup).id
        try await setup.save()
        let view = store.newContext(isolatedTo: MainActor.shared)
        let shown = try #require(try User.first(in: view, where: \User.id == id))
        var toldOnMain = 0
        let handle = view.observeObjects { _ in
            MainActor.assertIsolated("observers are told on the main actor")
            toldOnMain += 1
        }
        defer { withExtendedLifetime(handle) {} }

        // Another task saves, off the main actor.
        try await store.perform { background in
            let same = try #require(try User.first(in: background, where: \User.id == id))
            same.hobby = "go"
            try background.save()
        }
        let start = Date()
        while shown.hobby != "go", Date().timeIntervalSince(start) < 10 {
            try await _Concurrency.Task.sleep(for: .milliseconds(5))
        }
        let took = Date().timeIntervalSince(start)
        #expect(shown.hobby == "go", "never merged")
        #expect(took < Self.prompt, "merged after \(took) s")
        #expect(toldOnMain >= 1)
    }

    /// Results are `Sendable` where they hold no objects: values rows and object IDs a task
    /// fetched reach the main actor (this test compiles only so), which finds the objects again
    /// in its own context. Checked against the users inserted.
    @MainActor @Test(arguments: Backend.allCases) func valuesAndIdentifiersFetchedInATaskReachTheMainActor(
        _ backend: Backend
    ) async throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(HelloCoreDataModel.model)
        let setup = store.newContext()
        let hobbies = ["chess", "go", "chess", "bridge", "go", "chess"]
        for (index, hobby) in hobbies.enumerated() {
            ContextMergingTests.addUser("U\(index)", in: setup).hobby = hobby
        }
        try await setup.save()
        let hobby = ValueColumn(\User.hobby)
        let users = Aggregate<User, Int>.count()
        let (rows, ids) = try await _Concurrency.Task.detached {
            let context = store.newContext()
            let rows = try await context.fetchValues(ValuesRequest<User>(groupBy: [hobby], columns: [hobby, users]))
            let ids = try await context.fetchObjectIDs(FetchRequest<User>(predicate: \User.hobby == "go"))
            return (rows, ids)
        }.value
        var counted: [String: Int] = [:]
        for row in rows { counted[row[hobby]] = row[users] }
        #expect(counted == Dictionary(hobbies.map { ($0, 1) }, uniquingKeysWith: +))
        let view = store.newContext(isolatedTo: MainActor.shared)
        let names = try ids.map { try view.existingObject(with: $0, as: User.self).name }
        #expect(names.sorted() == ["U1", "U4"])
    }
}
