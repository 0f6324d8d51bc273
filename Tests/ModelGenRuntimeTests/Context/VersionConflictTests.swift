import Foundation
import GeneratedModels
import Testing

@_spi(Database) @testable import ModelGenRuntime

/// Optimistic locking on `_version`: a row changed by another context (or another connection,
/// as another process would) since this context read it is a conflict, and the merge policy
/// decides it.
@Suite struct VersionConflictTests {
    /// A user saved once, read by `mine`; another context then changes its name and saves.
    /// Returns mine's copy, which has unsaved changes to `hobby` and `name` made before the other
    /// save.
    static func conflict(in store: PersistentStore, policy: MergePolicy) throws -> (ObjectContext, User) {
        let setup = store.newContext()
        let user = ContextMergingTests.addUser("Ada", in: setup)
        try setup.save()
        let id = user.id
        let mine = store.newContext()
        mine.mergePolicy = policy
        let myCopy = try #require(try User.first(in: mine, where: \User.id == id))
        let theirs = store.newContext()
        let theirCopy = try #require(try User.first(in: theirs, where: \User.id == id))
        theirCopy.name = "Ada Lovelace"
        theirCopy.hobby = "go"
        try theirs.save()
        myCopy.hobby = "poetry"
        return (mine, myCopy)
    }

    @Test(arguments: Backend.allCases) func theDefaultPolicyFailsTheSaveAndStoresNothing(_ backend: Backend) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, path in
            let (mine, user) = try Self.conflict(in: store, policy: .error)
            let extra = mine.insert(Item.self)
            extra.timestamp = Date()
            let error = try #require(throws: DatabaseError.self) { try mine.save() }
            #expect(error.code == .conflict)
            #expect(error.entity == "User")
            #expect(
                try TemporaryStore.rows(path, "SELECT \"name\", \"hobby\", \"_version\" FROM \"user\"") == [
                    ["Ada Lovelace", "go", "2"]
                ])
            #expect(
                try TemporaryStore.rows(path, "SELECT count(*) FROM \"item\"") == [["0"]],
                "the whole save was rolled back")
            #expect(user.hobby == "poetry" && mine.hasChanges, "the context keeps its changes")
            // Refreshing takes the other save; the save then goes through.
            try mine.refresh(user)
            user.hobby = "poetry"
            try mine.save()
            #expect(
                try TemporaryStore.rows(path, "SELECT \"name\", \"hobby\", \"_version\" FROM \"user\"") == [
                    ["Ada Lovelace", "poetry", "3"]
                ])
        }
    }

    @Test(arguments: Backend.allCases) func objectTrumpWritesTheChangedPropertiesOverTheNewerRow(_ backend: Backend)
        throws
    {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, path in
            let (mine, user) = try Self.conflict(in: store, policy: .objectTrump)
            try mine.save()
            // hobby: mine (changed here); name: theirs (not changed here).
            #expect(
                try TemporaryStore.rows(path, "SELECT \"name\", \"hobby\", \"_version\" FROM \"user\"") == [
                    ["Ada Lovelace", "poetry", "3"]
                ])
            #expect(user.name == "Ada Lovelace" && user.hobby == "poetry", "the object holds the merged row")
            user.name = "Countess"
            try mine.save()
            #expect(
                try TemporaryStore.rows(path, "SELECT \"name\", \"_version\" FROM \"user\"") == [["Countess", "4"]])
        }
    }

    @Test(arguments: Backend.allCases) func storeTrumpKeepsTheRowAndDropsTheObjectsChanges(_ backend: Backend) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, path in
            let (mine, user) = try Self.conflict(in: store, policy: .storeTrump)
            let extra = mine.insert(Item.self)
            extra.timestamp = Date(timeIntervalSinceReferenceDate: 0)
            try mine.save()
            #expect(
                try TemporaryStore.rows(path, "SELECT \"name\", \"hobby\", \"_version\" FROM \"user\"") == [
                    ["Ada Lovelace", "go", "2"]
                ])
            #expect(
                try TemporaryStore.rows(path, "SELECT count(*) FROM \"item\"") == [["1"]],
                "the rest of the save is stored")
            #expect(user.hobby == "go" && !mine.hasChanges)
        }
    }

    @Test(arguments: Backend.allCases) func aRowDeletedElsewhereIsAMissingObject(_ backend: Backend) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, _ in
            let (mine, user) = try Self.conflict(in: store, policy: .objectTrump)
            let other = store.newContext()
            other.delete(try #require(try User.fetch(in: other).first))
            try other.save()
            let error = try #require(throws: DatabaseError.self) { try mine.save() }
            #expect(error.code == .missingObject)
            _ = user
        }
    }

    /// A fetch that stops after its first row must not leave a read transaction open: the
    /// context would go on seeing an old snapshot of the file, and its next save would fail
    /// once another connection (as another process) has written.
    @Test(arguments: Backend.allCases) func anEarlyStoppedFetchDoesNotPinAnOldSnapshot(_ backend: Backend) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, path in
            let context = store.newContext()
            for name in ["Ada", "Grace"] {
                let user = context.insert(User.self)
                user.id = UUID()
                user.name = name
                user.hobby = "chess"
            }
            try context.save()
            let reader = store.newContext()
            _ = try User.first(in: reader, sortedBy: [ObjectSortDescriptor(\User.name)])
            _ = try User.count(in: reader)
            let outside = try path.connect()
            try outside.execute("UPDATE \"user\" SET \"hobby\" = 'go', \"_version\" = \"_version\" + 1")
            outside.close()
            let users = try User.fetch(in: store.newContext(), sortedBy: [ObjectSortDescriptor(\User.name)])
            #expect(users.map(\.hobby) == ["go", "go"], "a new fetch sees the other connection's write")
            let writer = store.newContext()
            writer.insert(Item.self).timestamp = Date()
            try writer.save()
        }
    }
}
