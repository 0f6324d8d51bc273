import Foundation

/// The model version that wrote each store of `../shared/corpus/stores`, as STORE-LAYOUT.md §8.2
/// names it: by store file name, the model bundles (relative to the stores folder; several for a
/// merged model) and the version of each. The expectation of the tests that identify, lay out
/// and open those stores; the code under test finds versions on its own.
public enum CoreDataCorpusVersions {
    public static let byStore: [String: [(bundle: String, version: String)]] = {
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

    /// Copies a store's file set (`.sqlite` with its `-wal` and `-shm`, where present) into
    /// `directory`, so that nothing opens the corpus's own files for writing; the copy's path.
    public static func copyFileSet(_ path: String, into directory: URL) throws -> String {
        let target = directory.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent).path
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.removeItem(atPath: target + suffix)
            try FileManager.default.copyItem(atPath: path + suffix, toPath: target + suffix)
        }
        return target
    }
}
