import Foundation
import TestSupport
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
            try CoreDataCorpusVersions.copyFileSet(path, into: directory)
        }
    }

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
            let models = (CoreDataCorpusVersions.byStore[name] ?? []).map {
                (folder.appendingPathComponent($0.bundle).standardized.path, $0.version)
            }
            stores.append(Store(key: key, path: path, record: value, models: models))
        }
        return CoreDataCorpus(folder: folder, stores: stores)
    }
}
