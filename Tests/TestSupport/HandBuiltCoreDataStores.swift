import CSQLite
import Foundation

/// Core Data stores written by hand with the SQLite C API, exactly as STORE-LAYOUT.md's rules
/// (and the project's additions in Documentation/Design.md) say Core Data writes them, for the
/// model `Tests/Fixtures/Journal.xcdatamodeld` (version `Journal`): one store per combination of
/// the forms that vary between framework eras and files —
///
/// - which side owns each many-to-many join table (`Z_4TAGS (Z_4RECORDS, Z_7TAGS)` or
///   `Z_7RECORDS (Z_7TAGS, Z_4RECORDS)`; the self-referential `Z_3BLOCKEDBY`/`Z_3BLOCKING`),
///   the relationship declared on the abstract `Record`, so numbered 4 whatever sub-entity holds
///   the row;
/// - the framework era: a current one (a uniqueness constraint as `CREATE UNIQUE INDEX`, the
///   model cache table) or 637 (an inline `UNIQUE (…)` clause, TIMESTAMP and FLOAT columns in one
///   run sorted by name, no model cache);
/// - the journal: rollback, or WAL with every row still in the `-wal` file.
///
/// Every store holds the same objects (`contents`): sibling sub-entities `Note` and `Task` with
/// the same-named `pendingState` in `ZPENDINGSTATE` and `ZPENDINGSTATE1`, to-ones to the
/// `Container` hierarchy with their `Z1_CONTAINER` entity column, an ordered one-to-many with
/// Core Data's `Z_FOK_` positions, and many-to-many links both ways.
public enum HandBuiltCoreDataStores {
    public enum JoinOwner: String, CaseIterable, Sendable { case lowerNumbered, higherNumbered }
    public enum Era: String, CaseIterable, Sendable { case current, framework637 }
    public enum Journal: String, CaseIterable, Sendable { case rollback, walOnly }

    public struct Variant: Sendable, CustomStringConvertible {
        public var owner: JoinOwner
        public var era: Era
        public var journal: Journal
        public var description: String { "\(owner.rawValue), \(era.rawValue), \(journal.rawValue)" }
    }

    public static var variants: [Variant] {
        JoinOwner.allCases.flatMap { owner in
            Era.allCases.flatMap { era in Journal.allCases.map { Variant(owner: owner, era: era, journal: $0) } }
        }
    }

    public static let bundle = PackagePaths.root.appendingPathComponent("Tests/Fixtures/Journal.xcdatamodeld")

    /// What every store holds, as the tests expect to read it back.
    public enum Contents {
        /// Container key → (entity, name, color).
        public static let containers: [Int64: (entity: String, name: String, color: String?)] = [
            1: ("Container", "Inbox", nil), 2: ("Folder", "Work", "red"),
        ]
        /// Record key → (entity, title, pendingState, container, position among its records).
        public static let records: [Int64: (entity: String, title: String, pendingState: Int64, container: Int64)] = [
            1: ("Note", "first note", 7, 2), 2: ("Task", "first task", 9, 2), 3: ("Note", "inbox note", 3, 1),
            4: ("Task", "second task", 12, 2),
        ]
        /// Each container's records in order (by `Z_FOK_CONTAINER`, not by key).
        public static let ordered: [Int64: [Int64]] = [1: [3], 2: [4, 1, 2]]
        /// Task key → (due, amount).
        public static let tasks: [Int64: (due: Double, amount: Double)] = [
            2: (700_000_000.5, 2.25), 4: (700_086_400, 0.5),
        ]
        public static let tags: [Int64: String] = [1: "urgent", 2: "later"]
        /// (record, tag) links.
        public static let recordTags: [(Int64, Int64)] = [(1, 1), (2, 1), (2, 2), (4, 2)]
        public static let people: [Int64: String] = [1: "ann", 2: "bob", 3: "cat"]
        /// (blocker, blocked): the blocker's `blocking` holds the blocked.
        public static let blocking: [(Int64, Int64)] = [(1, 2), (1, 3), (2, 3)]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes the store of `variant` at `path` (and its `-wal` for `.walOnly`).
    public static func make(_ variant: Variant, at path: String) throws {
        let building = variant.journal == .walOnly ? path + ".building" : path
        var handle: OpaquePointer?
        guard sqlite3_open(building, &handle) == SQLITE_OK else { throw Failure(description: "cannot open \(path)") }
        defer { sqlite3_close(handle) }
        func run(_ sql: String) throws {
            var message: UnsafeMutablePointer<CChar>?
            guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
                let text = message.map { String(cString: $0) } ?? "?"
                sqlite3_free(message)
                throw Failure(description: "\(text): \(sql)")
            }
        }
        try run(schema(variant).joined(separator: ";\n") + ";")
        try metadata(variant, handle)
        if variant.journal == .walOnly { try run("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0") }
        try run("BEGIN; " + rows(variant).joined(separator: "; ") + "; COMMIT")
        guard variant.journal == .walOnly else { return }
        // Copied while the writer is open: the rows are in the -wal, none in the main file.
        try FileManager.default.copyItem(atPath: building, toPath: path)
        try FileManager.default.copyItem(atPath: building + "-wal", toPath: path + "-wal")
    }

