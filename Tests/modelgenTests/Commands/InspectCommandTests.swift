import Foundation
import TestSupport
import Testing

/// `modelgen inspect STORE --model BUNDLE` names the model version that wrote each corpus store
/// (STORE-LAYOUT.md §8.2), from the schema and, where the store has one, its model cache — which
/// alone tells `BookmarksModel` from `BookmarksModel 2` (their schemas are equal); and
/// `modelgen sql --layout coredata` prints Core Data's own tables.
@Suite struct InspectCommandTests {
    /// The stores of one model (`modelgen inspect --model` takes one bundle).
    static let versions: [String: (String, String)] = CoreDataCorpusVersions.byStore.compactMapValues {
        $0.count == 1 ? ($0[0].bundle, $0[0].version) : nil
    }

    @Test func theModelVersionOfEveryCorpusStoreIsNamed() throws {
        guard let folder = PackagePaths.sharedFolder("corpus/stores") else { return }
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var named = 0
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "sqlite", let (bundle, version) = Self.versions[url.lastPathComponent] else {
                continue
            }
            let result = try CLIRunner.run(["inspect", url.path, "--model", folder.appendingPathComponent(bundle).path])
            #expect(result.status == 0, "\(url.lastPathComponent): \(result.stderr)")
            let line = result.stdout.split(separator: "\n").last { $0.hasPrefix("model version:") }
            #expect(
                line?.hasPrefix("model version: \(version) (") == true, "\(url.lastPathComponent): \(line ?? "none")")
            named += 1
        }
        #expect(named == 19)
        // One version's schema with another version's model: named as none, with the differences.
        let bookmarks = folder.appendingPathComponent(Self.versions["Bookmarks_V1.sqlite"]!.0)
        let other = try CLIRunner.run([
            "inspect",
            folder.appendingPathComponent(
                "duckduckgo__BrowserServicesKit/Tests/DDGSyncTests/Resources/SyncMetadata_V3.sqlite"
            )
            .path, "--model", bookmarks.path,
        ])
        #expect(other.status == 0)
        #expect(other.stdout.contains("model version: none of \(bookmarks.path) matches the store"))
        #expect(other.stdout.contains("closest: "))
    }

    /// The hand-built stores of every era and form name their version (`Journal`, not `Journal 2`,
    /// which adds a column), as the runtime binds them: inspect and an open cannot disagree.
    @Test(arguments: HandBuiltCoreDataStores.variants)
    func everyHandBuiltStoreNamesItsVersion(_ variant: HandBuiltCoreDataStores.Variant) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Journal.sqlite").path
        try HandBuiltCoreDataStores.make(variant, at: path)
        let result = try CLIRunner.run(["inspect", path, "--model", HandBuiltCoreDataStores.bundle.path])
        #expect(result.status == 0, "\(variant): \(result.stderr)")
        #expect(result.stdout.contains("anomalies: none"), "\(variant): \(result.stdout)")
        #expect(
            result.stdout.contains("model version: Journal (schema; the store has no model cache)"),
            "\(variant): \(result.stdout)")
    }

    @Test func sqlPrintsCoreDataTables() throws {
        guard let folder = PackagePaths.sharedFolder("corpus/stores") else { return }
        let bundle = folder.appendingPathComponent(Self.versions["Bookmarks_V4.sqlite"]!.0).path
        let result = try CLIRunner.run(["sql", bundle, "--layout", "coredata", "--model-version", "BookmarksModel 4"])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "CREATE TABLE Z_1FAVORITES ( Z_1FAVORITEFOLDERS INTEGER, Z_1FAVORITES INTEGER, Z_FOK_1FAVORITES INTEGER, PRIMARY KEY (Z_1FAVORITEFOLDERS, Z_1FAVORITES) );"
            ))
        #expect(
            result.stdout.contains(
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);"
            ))
        let misuse = try CLIRunner.run(["sql", bundle, "--framework-version", "754"])
        #expect(misuse.status == 64)
        #expect(misuse.stderr.contains("--framework-version applies to --layout coredata"))
        let postgres = try CLIRunner.run(["sql", bundle, "--layout", "coredata", "--dialect", "postgres"])
        #expect(postgres.status == 64)
    }
}

/// `modelgen generate A B C --name N`: the merged model of several bundles, as the app whose
/// store holds their entities uses it.
@Suite struct MergedGenerateTests {
    @Test func severalModelsAreGeneratedAsOne() throws {
        guard let folder = PackagePaths.sharedFolder("corpus/stores") else { return }
        let sources = folder.appendingPathComponent("duckduckgo__BrowserServicesKit/Sources")
        let models = [
            folder.appendingPathComponent(
                "duckduckgo__iOS/DuckDuckGo/AppRatingPrompt.xcdatamodeld/AppRatingPrompt.xcdatamodel"),
            sources.appendingPathComponent("BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld"),
            sources.appendingPathComponent("RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld"),
        ].map(\.path)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("merged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try CLIRunner.run(["generate", "--name", "Database", "--output", output.path] + models)
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(files.contains("DatabaseModel.swift"))
        #expect(files.contains("HTTPSExcludedDomain.swift") && files.contains("AppRatingPromptEntity.swift"))
        let unnamed = try CLIRunner.run(["generate", "--output", output.path] + models)
        #expect(unnamed.status == 64)
        #expect(unnamed.stderr.contains("name it with --name"))
        // The same bundle twice: its entities collide.
        let twice = try CLIRunner.run(["generate", "--name", "Twice", "--output", output.path, models[1], models[1]])
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("[merged-entity-twice]"))
    }
}
