import CSQLite
import Foundation

/// What a SQLite store Core Data wrote holds, read from its bookkeeping tables (`Z_METADATA`,
/// `Z_PRIMARYKEY`) and its entity tables, without a model: the store's identity, its entities
/// with their row counts and key high-water marks, and the anomalies a reader must not make worse.
/// The layout is Apple's (`../shared/corpus/STORE-LAYOUT.md`): one table `Z` + the upper-cased
/// root entity name per hierarchy, `Z_PK`, `Z_ENT` (the concrete entity's number), `Z_OPT`.
///
/// The store is read from a copy of its file set (`.sqlite` with its `-wal` and `-shm`): a store
/// may hold all its rows in the WAL, and opening the original would checkpoint it, changing a file
/// an app owns.
public struct CoreDataStoreReport: Sendable, Hashable {
    public struct Entity: Sendable, Hashable {
        /// `Z_ENT`.
        public var number: Int64
        /// `Z_NAME` (not authoritative: a renamed entity may keep its old name).
        public var name: String
        /// `Z_SUPER`: the parent's number, 0 for a root.
        public var parent: Int64
        /// The root's table (`Z` + upper-cased root name).
        public var table: String
        /// Rows of the table whose `Z_ENT` is this entity's number.
        public var rows: Int
        /// `Z_MAX` (the root's, shared by its hierarchy; 0 in sub-entities' rows).
        public var maxKey: Int64
    }

    /// Something in the file that breaks the layout's invariants, with where it is.
    public struct Anomaly: Sendable, Hashable, CustomStringConvertible {
        public var table: String
        public var row: Int64?
        public var message: String

        public var description: String { "\(table)\(row.map { " row \($0)" } ?? ""): \(message)" }
    }

    public var storeUUID: String?
    public var frameworkVersion: Int?
    /// `NSStoreModelVersionIdentifiers`: hints only (many stores say "1" whatever their version).
    public var versionIdentifiers: [String]
    /// Entity name → `NSStoreModelVersionHashes` (32 bytes each).
    public var versionHashes: [String: Data]
    public var hasModelCache: Bool
    /// The model that created the store, from `Z_MODELCACHE` (nil without one, or when it could
    /// not be read: then an anomaly says why).
    public var compiledModel: CoreDataCompiledModel?
    /// The `CREATE TABLE` statement of every table, as the store records it (sorted).
    public var tableStatements: [String]
    /// `wal` or `delete`, from the file's header.
    public var journalMode: String
    /// Whether a `-wal` file came with the store.
    public var hasWAL: Bool
    public var entities: [Entity]
    public var anomalies: [Anomaly]
}

public enum CoreDataStoreInspection {
    /// Reads the store at `path` (see `CoreDataStoreReport`).
    /// - Throws: `.foreignDatabase` when the file is no Core Data store (no `Z_PRIMARYKEY` or
    ///   `Z_METADATA`), `.sqlite` when it cannot be read.
    public static func inspect(path: String) throws -> CoreDataStoreReport {
        var report = try CopiedStore(of: path).report
        report.anomalies += externalData(of: path)
        return report
    }

    /// A store read from a private copy of its file set: the copy (alive as long as this is), a
    /// connection to it, what its bookkeeping tables say and the names of its tables.
    struct CopiedStore {
        let copy: PrivateCopy
        let connection: Connection
        let report: CoreDataStoreReport
        let tables: [String]

        init(of path: String) throws(DatabaseError) {
            copy = try PrivateCopy(of: path)
            let journal = try journalMode(of: copy.path, shownAs: path)
            connection = try Connection(path: copy.path, wal: false)
            report = try read(connection, path: path, journalMode: journal, hasWAL: copy.hasWAL)
            tables = try strings(connection, "SELECT name FROM main.sqlite_master WHERE type = 'table'")
        }
    }

    /// What differs between the store at `path` and each of `models`, as an open with that model
    /// would list it (`CoreDataStatus.mismatches`): how a tool finds which version of a bundle
    /// wrote a store. The store is copied once, not once per model, and left as it was.
    /// - Parameters:
    ///   - path: The store (with its `-wal` beside it where it has one).
    ///   - models: The versions to bind to it.
    /// - Returns: Per model, in order, its differences (none for the version that wrote it).
    /// - Throws: `.foreignDatabase` when the file is no Core Data store, `.sqlite` when it
    ///   cannot be read.
    public static func differences(ofStoreAt path: String, models: [PersistentStore.Model]) throws -> [[String]] {
        try DatabaseError.rethrown {
            let store = try CopiedStore(of: path)
            return try models.map { model throws(DatabaseError) in
                try PersistentStore.bind(model, store.connection, report: store.report, tables: store.tables).mismatches
            }
        }
    }

