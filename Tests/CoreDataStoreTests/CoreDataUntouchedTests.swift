import CSQLite
import Foundation
import ModelGenRuntime
import Testing

/// A refused open, a read-only open and `inspect` leave every file of a Core Data store's set
/// byte-identical and create none, over every corpus store in each form it can come in: the file
/// set as found, without its `-shm`, and the main file alone.
@Suite struct CoreDataUntouchedTests {
    /// Every file of `directory` (names and bytes), recursively.
    static func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            files[url.path] = isDirectory.boolValue ? Data() : try Data(contentsOf: url)
        }
        return files
    }

    enum Form: String, CaseIterable {
        case asFound = "as found"
        case withoutSHM = "without -shm"
        case mainFileOnly = "main file only"
    }

    /// The store's files in `form`, in a new folder of `parent`.
    static func lay(_ store: CoreDataCorpusStores.Store, _ form: Form, in parent: URL) throws -> (String, URL) {
        let directory = parent.appendingPathComponent("\(store.name)-\(form)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = try store.copy(into: directory)
        if form != .asFound { try? FileManager.default.removeItem(atPath: path + "-shm") }
        if form == .mainFileOnly { try? FileManager.default.removeItem(atPath: path + "-wal") }
        return (path, directory)
    }

    @Test func refusedAndReadOnlyOpensLeaveEveryFileAsItWas() throws {
        guard let (stores, _) = CoreDataCorpusStores.all() else { return }
        let parent = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        var checked = (opens: 0, refusals: 0, rows: 0)
        for store in stores {
            // A model that did not write the store: another store's, whose open is refused.
            let others = stores.filter {
                $0.name != store.name && $0.model.entities.map(\.name) != store.model.entities.map(\.name)
            }
            for form in Form.allCases {
                let (path, directory) = try Self.lay(store, form, in: parent)
                let before = try Self.snapshot(directory)
                #expect(!before.isEmpty)
                do {
                    let opened = try PersistentStore(
                        coreDataStoreAt: path, model: store.model, options: .init(readOnly: true))
                    let context = opened.newContext()
                    for entity in store.model.entities where !entity.isAbstract {
                        checked.rows += try context.fetchAll(entity: entity).count
                    }
                    checked.opens += 1
                }
                _ = try CoreDataStoreInspection.inspect(path: path)
                for other in others.prefix(3) {
                    do {
                        _ = try PersistentStore(coreDataStoreAt: path, model: other.model)
                        Issue.record("\(store.name) (\(form.rawValue)) opened writable with \(other.name)'s model")
                    } catch let error as DatabaseError {
                        #expect(error.code == .migration, "\(store.name): \(error)")
                        checked.refusals += 1
                    }
                }
                let after = try Self.snapshot(directory)
                #expect(after.keys.sorted() == before.keys.sorted(), "\(store.name) (\(form.rawValue)): files")
                for (file, bytes) in before where after[file] != bytes {
                    Issue.record("\(store.name) (\(form.rawValue)): \(file) changed")
                }
            }
        }
        print(
            "untouched: \(stores.count) stores × \(Form.allCases.count) forms, \(checked.opens) read-only opens (\(checked.rows) rows), \(checked.refusals) refused opens"
        )
        #expect(checked.opens == stores.count * Form.allCases.count)
        #expect(checked.refusals == stores.count * Form.allCases.count * 3)
    }

    /// A WAL store whose rows are all in its `-wal`: read-only shows them, and the files stay.
    @Test func aWALOnlyStoreShowsItsRowsReadOnly() throws {
        guard let (stores, _) = CoreDataCorpusStores.all() else { return }
        let parent = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        var walStores = 0
        for store in stores where FileManager.default.fileExists(atPath: store.path + "-wal") {
            let (full, _) = try Self.lay(store, .withoutSHM, in: parent)
            let (bare, _) = try Self.lay(store, .mainFileOnly, in: parent)
            var counts: [String: (Int, Int)] = [:]
            for (path, slot) in [(full, 0), (bare, 1)] {
                let opened = try PersistentStore(
                    coreDataStoreAt: path, model: store.model, options: .init(readOnly: true))
                let context = opened.newContext()
                for entity in store.model.entities {
                    let count = try context.fetchAll(entity: entity).filter { $0.objectID.entityID == entity.entityID }
                        .count
                    if slot == 0 { counts[entity.name] = (count, 0) } else { counts[entity.name]?.1 = count }
                }
            }
            // The -wal holds rows the main file alone does not show (the form is WAL-only).
            let inWAL = counts.values.reduce(0) { $0 + $1.0 }
            let inMain = counts.values.reduce(0) { $0 + $1.1 }
            #expect(inWAL >= inMain, "\(store.name)")
            if inWAL > inMain { walStores += 1 }
            let raw = try Self.rawRowCount(full, store.model)
            #expect(inWAL == raw, "\(store.name): rows read raw")
        }
        #expect(walStores > 0, "no corpus store keeps rows in its -wal")
    }

    /// Rows of the model's tables counted with the SQLite C API on a private copy.
    static func rawRowCount(_ path: String, _ model: PersistentStore.Model) throws -> Int {
        let directory = try CoreDataWriteTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("raw.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        let oracle = try StoreOracle(path: copy, model: model)
        return try model.entities.reduce(0) { $0 + (try oracle.values(of: $1)).count }
    }
}

extension CoreDataUntouchedTests {
    /// Core Data refuses a store whose `Z_METADATA` holds no property list, and so does a writable
    /// open here (`.foreignDatabase`); read-only opens it with the anomaly, and neither writes.
    @Test(arguments: ["UPDATE Z_METADATA SET Z_PLIST = x'00ff13'", "DELETE FROM Z_METADATA"])
    func unreadableMetadataRefusesAWritableOpen(_ damage: String) throws {
        guard let (path, directory) = try CoreDataWriteTests.copy("Bookmarks_V1.sqlite") else { return }
        defer { try? FileManager.default.removeItem(at: directory) }
        var handle: OpaquePointer?
        #expect(sqlite3_open(path, &handle) == SQLITE_OK)
        #expect(sqlite3_exec(handle, damage, nil, nil, nil) == SQLITE_OK)
        sqlite3_close(handle)
        let model = try #require(CoreDataCorpusStores.models["Bookmarks_V1.sqlite"])
        let before = try Self.snapshot(directory)
        #expect {
            _ = try PersistentStore(coreDataStoreAt: path, model: model)
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.code == .foreignDatabase && error.message.contains("Z_METADATA")
        }
        let readOnly = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
        #expect(readOnly.coreData?.report.anomalies.contains { $0.table == "Z_METADATA" } == true)
        let context = readOnly.newContext()
        #expect(try model.entities.reduce(0) { $0 + (try context.fetchAll(entity: $1)).count } > 0)
        #expect(try Self.snapshot(directory) == before)
    }
}
