import CDXCServer201
import Foundation
import ModelGenRuntime
import Testing

/// Queries on a store Core Data wrote (XCServer 2.0.1: 9,527 commit changes, 329 commits):
/// typed and format-string predicates, through a to-one and over a to-many, sorting, windows and
/// counts, each compared with the same question asked of the file in SQL by the test.
@Suite struct CoreDataQueryTests {
    @Test func predicatesSortingWindowsAndCounts() throws {
        guard let (path, directory) = try CoreDataWriteTests.copy("XCServerCoreData_2.0.1.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = CDXCServer201.XCServerCoreDataModel.model
        let oracle = try StoreOracle(path: path, model: model)
        let context = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
            .newContext()
        func texts(_ sql: String) throws -> [String] {
            try oracle.rows(sql).map { if case .text(let text) = $0[0] { text } else { "NULL" } }
        }

        // Typed predicate and sort.
        let added = try context.fetch(
            FetchRequest<CommitChange>(
                predicate: \CommitChange.status == 1, sortDescriptors: [ObjectSortDescriptor(\CommitChange.filePath)]))
        let expectedAdded = try texts("SELECT ZFILEPATH FROM ZCOMMITCHANGE WHERE ZSTATUS = 1 ORDER BY ZFILEPATH, Z_PK")
        #expect(!expectedAdded.isEmpty)
        #expect(added.map { $0.filePath ?? "NULL" } == expectedAdded)
        #expect(
            try context.count(FetchRequest<CommitChange>(predicate: \CommitChange.status == 1)) == expectedAdded.count)

        // A format string through a to-one.
        let hash = try #require(try texts("SELECT ZCOMMITHASH FROM ZCOMMIT ORDER BY Z_PK LIMIT 1 OFFSET 7").first)
        let changes = try context.fetch(
            FetchRequest(predicate: try ObjectPredicate<CommitChange>(format: "commit.commitHash == %@", hash)))
        let expectedChanges = try oracle.rows(
            "SELECT c.Z_PK FROM ZCOMMITCHANGE AS c JOIN ZCOMMIT AS m ON m.Z_PK = c.ZCOMMIT WHERE m.ZCOMMITHASH = ? ORDER BY c.Z_PK"
                .replacingOccurrences(of: "?", with: "'\(hash)'"))
        #expect(changes.map { StoreOracle.Raw.integer($0.objectID.rowID) } == expectedChanges.map { $0[0] })

        // Over a to-many: commits with more than three changes, by hash, a window of them.
        let busy = try ObjectPredicate<Commit>(format: "commitChanges.@count > 3")
        let window = try context.fetch(
            FetchRequest(
                predicate: busy, sortDescriptors: [ObjectSortDescriptor(\Commit.commitHash)], fetchLimit: 10,
                fetchOffset: 5))
        let expectedBusy = try texts(
            "SELECT m.ZCOMMITHASH FROM ZCOMMIT AS m WHERE (SELECT count(*) FROM ZCOMMITCHANGE AS c WHERE c.ZCOMMIT = m.Z_PK) > 3 ORDER BY m.ZCOMMITHASH, m.Z_PK"
        )
        #expect(expectedBusy.count > 15)
        #expect(window.map(\.commitHash) == Array(expectedBusy[5..<15]))
        #expect(try context.count(FetchRequest(predicate: busy)) == expectedBusy.count)

        // BEGINSWITH, case-insensitive.
        let prefixed = try context.count(
            FetchRequest(predicate: try ObjectPredicate<Commit>(format: "commitHash BEGINSWITH[c] %@", "A")))
        #expect(
            prefixed
                == (try oracle.integer("SELECT count(*) FROM ZCOMMIT WHERE lower(substr(ZCOMMITHASH, 1, 1)) = 'a'"))
                .map(Int.init))
    }
}