    /// The join tables: name, then the column of the first entity's keys and of the second's.
    static func joins(_ owner: JoinOwner) -> [String] {
        switch owner {
        case .lowerNumbered:
            [
                "CREATE TABLE Z_4TAGS ( Z_4RECORDS INTEGER, Z_7TAGS INTEGER, PRIMARY KEY (Z_4RECORDS, Z_7TAGS) )",
                "CREATE TABLE Z_3BLOCKEDBY ( Z_3BLOCKING INTEGER, Z_3BLOCKEDBY INTEGER, PRIMARY KEY (Z_3BLOCKING, Z_3BLOCKEDBY) )",
            ]
        case .higherNumbered:
            [
                "CREATE TABLE Z_7RECORDS ( Z_7TAGS INTEGER, Z_4RECORDS INTEGER, PRIMARY KEY (Z_7TAGS, Z_4RECORDS) )",
                "CREATE TABLE Z_3BLOCKING ( Z_3BLOCKEDBY INTEGER, Z_3BLOCKING INTEGER, PRIMARY KEY (Z_3BLOCKEDBY, Z_3BLOCKING) )",
            ]
        }
    }

    static func schema(_ variant: Variant) -> [String] {
        let record: String
        let tag: String
        var bookkeeping = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        ]
        switch variant.era {
        case .current:
            record =
                "CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCONTAINER INTEGER, Z1_CONTAINER INTEGER, ZPENDINGSTATE INTEGER, ZPENDINGSTATE1 INTEGER, Z_FOK_CONTAINER INTEGER, ZDUE TIMESTAMP, ZAMOUNT FLOAT, ZTITLE VARCHAR )"
            tag = "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR )"
            bookkeeping.append("CREATE UNIQUE INDEX Z_Tag_UNIQUE_label ON ZTAG (ZLABEL COLLATE BINARY ASC)")
            bookkeeping.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        case .framework637:
            record =
                "CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPENDINGSTATE INTEGER, ZPENDINGSTATE1 INTEGER, ZCONTAINER INTEGER, Z1_CONTAINER INTEGER, Z_FOK_CONTAINER INTEGER, ZAMOUNT FLOAT, ZDUE TIMESTAMP, ZTITLE VARCHAR )"
            tag =
                "CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR, UNIQUE (ZLABEL) )"
        }
        return [
            "CREATE TABLE ZCONTAINER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLOR VARCHAR, ZNAME VARCHAR )",
            "CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            record, tag,
        ] + joins(variant.owner) + bookkeeping
    }

    static func rows(_ variant: Variant) -> [String] {
        var rows = [
            "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Container', 0, 2), (2, 'Folder', 1, 0), (3, 'Person', 0, 3), "
                + "(4, 'Record', 0, 4), (5, 'Note', 4, 0), (6, 'Task', 4, 0), (7, 'Tag', 0, 2)"
        ]
        for (key, container) in Contents.containers.sorted(by: { $0.key < $1.key }) {
            let number = container.entity == "Folder" ? 2 : 1
            rows.append(
                "INSERT INTO ZCONTAINER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCOLOR) VALUES (\(key), \(number), 1, '\(container.name)', \(container.color.map { "'\($0)'" } ?? "NULL"))"
            )
        }
        for (key, record) in Contents.records.sorted(by: { $0.key < $1.key }) {
            let isTask = record.entity == "Task"
            let position = 2048 + 1024 * Contents.ordered[record.container]!.firstIndex(of: key)!
            let containerEntity = Contents.containers[record.container]!.entity == "Folder" ? 2 : 1
            let task = Contents.tasks[key]
            rows.append(
                "INSERT INTO ZRECORD (Z_PK, Z_ENT, Z_OPT, ZTITLE, \(isTask ? "ZPENDINGSTATE1" : "ZPENDINGSTATE"), ZCONTAINER, Z1_CONTAINER, Z_FOK_CONTAINER, ZDUE, ZAMOUNT) "
                    + "VALUES (\(key), \(isTask ? 6 : 5), 1, '\(record.title)', \(record.pendingState), \(record.container), \(containerEntity), \(position), \(task.map { "\($0.due)" } ?? "NULL"), \(task.map { "\($0.amount)" } ?? "NULL"))"
            )
        }
        for (key, label) in Contents.tags.sorted(by: { $0.key < $1.key }) {
            rows.append("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZLABEL) VALUES (\(key), 7, 1, '\(label)')")
        }
        for (key, name) in Contents.people.sorted(by: { $0.key < $1.key }) {
            rows.append("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (\(key), 3, 1, '\(name)')")
        }
        let (tagJoin, blockJoin) =
            variant.owner == .lowerNumbered ? ("Z_4TAGS", "Z_3BLOCKEDBY") : ("Z_7RECORDS", "Z_3BLOCKING")
        for (record, tag) in Contents.recordTags {
            rows.append("INSERT INTO \(tagJoin) (Z_4RECORDS, Z_7TAGS) VALUES (\(record), \(tag))")
        }
        // The column named after a relationship holds the keys that relationship of the row's
        // other key leads to: Z_3BLOCKING holds whom the Z_3BLOCKEDBY person blocks.
        for (blocker, blocked) in Contents.blocking {
            rows.append("INSERT INTO \(blockJoin) (Z_3BLOCKEDBY, Z_3BLOCKING) VALUES (\(blocker), \(blocked))")
        }
        return rows
    }

    /// `Z_METADATA`'s one row: a binary property list as Core Data writes it (store type, UUID,
    /// framework version, version identifiers; hashes are left out, as no reader here needs them).
    static func metadata(_ variant: Variant, _ handle: OpaquePointer?) throws {
        let plist: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSStoreUUID": "5C1A7E1E-0000-4000-8000-00000000000\(variant.era == .current ? 1 : 2)",
            "NSPersistenceFrameworkVersion": variant.era == .current ? 1344 : 637,
            "NSStoreModelVersionIdentifiers": [""], "NSStoreModelVersionHashesVersion": 3,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                handle, "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", -1, &statement, nil)
                == SQLITE_OK
        else { throw Failure(description: "cannot prepare the metadata") }
        defer { sqlite3_finalize(statement) }
        let uuid = plist["NSStoreUUID"] as! String
        let transient = modelgen_sqlite_transient()
        sqlite3_bind_text(statement, 1, uuid, -1, transient)
        _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, 2, $0.baseAddress, Int32(data.count), transient) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw Failure(description: "cannot write the metadata") }
    }
}
