import CDAppRatingPrompt
import CDArtsyFolio14
import CDArtsyFolio15
import CDArtsyFolio20
import CDArtsyFolio23
import CDArtsyPartner5
import CDBookmarks1
import CDBookmarks2
import CDBookmarks3
import CDBookmarks4
import CDBookmarks5
import CDSampleModel
import CDSampleModel2
import CDSampleModel3
import CDSyncMetadata3
import CDXCServer120
import CDXCServer200
import CDXCServer201
import Foundation
import ModelGenRuntime
import TestSupport
import Testing

/// The stores of `../shared/corpus/stores` with the generated code of the model version that
/// wrote each (STORE-LAYOUT.md §8.2; `Scripts/record-coredata-models.sh` generates it).
enum CoreDataCorpusStores {
    struct Store {
        var name: String
        var path: String
        var model: PersistentStore.Model

        /// A copy of the store's file set (`.sqlite`, `-wal`, `-shm`) in `directory`.
        func copy(into directory: URL) throws -> String {
            try CoreDataCorpusVersions.copyFileSet(path, into: directory)
        }
    }

    static let models: [String: PersistentStore.Model] = [
        "SampleModel_V1.sqlite": CDSampleModel.SampleModelModel.model,
        "SampleModel_V2.sqlite": CDSampleModel2.SampleModelModel.model,
        "SampleModel3_V1.sqlite": CDSampleModel3.SampleModel3Model.model,
        "ArtsyPartner_1.3.sqlite": CDArtsyPartner5.ArtsyPartnerModel.model,
        "ArtsyPartner_1.3.5.sqlite": CDArtsyPartner5.ArtsyPartnerModel.model,
        "ArtsyPartner_1.4.sqlite": CDArtsyFolio14.ArtsyPartnerModel.model,
        "ArtsyPartner_1.6.sqlite": CDArtsyFolio15.ArtsyPartnerModel.model,
        "ArtsyPartner_2.0.sqlite": CDArtsyFolio20.ArtsyPartnerModel.model,
        "oss_stubbed_data.sqlite": CDArtsyFolio23.ArtsyPartnerModel.model,
        "Bookmarks_V1.sqlite": CDBookmarks1.BookmarksModelModel.model,
        "Bookmarks_V2.sqlite": CDBookmarks2.BookmarksModelModel.model,
        "Bookmarks_V3.sqlite": CDBookmarks3.BookmarksModelModel.model,
        "Bookmarks_V4.sqlite": CDBookmarks4.BookmarksModelModel.model,
        "Bookmarks_V5.sqlite": CDBookmarks5.BookmarksModelModel.model,
        "SyncMetadata_V3.sqlite": CDSyncMetadata3.SyncMetadataModel.model,
        "XCServerCoreData_1.2.0.sqlite": CDXCServer120.XCServerCoreDataModel.model,
        "XCServerCoreData_1.2.0_empty.sqlite": CDXCServer120.XCServerCoreDataModel.model,
        "XCServerCoreData_2.0.0_empty.sqlite": CDXCServer200.XCServerCoreDataModel.model,
        "XCServerCoreData_2.0.1.sqlite": CDXCServer201.XCServerCoreDataModel.model,
        // The merged model of three bundles (`modelgen generate --name Database A B C`).
        "Database.sqlite": CDAppRatingPrompt.DatabaseModel.model,
    ]

    /// Every `.sqlite` file under the stores folder with its model, and the names of any without
    /// one; nil when `../shared` is missing.
    static func all() -> (stores: [Store], withoutModel: [String])? {
        guard let folder = PackagePaths.sharedFolder("corpus/stores") else { return nil }
        var stores: [Store] = []
        var withoutModel: [String] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "sqlite" else { continue }
            let name = url.lastPathComponent
            if let model = models[name] {
                stores.append(Store(name: name, path: url.path, model: model))
            } else {
                withoutModel.append(name)
            }
        }
        return (stores.sorted { $0.name < $1.name }, withoutModel.sorted())
    }
}
