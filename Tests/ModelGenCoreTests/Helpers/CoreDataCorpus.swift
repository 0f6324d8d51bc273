import Foundation
import Testing

/// The Core Data stores of `../shared/corpus/stores`, each with the model version that wrote it as
/// STORE-LAYOUT.md §8.2 names it (the expectation; the code under test identifies versions itself).
struct CoreDataCorpus {
    struct Store {
        /// `owner/repo:path`, the key of `METADATA.json`.
        var key: String
        var path: String
        /// The corpus's record of the store (`Z_METADATA`, `Z_PRIMARYKEY`, rows per table).
        var record: [String: Any]
        /// The model bundles that wrote it (several for a merged model) and the version of each.
        var models: [(bundle: String, version: String)]

        var name: String { URL(fileURLWithPath: path).lastPathComponent }
        var frameworkVersion: Int {
            ((record["Z_METADATA"] as? [String: Any])?["plist"] as? [String: Any])?["NSPersistenceFrameworkVersion"]
                as? Int ?? 0
        }

        /// A copy of the store's file set (`.sqlite` with `-wal` and `-shm`) in `directory`, so
        /// that nothing opens the corpus's own files for writing.
        func copy(into directory: URL) throws -> String {
            let target = directory.appendingPathComponent(name).path
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try? FileManager.default.removeItem(atPath: target + suffix)
                try FileManager.default.copyItem(atPath: path + suffix, toPath: target + suffix)
            }
            return target
        }
    }

    /// STORE-LAYOUT.md §8.2's model version per store file name: bundle (relative to the stores
    /// folder) and version.
    static let versions: [String: [(String, String)]] = {
        let cdp = "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"
        let artsy = "artsy__energy/Resources/CoreData/ArtsyPartner.xcdatamodeld"
        let bookmarks = "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld"
        let xcs = "richardpiazza__XCServerCoreData/Resources/XCServerCoreData.xcdatamodeld"
        let bsk = "duckduckgo__BrowserServicesKit/Sources"
        return [
            "SampleModel_V1.sqlite": [(cdp, "SampleModel")],
            "SampleModel_V2.sqlite": [(cdp, "SampleModel2")],
            "SampleModel3_V1.sqlite": [
                ("alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3")
            ],
            "ArtsyPartner_1.3.sqlite": [(artsy, "ArtsyPartner 5")],
            "ArtsyPartner_1.3.5.sqlite": [(artsy, "ArtsyPartner 5")],
            "ArtsyPartner_1.4.sqlite": [(artsy, "ArtsyFolio v1.4")],
            "ArtsyPartner_1.6.sqlite": [(artsy, "ArtsyFolio v1.5")],
            "ArtsyPartner_2.0.sqlite": [(artsy, "ArtsyFolio v2.0")],
            "oss_stubbed_data.sqlite": [(artsy, "ArtsyFolio v2.3")],
            "Bookmarks_V1.sqlite": [(bookmarks, "BookmarksModel")],
            "Bookmarks_V2.sqlite": [(bookmarks, "BookmarksModel 2")],
            "Bookmarks_V3.sqlite": [(bookmarks, "BookmarksModel 3")],
            "Bookmarks_V4.sqlite": [(bookmarks, "BookmarksModel 4")],
            "Bookmarks_V5.sqlite": [(bookmarks, "BookmarksModel 5")],
            "SyncMetadata_V3.sqlite": [(bsk + "/DDGSync/SyncMetadata.xcdatamodeld", "SyncMetadata 3")],
            "Database.sqlite": [
                ("duckduckgo__iOS/DuckDuckGo/AppRatingPrompt.xcdatamodeld", "AppRatingPrompt"),
                (bsk + "/BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld", "HTTPSUpgrade 3"),
                (bsk + "/RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld", "RemoteMessaging"),
            ],
            "XCServerCoreData_1.2.0.sqlite": [(xcs, "XCServerCoreData1.2.0")],
            "XCServerCoreData_1.2.0_empty.sqlite": [(xcs, "XCServerCoreData1.2.0")],
            "XCServerCoreData_2.0.0_empty.sqlite": [(xcs, "XCServerCoreData2.0.0")],
            "XCServerCoreData_2.0.1.sqlite": [(xcs, "XCServerCoreData2.0.1")],
        ]
    }()

    var folder: URL
    var stores: [Store]

    /// The corpus, or nil (with the skip notice `TestPaths` prints) where `../shared` is missing.
    static func load() throws -> CoreDataCorpus? {
        guard let folder = TestPaths.sharedFolder("corpus/stores") else { return nil }
        let data = try Data(contentsOf: folder.appendingPathComponent("METADATA.json"))
        let record = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] ?? [:]
        var stores: [Store] = []
        for (key, value) in record.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
            let path = folder.appendingPathComponent(parts[0].replacingOccurrences(of: "/", with: "__"))
                .appendingPathComponent(parts[1]).path
            let name = URL(fileURLWithPath: path).lastPathComponent
            let models = (versions[name] ?? []).map { (folder.appendingPathComponent($0.0).standardized.path, $0.1) }
            stores.append(Store(key: key, path: path, record: value, models: models))
        }
        return CoreDataCorpus(folder: folder, stores: stores)
    }
}
