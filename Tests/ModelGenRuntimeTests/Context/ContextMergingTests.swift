import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// SCENARIOS.md §6 on the generated classes of `Models/HelloCoreData`: background contexts, and
/// changes saved in one context merged into another's live objects.
@Suite struct ContextMergingTests {
    static func withStore(_ backend: Backend, _ body: (PersistentStore) async throws -> Void) async throws {
        try await TemporaryStore.with(HelloCoreDataModel.model, on: backend, body)
    }

    static func addUser(_ name: String, in context: ObjectContext) -> User {
        let user = context.insert(User.self)
        user.id = UUID()
        user.name = name
        user.hobby = "chess"
        return user
    }

    @Test(arguments: Backend.allCases) func aBackgroundSaveIsMergedAutomaticallyIntoTheMainContext(_ backend: Backend)
        async throws
    {
        try await Self.withStore(backend) { store in
            let main = store.newContext()
            main.automaticallyMergesChangesFromStore = true
            let ada = Self.addUser("Ada", in: main)
            try await main.save()
            let id = ada.id
            try await store.perform { context in
                let user = try #require(try User.first(in: context, where: \User.id == id))
                user.name = "Ada Lovelace"
                _ = Self.addUser("Grace", in: context)
                try context.save()
            }
            let users = try User.fetch(in: main, sortedBy: [ObjectSortDescriptor(\User.name)])
            #expect(users.map(\.name) == ["Ada Lovelace", "Grace"])
            #expect(users[0] === ada, "the live object was updated, not replaced")
        }
    }

    @Test(arguments: Backend.allCases) func withoutAutomaticMergingObjectsChangeOnRequest(_ backend: Backend)
        async throws
    {
        try await Self.withStore(backend) { store in
            let main = store.newContext()
            let ada = Self.addUser("Ada", in: main)
            let bob = Self.addUser("Bob", in: main)
            try await main.save()
            let (adaID, bobID) = (ada.id, bob.id)
            try await store.perform { context in
                try #require(try User.first(in: context, where: \User.id == adaID)).hobby = "mathematics"
                context.delete(try #require(try User.first(in: context, where: \User.id == bobID)))
                try context.save()
            }
            #expect(ada.hobby == "chess")
            main.mergeChangesFromStore()
            #expect(ada.hobby == "mathematics")
            #expect(bob.context == nil, "a row deleted elsewhere leaves the context")
            #expect(try User.fetch(in: main).map(\.name) == ["Ada"])
        }
    }

    @Test(arguments: Backend.allCases) func unsavedLocalChangesSurviveAMergeAndTheConflictingSaveFails(
        _ backend: Backend
    ) async throws {
        try await Self.withStore(backend) { store in
            let main = store.newContext()
            let ada = Self.addUser("Ada", in: main)
            try await main.save()
            let id = ada.id
            ada.hobby = "local"
            try await store.perform { context in
                try #require(try User.first(in: context, where: \User.id == id)).hobby = "remote"
                try context.save()
            }
            main.mergeChangesFromStore()
            #expect(ada.hobby == "local")
            let error = try #require(throws: DatabaseError.self) { try main.save() }
            #expect(error.code == .conflict)
        }
    }

    @Test func anInMemoryStoreWorksAcrossContexts() async throws {
        let store = try PersistentStore(path: ":memory:", model: HelloCoreDataModel.model)
        let main = store.newContext()
        for day in 0..<10 {
            let item = main.insert(Item.self)
            item.timestamp = Date(timeIntervalSinceReferenceDate: Double(day) * 86_400)
        }
        try await main.save()
        let count = try await store.perform { context in try Item.count(in: context) }
        #expect(count == 10)
    }
}
