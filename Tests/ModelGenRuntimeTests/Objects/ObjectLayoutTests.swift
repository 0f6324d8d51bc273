import Foundation
import GeneratedModels
import Testing

@_spi(Database) @testable import ModelGenRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// An object's bookkeeping is packed (the version split between the object and its side object,
/// the list flags in the context pointer's low bits, the pending `_pk` of an unsaved object kept
/// where a saved one keeps its version): these check that nothing is lost by the packing.
@Suite struct ObjectLayoutTests {
    /// Values beyond 32 bits: a `_version` and `_pk`s a store can reach after long use.
    static let wideVersion: Int64 = 5_000_000_000
    static let wideRow: Int64 = 6_000_000_000

    @Test(arguments: Backend.allCases) func versionsBeyond32BitsLockAndCountOnAsBefore(_ backend: Backend) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, location in
            let setup = store.newContext()
            _ = ContextMergingTests.addUser("Ada", in: setup)
            try setup.save()
            try location.connect().execute("UPDATE \"user\" SET \"_version\" = \(Self.wideVersion)")

            let mine = store.newContext()
            let myCopy = try #require(try User.first(in: mine))
            #expect(myCopy.version == Self.wideVersion)
            let theirs = store.newContext()
            let theirCopy = try #require(try User.first(in: theirs))
            theirCopy.hobby = "go"
            try theirs.save()
            #expect(theirCopy.version == Self.wideVersion + 1)
            #expect(
                try TemporaryStore.rows(location, "SELECT \"_version\" FROM \"user\"") == [["\(Self.wideVersion + 1)"]])

            // Mine read the row before their save: the full 64-bit version is what is compared.
            myCopy.hobby = "poetry"
            let error = try #require(throws: DatabaseError.self) { try mine.save() }
            #expect(error.code == .conflict)
            try mine.refresh(myCopy)
            #expect(myCopy.version == Self.wideVersion + 1 && myCopy.hobby == "go")
            myCopy.hobby = "poetry"
            try mine.save()
            #expect(myCopy.version == Self.wideVersion + 2)
            #expect(
                try TemporaryStore.rows(location, "SELECT \"hobby\", \"_version\" FROM \"user\"") == [
                    ["poetry", "\(Self.wideVersion + 2)"]
                ])
        }
    }

    @Test func rowsBeyond32BitsAreAssignedToNewObjects() throws {
        try TemporaryStore.with(HelloCoreDataModel.model) { store, location in
            try location.connect().execute(
                "INSERT INTO \"user\" (\"_pk\", \"_entity\", \"hobby\", \"id\", \"name\") VALUES (\(Self.wideRow), \(HelloCoreDataModel.model.entities.first { $0.name == "User" }!.entityID), 'go', randomblob(16), 'Bob')"
            )
            let context = store.newContext()
            let first = ContextMergingTests.addUser("Ada", in: context)
            let second = ContextMergingTests.addUser("Grace", in: context)
            try context.save()
            #expect(first.objectID.rowID == Self.wideRow + 1 && second.objectID.rowID == Self.wideRow + 2)
            #expect(first.version == 1 && second.version == 1, "the pending row does not stay behind as a version")
            #expect(
                try TemporaryStore.rows(
                    location, "SELECT \"_pk\", \"name\", \"_version\" FROM \"user\" ORDER BY \"_pk\"")
                    == [
                        ["\(Self.wideRow)", "Bob", "1"], ["\(Self.wideRow + 1)", "Ada", "1"],
                        ["\(Self.wideRow + 2)", "Grace", "1"],
                    ])
            first.hobby = "go"
            try context.save()
            #expect(first.version == 2)
        }
    }

    @Test func theListFlagsAndTheContextShareAWordWithoutDisturbingEachOther() throws {
        try TemporaryStore.with(HelloCoreDataModel.model) { store, _ in
            let context = store.newContext()
            let user = ContextMergingTests.addUser("Ada", in: context)
            try context.save()
            #expect(user.context === context && !user.isListedAsUpdated && !user.isListedAsDeleted)
            user.hobby = "go"
            #expect(user.isListedAsUpdated && !user.isListedAsDeleted && user.context === context)
            context.delete(user)
            #expect(user.isListedAsUpdated && user.isListedAsDeleted && user.context === context)
            context.rollback()
            #expect(!user.isListedAsUpdated && !user.isListedAsDeleted && user.context === context)
            context.delete(user)
            try context.save()
            #expect(user.context == nil && !user.isListedAsDeleted)
        }
    }

    #if canImport(Glibc)
        /// The base class's own fields take 48 bytes after the 16-byte object header: identity,
        /// version, context and flags, changed attributes, the rarely used extras, and the foreign
        /// key a fetched row brings (which spares the extras and a links array — two allocations —
        /// for each object of a table with one foreign key).
        @Test func anObjectsBookkeepingFitsSixWords() throws {
            // glibc's `malloc_usable_size` (declared in malloc.h, which the Glibc module leaves out).
            typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
            let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), "malloc_usable_size"))
            let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
            let object = ManagedObject()
            let usable = usableSize(Unmanaged.passUnretained(object).toOpaque())
            #expect(usable >= 64 && usable <= 64 + 8, "a ManagedObject takes a \(usable)-byte block")
        }
    #endif
}
