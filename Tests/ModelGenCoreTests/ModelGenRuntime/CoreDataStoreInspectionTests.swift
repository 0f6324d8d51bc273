import Foundation
import ModelGenRuntime
import TestSupport
import Testing

/// `CoreDataStoreInspection` on every store of `../shared/corpus/stores`: what it reads equals the
/// corpus's own record of each store (`METADATA.json`: `Z_METADATA`, `Z_PRIMARYKEY`, rows per
/// table, taken with the WAL applied), and the anomalies it reports are those STORE-LAYOUT.md §3
/// names (rows with a foreign `Z_ENT` in artsy 1.3 and 2.0, `Z_MAX` below the largest `Z_PK` in
/// artsy 1.3 and 1.4), in no other store. The store files are left unchanged.
@Suite struct CoreDataStoreInspectionTests {
    @Test func everyCorpusStoreReadsAsItsRecordSays() throws {
        guard let stores = TestPaths.sharedFolder("corpus/stores") else { return }
        let metadata = stores.appendingPathComponent("METADATA.json")
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: metadata)) as? [String: [String: Any]])
        #expect(record.count == 20)
        var anomalous: [String: [CoreDataStoreReport.Anomaly]] = [:]
        for (key, expected) in record.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
            let path = stores.appendingPathComponent(parts[0].replacingOccurrences(of: "/", with: "__"))
                .appendingPathComponent(parts[1]).path
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let report = try CoreDataStoreInspection.inspect(path: path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(key) was changed")
            let meta = try #require(expected["Z_METADATA"] as? [String: Any])
            let plist = try #require(meta["plist"] as? [String: Any])
            #expect(report.storeUUID == meta["Z_UUID"] as? String, "\(key)")
            #expect(report.frameworkVersion == plist["NSPersistenceFrameworkVersion"] as? Int, "\(key)")
            #expect(report.versionIdentifiers == (plist["NSStoreModelVersionIdentifiers"] as? [Any])?.map { "\($0)" })
            let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: String])
            #expect(report.versionHashes.mapValues { $0.base64EncodedString() } == hashes, "\(key)")
            let keys = try #require(expected["Z_PRIMARYKEY"] as? [[Any]])
            let read: [String] = report.entities.map { "\($0.number) \($0.name) \($0.parent) \($0.maxKey)" }
            let recorded: [String] = keys.map { row in row.map { "\($0)" }.joined(separator: " ") }
            #expect(read == recorded, "\(key)")
            // Every row of every entity table is counted under its entity, or reported as foreign.
            let counts = try #require(expected["rowcounts"] as? [String: Int])
            for table in Set(report.entities.map(\.table)) {
                let counted = report.entities.filter { $0.table == table }.reduce(0) { $0 + $1.rows }
                let foreign = report.anomalies.filter { $0.table == table && $0.row != nil }.count
                #expect(counted + foreign == counts[table], "\(key): \(table)")
            }
            if !report.anomalies.isEmpty { anomalous[parts[1]] = report.anomalies }
        }
        let names = Set(anomalous.keys.map { URL(fileURLWithPath: $0).lastPathComponent })
        #expect(
            names == ["ArtsyPartner_1.3.sqlite", "ArtsyPartner_1.4.sqlite", "ArtsyPartner_2.0.sqlite"],
            "\(anomalous)")
        let byStore = Dictionary(
            uniqueKeysWithValues: anomalous.map { (URL(fileURLWithPath: $0.key).lastPathComponent, $0.value) })
        for store in ["ArtsyPartner_1.3.sqlite", "ArtsyPartner_2.0.sqlite"] {
            #expect(byStore[store]?.contains { $0.table == "ZARTWORK" && $0.row != nil } == true, "\(store)")
        }
        for table in ["ZARTIST", "ZPARTNER"] {
            #expect(
                byStore["ArtsyPartner_1.4.sqlite"]?.contains { $0.table == table && $0.message.contains("Z_MAX is -1") }
                    == true, "\(table)")
        }
        #expect(byStore["ArtsyPartner_1.3.sqlite"]?.contains { $0.message.contains("Z_MAX is 0") } == true)
    }

    @Test func aFileThatIsNoCoreDataStoreIsRefused() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("plain.sqlite").path
        _ = try PersistentStore(
            path: path,
            model: PersistentStore.Model(
                name: "Empty", sqliteDDL: "CREATE TABLE \"t\" (\"_pk\" INTEGER PRIMARY KEY);", postgresDDL: "",
                schemaHash: "e",
                entities: []))
        #expect {
            _ = try CoreDataStoreInspection.inspect(path: path)
        } throws: { error in
            (error as? DatabaseError)?.code == .foreignDatabase
        }
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: path + ".txt"))
        #expect(throws: DatabaseError.self) { _ = try CoreDataStoreInspection.inspect(path: path + ".txt") }
    }

    /// A model cache that is damaged anywhere (cut short, bits flipped) is reported as an
    /// anomaly or decodes to some model: never a crash or a hang.
    @Test func aDamagedModelCacheIsAnAnomaly() throws {
        guard let corpus = try CoreDataCorpus.load() else { return }
        let store = try #require(corpus.stores.first { $0.name == "Bookmarks_V4.sqlite" })
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try store.copy(into: directory)
        let original = try #require(try CoreDataStoreInspection.inspect(path: path).compiledModel)
        #expect(original.entities.map(\.name) == ["BookmarkEntity"])
        let database = try SQLiteDatabase(path: path)
        let hex = try #require(try database.rows("SELECT hex(Z_CONTENT) FROM Z_MODELCACHE").first?[0] ?? nil)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        var random = SplitMix(seed: 27)
        var reported = 0
        for trial in 0..<60 {
            var damaged = bytes
            if trial < 30 {
                damaged = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            } else {
                for _ in 0..<3 { damaged[Int(random.next() % UInt64(bytes.count))] ^= UInt8(1 << (random.next() % 8)) }
            }
            let literal = damaged.map { String(format: "%02X", $0) }.joined()
            try database.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = X'\(literal)'")
            let report = try CoreDataStoreInspection.inspect(path: path)
            if report.compiledModel == nil {
                #expect(report.anomalies.contains { $0.table == "Z_MODELCACHE" }, "trial \(trial)")
                reported += 1
            }
        }
        #expect(reported >= 30)
    }
}