    /// A private copy of a store's file set, removed with the last reference to it: the store
    /// file and its `-wal` (which may hold every row), not its `-shm` (SQLite builds the index
    /// again from the `-wal`). Opening the original — even read-only — could checkpoint its
    /// `-wal`, rewrite its `-shm` or create both; the copy leaves every file of the set as it was.
    final class PrivateCopy: @unchecked Sendable {
        let path: String
        let hasWAL: Bool
        private let directory: URL

        init(of original: String) throws(DatabaseError) {
            let manager = FileManager.default
            guard manager.fileExists(atPath: original) else { throw DatabaseError(.sqlite, "no file at \(original)") }
            directory = manager.temporaryDirectory.appendingPathComponent("modelgen-store-\(UUID().uuidString)")
            path = directory.appendingPathComponent("store.sqlite").path
            hasWAL = manager.fileExists(atPath: original + "-wal")
            do {
                try manager.createDirectory(at: directory, withIntermediateDirectories: true)
                try manager.copyItem(atPath: original, toPath: path)
                if hasWAL { try manager.copyItem(atPath: original + "-wal", toPath: path + "-wal") }
            } catch {
                try? manager.removeItem(at: directory)
                throw DatabaseError(.sqlite, "cannot copy \(original) to read it: \(error)")
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// Core Data keeps large values of attributes that allow external storage in files of
    /// `.<store name>_SUPPORT/_EXTERNAL_DATA` beside the store, and a reference to each in the
    /// row. The runtime reads the column as it is stored (the reference, not the file's bytes):
    /// reported so that nobody takes those bytes for the value.
    static func externalData(of path: String) -> [CoreDataStoreReport.Anomaly] {
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        let folder = url.deletingLastPathComponent().appendingPathComponent(".\(stem)_SUPPORT/_EXTERNAL_DATA")
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !files.isEmpty else {
            return []
        }
        return [
            .init(
                table: "_EXTERNAL_DATA", row: nil,
                message:
                    "\(files.count) value(s) are stored in files of \(folder.path); their attributes read as Core Data's references to them, not as the values"
            )
        ]
    }

    /// The journal mode the file's header records (byte 18: 1 legacy, 2 WAL).
    static func journalMode(of path: String, shownAs name: String) throws(DatabaseError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DatabaseError(.sqlite, "cannot read \(name)")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 20)) ?? Data()
        guard header.count == 20, header.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
            throw DatabaseError(.foreignDatabase, "\(name) is not a SQLite database")
        }
        return header[18] == 2 ? "wal" : "delete"
    }

