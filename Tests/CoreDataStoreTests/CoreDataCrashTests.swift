import CDBookmarks5
import Foundation
import ModelGenRuntime
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A child process saves in a loop into a copy of a Core Data store (`modelgen-stress
/// coredata-write-loop`: each save inserts a bookmark into an ordered list and an ordered
/// many-to-many, updates a counter and deletes an old bookmark) and is killed with SIGKILL at
/// random moments. After every kill the file must open, pass `PRAGMA integrity_check` and every
/// bookkeeping invariant, and hold exactly saves 1…n — each save the child reported done, at most
/// the one it had begun, nothing of any other — with the list positions in Core Data's scheme and
/// `Z_MAX` never going back.
///
/// `MODELGEN_CRASH_KILLS` sets the number of kills (default 100), `MODELGEN_CRASH_SEED` the seed.
@Suite struct CoreDataCrashTests {
    static let executable = BuiltProduct.url(
        "modelgen-stress", environment: "MODELGEN_STRESS_BIN", packageRoot: PackagePaths.root)

    @Test func killedSavesIntoACoreDataStoreAreAllOrNothing() throws {
        guard let (path, directory) = try CoreDataWriteTests.copy("Bookmarks_V5.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ProcessInfo.processInfo.environment
        let kills = environment["MODELGEN_CRASH_KILLS"].flatMap(Int.init) ?? 100
        let seed = environment["MODELGEN_CRASH_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var random = SplitMix(seed: seed)
        let model = CDBookmarks5.BookmarksModelModel.model
        let metadata = try StoreOracle(path: path, model: model).metadata()
        var committed = 0
        var highWater: Int64 = 0
        var midSave = 0
        for kill in 0..<kills {
            let child = try ChildProcess(
                Self.executable.path, ["coredata-write-loop", "--store", path], standardError: .discarded)
            usleep(UInt32(20_000 + random.next() % 60_000))
            child.kill()
            let lines = child.finish().stdout.split(separator: "\n")
            let done = lines.last { $0.hasPrefix("done ") }.flatMap { Int($0.dropFirst(5)) } ?? committed
            let begun = lines.last { $0.hasPrefix("begin ") }.flatMap { Int($0.dropFirst(6)) } ?? committed
            if begun != done { midSave += 1 }
            // The runtime opens the file as the app would next (recovering the WAL), then the
            // oracle reads it.
            _ = try PersistentStore(coreDataStoreAt: path, model: model)
            let oracle = try StoreOracle(path: path, model: model)
            let context = "kill \(kill) (seed \(seed))"
            #expect(try oracle.integrity() == "ok", "\(context)")
            let violations = try oracle.invariantViolations()
            #expect(violations == [], "\(context): \(violations)")
            #expect(try oracle.metadata() == metadata, "\(context)")
            let saves = try Self.saves(oracle)
            #expect(saves >= done && saves <= begun, "\(context): \(saves) saves, done \(done), begun \(begun)")
            try Self.checkSaves(saves, oracle, context)
            let maxKey = try #require(try oracle.integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1"))
            #expect(maxKey >= highWater, "\(context): Z_MAX went back")
            highWater = maxKey
            committed = saves
            if !violations.isEmpty { break }
        }
        print(
            "Core Data crash safety: \(kills) kills (seed \(seed)), \(midSave) between begin and done, \(committed) saves kept"
        )
        #expect(committed > 0)
    }

    /// The saves the file holds: the counter folder's title.
    static func saves(_ oracle: StoreOracle) throws -> Int {
        let title = try oracle.rows("SELECT ZTITLE FROM ZBOOKMARKENTITY WHERE ZUUID = 'crash-counter'")
        guard case .text(let text)? = title.first?.first else { return 0 }
        return Int(text) ?? -1
    }

    /// After save `n`: bookmarks `save-max(1, n-2)` … `save-n` and no other, in the counter's
    /// children and favourites in that order, at positions 2048, 3072, ….
    static func checkSaves(_ saves: Int, _ oracle: StoreOracle, _ context: String) throws {
        let expected: [StoreOracle.Raw] = (max(1, saves - 2)...max(1, saves)).filter { _ in saves > 0 }.map {
            .text("save-\($0)")
        }
        let present = try oracle.rows("SELECT ZUUID FROM ZBOOKMARKENTITY WHERE ZUUID LIKE 'save-%' ORDER BY Z_PK")
        #expect(present.map { $0[0] } == expected, "\(context)")
        guard saves > 0 else { return }
        let children = try oracle.rows(
            "SELECT b.ZUUID, b.Z_FOK_PARENT FROM ZBOOKMARKENTITY AS b JOIN ZBOOKMARKENTITY AS c ON b.ZPARENT = c.Z_PK WHERE c.ZUUID = 'crash-counter' ORDER BY b.Z_FOK_PARENT"
        )
        #expect(children.map { $0[0] } == expected, "\(context): children")
        #expect(
            children.map { $0[1] } == (0..<Int64(children.count)).map { .integer(2048 + 1024 * $0) },
            "\(context): positions")
        let favorites = try oracle.rows(
            "SELECT b.ZUUID FROM Z_1FAVORITES AS j JOIN ZBOOKMARKENTITY AS b ON b.Z_PK = j.Z_1FAVORITES JOIN ZBOOKMARKENTITY AS c ON c.Z_PK = j.Z_1FAVORITEFOLDERS WHERE c.ZUUID = 'crash-counter' ORDER BY j.Z_FOK_1FAVORITES"
        )
        #expect(favorites.map { $0[0] } == expected, "\(context): favorites")
    }
}
