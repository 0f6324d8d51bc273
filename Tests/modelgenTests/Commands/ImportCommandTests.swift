import Foundation
import TestSupport
import Testing

/// `modelgen import STORE --model BUNDLE`: every corpus store is adopted into the current
/// version of its bundle, on SQLite and on PostgreSQL, and what the new store holds is compared
/// with the Core Data store read raw (the SQLite C API, names mapped by Core Data's rule alone):
/// every object under its own key and entity (rows of one Core Data entity all of one entity,
/// different ones different), every attribute value the current version keeps under its name,
/// every to-one key, the order of every ordered list, and the pairs of every many-to-many. What
/// the migration drops (with `--allow-data-loss`) is not compared; renamed columns neither.
@Suite struct ImportCommandTests {
    static let stores = InspectCommandTests.versions

    /// What the app's developer decides for steps the planner cannot take alone: CoreDataPlus's
    /// current `SampleModel` adds a required `Person.id` (a UUID), one fresh per person.
    static func decisions(_ bundle: String) -> [String] {
        bundle.hasSuffix("SampleModel.xcdatamodeld") ? ["--default", "Person.id=uuid()"] : []
    }

    /// The corpus stores, each with its bundle.
    static func corpus() -> [(name: String, path: String, bundle: String)]? {
        guard let folder = PackagePaths.sharedFolder("corpus/stores") else { return nil }
        var found: [(String, String, String)] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "sqlite", let (bundle, _) = stores[url.lastPathComponent] else { continue }
            found.append((url.lastPathComponent, url.path, folder.appendingPathComponent(bundle).path))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    @Test func everyCorpusStoreIsAdoptedOnSQLite() throws {
        guard let corpus = Self.corpus() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var totals = AdoptionComparison.Totals()
        var imported = 0
        for store in corpus {
            let target = directory.appendingPathComponent(store.name).path
            let result = try CLIRunner.run(
                [
                    "import", store.path, "--model", store.bundle, "--into", target, "--allow-data-loss",
                ] + Self.decisions(store.bundle))
            guard try Self.importedOrRefusedByTheMigration(result, store.name, target: target) else { continue }
            imported += 1
            let reader = try RawSQLite(path: target)
            var required: Set<String> = []
            for (table, _) in try reader.tables() {
                for row in try reader.rows("SELECT name FROM pragma_table_info('\(table)') WHERE \"notnull\"") {
                    required.insert(table + "." + (row[0] ?? ""))
                }
            }
            let comparison = try AdoptionComparison(
                source: store.path, label: store.name, required: required,
                droppedRelationships: result.stdout.contains("drop-relationship"))
            totals += try comparison.compare(with: reader.tables()) { table, columns in
                try reader.rows(
                    "SELECT \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"\(table)\"")
            }
        }
        print("import (SQLite): \(imported) of \(corpus.count) stores imported, \(totals)")
        #expect(totals.failures == [])
        #expect(corpus.count == 19 && imported == corpus.count)
        #expect(totals.objects > 10_000 && totals.values > 30_000 && totals.links > 1_000)
    }

    @Test func everyCorpusStoreIsAdoptedOnPostgres() throws {
        guard let corpus = Self.corpus(), let cluster = PostgresCluster.shared() else { return }
        var totals = AdoptionComparison.Totals()
        var imported = 0
        for store in corpus {
            let (schema, url) = try cluster.freshSchema("import")
            let result = try CLIRunner.run(
                [
                    "import", store.path, "--model", store.bundle, "--postgres", url, "--allow-data-loss",
                ] + Self.decisions(store.bundle))
            guard try Self.importedOrRefusedByTheMigration(result, store.name, target: nil) else { continue }
            imported += 1
            var tables: [String: [String]] = [:]
            var types: [String: String] = [:]
            var required: Set<String> = []
            for row in try cluster.rows(
                "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = '\(schema)' ORDER BY table_name, ordinal_position"
            ) {
                tables[row[0], default: []].append(row[1])
                types[row[0] + "." + row[1]] = row[2]
                if row[3] == "NO" { required.insert(row[0] + "." + row[1]) }
            }
            let comparison = try AdoptionComparison(
                source: store.path, label: store.name + " (PostgreSQL)", required: required,
                droppedRelationships: result.stdout.contains("drop-relationship"))
            totals += try comparison.compare(with: tables) { table, columns in
                let sql = AdoptionComparison.postgresSelect(table, columns, types: types)
                return try cluster.rows(sql, schema: schema, keepingEmptyRows: true).map { row in
                    row.map(AdoptionComparison.decodePostgres)
                }
            }
        }
        print("import (PostgreSQL): \(imported) of \(corpus.count) stores imported, \(totals)")
        #expect(imported == corpus.count)
        #expect(totals.failures == [])
        #expect(totals.objects > 10_000 && totals.values > 30_000 && totals.links > 1_000)
    }

    /// Whether the import succeeded; else it must have been refused before writing anything
    /// because the bundle's current version has no automatic migration from the store's version
    /// (steps the planner cannot carry: a required column without a default, a type change it
    /// refuses, a move whose data decides).
    static func importedOrRefusedByTheMigration(_ result: CLIRunner.Result, _ name: String, target: String?) throws
        -> Bool
    {
        if result.status == 0 {
            #expect(result.stdout.hasPrefix("imported "), "\(name)")
            return true
        }
        #expect(
            result.status == 1 && result.stderr.contains("cannot be migrated to the current version automatically"),
            "\(name): \(result.stderr)")
        if let target { #expect(!FileManager.default.fileExists(atPath: target), "\(name): a refused import wrote") }
        print("import refused: \(name): \(result.stderr.prefix(160))")
        return false
    }

    /// A store of no version of the bundle is refused with the closest version's differences,
    /// and nothing is written.
    @Test func aStoreOfNoVersionIsRefused() throws {
        guard let corpus = Self.corpus() else { return }
        let sync = try #require(corpus.first { $0.name == "SyncMetadata_V3.sqlite" })
        let bookmarks = try #require(corpus.first { $0.name == "Bookmarks_V1.sqlite" })
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("refused-\(UUID().uuidString)").path
        let result = try CLIRunner.run(["import", sync.path, "--model", bookmarks.bundle, "--into", target])
        #expect(result.status == 1)
        #expect(result.stderr.contains("none of \(bookmarks.bundle) matches the store"), "\(result.stderr)")
        #expect(result.stderr.contains("closest: "))
        #expect(!FileManager.default.fileExists(atPath: target))
        // Lossy steps need permission, and without it nothing is written either.
        let lossy = try CLIRunner.run(["import", bookmarks.path, "--model", bookmarks.bundle, "--into", target])
        #expect(lossy.status == 1 && lossy.stderr.contains("--allow-data-loss"), "\(lossy.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        let usage = try CLIRunner.run(["import", bookmarks.path, "--model", bookmarks.bundle])
        #expect(usage.status == 64)
    }
}