    static func read(_ connection: Connection, path: String, journalMode: String, hasWAL: Bool)
        throws(DatabaseError)
        -> CoreDataStoreReport
    {
        let tables = Set(try strings(connection, "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard tables.contains("Z_PRIMARYKEY"), tables.contains("Z_METADATA") else {
            throw DatabaseError(.foreignDatabase, "\(path) has no Z_PRIMARYKEY and Z_METADATA: not a Core Data store")
        }
        var report = CoreDataStoreReport(
            storeUUID: nil, frameworkVersion: nil, versionIdentifiers: [], versionHashes: [:],
            hasModelCache: tables.contains("Z_MODELCACHE"), compiledModel: nil,
            tableStatements: try strings(
                connection, "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY name"),
            journalMode: journalMode, hasWAL: hasWAL, entities: [], anomalies: [])
        try readMetadata(connection, into: &report)
        if report.hasModelCache {
            let statement = try connection.makeStatement("SELECT Z_CONTENT FROM Z_MODELCACHE")
            if try statement.step(), !statement.isNull(0) {
                do {
                    report.compiledModel = try CoreDataCompiledModel.decode(cache: statement.bytes(0))
                } catch {
                    let message = (error as? DatabaseError)?.message ?? "\(error)"
                    report.anomalies.append(.init(table: "Z_MODELCACHE", row: nil, message: message))
                }
            }
        }
        try readEntities(connection, tables: tables, into: &report)
        return report
    }

    private static func readMetadata(_ connection: Connection, into report: inout CoreDataStoreReport)
        throws(DatabaseError)
    {
        let statement = try connection.cachedStatement("SELECT Z_UUID, Z_PLIST FROM Z_METADATA")
        guard try statement.step() else {
            report.anomalies.append(.init(table: "Z_METADATA", row: nil, message: "no row"))
            return
        }
        report.storeUUID = statement.isNull(0) ? nil : statement.string(0)
        guard !statement.isNull(1),
            let plist = try? PropertyListSerialization.propertyList(
                from: Data(statement.bytes(1)), options: [], format: nil) as? [String: Any]
        else {
            report.anomalies.append(.init(table: "Z_METADATA", row: nil, message: "Z_PLIST is no property list"))
            return
        }
        report.frameworkVersion = (plist["NSPersistenceFrameworkVersion"] as? NSNumber)?.intValue
        report.versionIdentifiers = (plist["NSStoreModelVersionIdentifiers"] as? [Any])?.map { "\($0)" } ?? []
        report.versionHashes =
            (plist["NSStoreModelVersionHashes"] as? [String: Any])?.compactMapValues { $0 as? Data }
            ?? [:]
    }

    /// The entities of `Z_PRIMARYKEY`, their rows, and the anomalies of keys and entity numbers.
    private static func readEntities(
        _ connection: Connection, tables: Set<String>, into report: inout CoreDataStoreReport
    ) throws(DatabaseError) {
        let statement = try connection.cachedStatement(
            "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        var rows: [(number: Int64, name: String, parent: Int64, maxKey: Int64)] = []
        while try statement.step() {
            rows.append(
                (
                    statement.int64(0), statement.isNull(1) ? "" : statement.string(1), statement.int64(2),
                    statement.int64(3)
                ))
        }
        let byNumber = Dictionary(rows.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        // Each entity's table: its root's (a cycle of Z_SUPER stops after as many steps as rows).
        var tableOf: [Int64: String] = [:]
        for row in rows {
            var root = row.number
            var steps = 0
            while let parent = byNumber[root]?.parent, parent != 0, steps < rows.count {
                root = parent
                steps += 1
            }
            tableOf[row.number] = "Z" + (byNumber[root]?.name ?? "").uppercased()
        }
        var counts: [String: [Int64: Int]] = [:]
        for table in Set(tableOf.values).sorted() {
            guard tables.contains(table) else {
                report.anomalies.append(.init(table: table, row: nil, message: "the table of an entity is missing"))
                continue
            }
            let quoted = EntityDescription.quoted(table)
            let count = try connection.cachedStatement("SELECT Z_ENT, count(*) FROM \(quoted) GROUP BY Z_ENT")
            while try count.step() { counts[table, default: [:]][count.int64(0)] = Int(count.int64(1)) }
            let family = Set(rows.map(\.number).filter { tableOf[$0] == table })
            let foreign = try connection.cachedStatement("SELECT Z_PK, Z_ENT FROM \(quoted) ORDER BY Z_PK")
            var largest: Int64 = 0
            while try foreign.step() {
                largest = max(largest, foreign.int64(0))
                guard !family.contains(foreign.int64(1)) else { continue }
                let number = foreign.int64(1)
                let owner =
                    byNumber[number].map { "entity \(number) (\($0.name))" } ?? "entity \(number), which is none"
                report.anomalies.append(
                    .init(
                        table: table, row: foreign.int64(0),
                        message: "Z_ENT is \(owner), not an entity whose rows live in this table"))
            }
            if let rootNumber = family.first(where: { byNumber[$0]?.parent == 0 }),
                let maxKey = byNumber[rootNumber]?.maxKey,
                maxKey < largest
            {
                report.anomalies.append(
                    .init(
                        table: table, row: nil,
                        message:
                            "Z_PRIMARYKEY.Z_MAX is \(maxKey), below the largest Z_PK \(largest): new rows must be numbered above both"
                    ))
            }
        }
        report.entities = rows.map { row in
            let table = tableOf[row.number] ?? ""
            return .init(
                number: row.number, name: row.name, parent: row.parent, table: table,
                rows: counts[table]?[row.number] ?? 0, maxKey: row.maxKey)
        }
    }

    static func strings(_ connection: Connection, _ sql: String) throws(DatabaseError) -> [String] {
        let statement = try connection.cachedStatement(sql)
        var values: [String] = []
        while try statement.step() { values.append(statement.string(0)) }
        return values
    }
}
