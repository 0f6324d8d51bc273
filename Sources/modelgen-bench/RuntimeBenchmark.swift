import CSQLite
import Foundation
@_spi(Generated) import ModelGenRuntime

/// A five-attribute entity written as the generator will write it.
final class BenchItem: ManagedObject {
    static let entity = EntityDescription(
        name: "Item", table: "item", entityID: 1,
        attributes: [
            AttributeDescription(name: "title", column: "title", type: .string, isOptional: false, hasDefault: false),
            AttributeDescription(name: "quantity", column: "quantity", type: .int64, isOptional: false, hasDefault: true),
            AttributeDescription(name: "price", column: "price", type: .double, isOptional: false, hasDefault: true),
            AttributeDescription(name: "created", column: "created", type: .date, isOptional: true, hasDefault: false),
            AttributeDescription(name: "active", column: "active", type: .bool, isOptional: false, hasDefault: true),
        ])

    private var _title = ""
    private var _quantity: Int64 = 0
    private var _price = 0.0
    private var _created: Date?
    private var _active = false

    var title: String {
        get { _title }
        set { _title = newValue; didChange(slot: 0) }
    }
    var quantity: Int64 {
        get { _quantity }
        set { _quantity = newValue; didChange(slot: 1) }
    }
    var price: Double {
        get { _price }
        set { _price = newValue; didChange(slot: 2) }
    }
    var created: Date? {
        get { _created }
        set { _created = newValue; didChange(slot: 3) }
    }
    var active: Bool {
        get { _active }
        set { _active = newValue; didChange(slot: 4) }
    }

    override class var entityDescription: EntityDescription { entity }

    override class func slot(for keyPath: AnyKeyPath) -> Int? {
        switch keyPath {
        case \BenchItem.title: 0
        case \BenchItem.quantity: 1
        case \BenchItem.price: 2
        case \BenchItem.created: 3
        case \BenchItem.active: 4
        default: nil
        }
    }

    // `read` and `bind` as the generator writes them for a root entity (no call to the base
    // class), with the generic column readers and binders.
    override func read(from row: Statement, startingAt column: Int32) {
        _title = row.read(column + 0)
        _quantity = row.read(column + 1)
        _price = row.read(column + 2)
        _created = row.read(column + 3)
        _active = row.read(column + 4)
    }

    override func bind(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 {
        var next = index
        if mask & (1 << 0) != 0 {
            statement.bind(_title, at: next)
            next += 1
        }
        if mask & (1 << 1) != 0 {
            statement.bind(_quantity, at: next)
            next += 1
        }
        if mask & (1 << 2) != 0 {
            statement.bind(_price, at: next)
            next += 1
        }
        if mask & (1 << 3) != 0 {
            statement.bind(_created, at: next)
            next += 1
        }
        if mask & (1 << 4) != 0 {
            statement.bind(_active, at: next)
            next += 1
        }
        return next
    }
}

/// `modelgen-bench runtime`: the object store against the raw SQLite C API doing the same work.
enum RuntimeBenchmark {
    static let ddl = """
        CREATE TABLE "item" ("_pk" INTEGER PRIMARY KEY, "_entity" INTEGER NOT NULL, "_version" INTEGER NOT NULL DEFAULT 1,
            "title" TEXT NOT NULL, "quantity" INTEGER NOT NULL DEFAULT 0, "price" REAL NOT NULL DEFAULT 0,
            "created" REAL, "active" INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "_modelgen_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
        INSERT INTO "_modelgen_metadata" VALUES ('schema_hash', 'bench');
        """

    /// Runs every phase once for `objects` objects, after an untimed warm-up of both sides doing
    /// the same work (so neither pays for first-touch code in the timing).
    ///
    /// The warm-up is as large as the run, so that with `--keep-freed-memory` the run finds the
    /// memory the warm-up freed still in the process (the steady state of a long-running app).
    /// By default glibc hands most of that memory back to the kernel, and the run's phases that
    /// make objects pay the kernel for fresh pages again: the page-fault columns show how many.
    ///
    /// `noise`: each phase's baseline runs a second time, on a second file, after the runtime's
    /// turn; its time next to the first run's is the ratio the machine's noise alone gives.
    static func run(objects: Int, noise: Bool = false) throws -> [Phase] {
        _ = try measure(objects: objects, noise: noise)
        return try measure(objects: objects, noise: noise)
    }

    private static func measure(objects: Int, noise: Bool) throws -> [Phase] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let raw = try RawStore(path: directory.appendingPathComponent("raw.sqlite").path, ddl: ddl)
        let store = try PersistentStore(
            path: directory.appendingPathComponent("runtime.sqlite").path,
            model: .init(name: "Bench", sqliteDDL: ddl, schemaHash: "bench", entities: [BenchItem.entity]))
        let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
        var phases: [Phase] = []
        let rawAgain = noise ? try RawStore(path: directory.appendingPathComponent("raw-again.sqlite").path, ddl: ddl) : nil
        /// The phase with the baseline's work timed once more on the second file (with `noise`).
        func phase(_ name: String, _ measured: Phase.Timing, _ baseline: Phase.Timing, again work: (RawStore) -> Void) -> Phase {
            var phase = Phase(name: name, measured, baseline)
            if let rawAgain { phase.repeatedBaselineMilliseconds = Clock.time { work(rawAgain) } }
            return phase
        }

        let rawInsert = Clock.timeWithKernel { raw.insert(count: objects, base: base) }
        let context = store.newContext()
        let runtimeInsert = try Clock.timeWithKernel {
            for index in 0..<objects {
                let item = context.insert(BenchItem.self)
                item.title = "Item \(index)"
                item.quantity = Int64(index)
                item.price = Double(index) * 0.5
                item.created = base.addingTimeInterval(Double(index))
                item.active = index % 2 == 0
            }
            try context.save()
        }
        phases.append(phase("insert+save", runtimeInsert, rawInsert) { $0.insert(count: objects, base: base) })

        var checksum = 0.0
        let fetchAll = #"SELECT "_pk", "_entity", "_version", "title", "quantity", "price", "created", "active" FROM "item" WHERE "_entity" IN (1) ORDER BY "_pk""#
        let rawFetch = Clock.timeWithKernel { checksum += raw.fetch(fetchAll).sum }
        let runtimeFetch = try Clock.timeWithKernel {
            let fresh = store.newContext()
            var sum = 0.0
            for item in try fresh.fetchAll(BenchItem.self) {
                sum += Double(item.title.utf8.count) + Double(item.quantity) + item.price
                sum += (item.created?.timeIntervalSinceReferenceDate ?? 0) + (item.active ? 1 : 0)
            }
            checksum -= sum
        }
        phases.append(phase("fetch all", runtimeFetch, rawFetch) { _ = $0.fetch(fetchAll) })

        let threshold = Int64(objects / 2)
        var rawMatches = 0
        let rawQuery = Clock.timeWithKernel { rawMatches = raw.fetchQuery(threshold: threshold) }
        var runtimeMatches = 0
        let runtimeQuery = try Clock.timeWithKernel {
            let fresh = store.newContext()
            let request = FetchRequest<BenchItem>(
                predicate: \BenchItem.quantity >= threshold && \BenchItem.active == true,
                sortDescriptors: [ObjectSortDescriptor(\BenchItem.price, ascending: false)], fetchLimit: 1_000)
            var sum = 0.0
            for item in try fresh.fetch(request) {
                sum += Double(item.title.utf8.count) + Double(item.quantity) + item.price
                sum += (item.created?.timeIntervalSinceReferenceDate ?? 0) + (item.active ? 1 : 0)
                runtimeMatches += 1
            }
            checksum -= sum
        }
        precondition(rawMatches == runtimeMatches && rawMatches == min(1_000, objects / 4), "the queries selected different rows")
        checksum += raw.checksumOfQuery
        phases.append(phase("fetch predicate+sort+limit", runtimeQuery, rawQuery) { _ = $0.fetchQuery(threshold: threshold) })

        let items = try context.fetchAll(BenchItem.self)
        let rawUpdate = Clock.timeWithKernel { raw.updateAll() }
        let runtimeUpdate = try Clock.timeWithKernel {
            for item in items { item.quantity += 1 }
            try context.save()
        }
        phases.append(phase("update+save", runtimeUpdate, rawUpdate) { $0.updateAll() })

        let rawDelete = Clock.timeWithKernel { raw.deleteAll() }
        let runtimeDelete = try Clock.timeWithKernel {
            for item in items { context.delete(item) }
            try context.save()
        }
        phases.append(phase("delete+save", runtimeDelete, rawDelete) { $0.deleteAll() })
        precondition(checksum == 0, "the runtime and the raw API read different values")
        precondition(raw.keySink > 0, "the raw API read no keys")
        return phases
    }
}

extension Phase {
    /// A phase of the runtime benchmark: the runtime's timing next to the raw API's.
    init(name: String, _ measured: Timing, _ baseline: Timing) {
        self.init(
            name: name, milliseconds: measured.milliseconds, baselineMilliseconds: baseline.milliseconds, kernel: measured.kernel,
            baselineKernel: baseline.kernel)
    }
}

/// The baseline: the same work with the SQLite C API, prepared statements, one transaction per
/// phase, reading every selected column into the same Swift types but building no objects.
final class RawStore {
    private var db: OpaquePointer?
    private var rowIDs: [Int64] = []

    init(path: String, ddl: String) throws {
        // The runtime's open flags (no per-call mutex: one thread uses the connection).
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else { throw DatabaseError(.sqlite, "cannot open \(path)") }
        for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", ddl] {
            guard sqlite3_exec(db, pragma, nil, nil, nil) == SQLITE_OK else { throw DatabaseError(.sqlite, String(cString: sqlite3_errmsg(db))) }
        }
    }

    deinit { sqlite3_close(db) }

    private func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        return statement!
    }

    private func transaction(_ body: () -> Void) {
        sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
        body()
        precondition(sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK)
    }

    func insert(count: Int, base: Date) {
        let statement = prepare(
            #"INSERT INTO "item" ("_entity", "title", "quantity", "price", "created", "active") VALUES (1, ?, ?, ?, ?, ?)"#)
        defer { sqlite3_finalize(statement) }
        transaction {
            for index in 0..<count {
                var title = "Item \(index)"
                // The text's UTF-8 bytes as they are, as the runtime binds a String (passing the
                // String as a C string would copy it into a new array first).
                title.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { text in
                        _ = sqlite3_bind_text(statement, 1, text.baseAddress, Int32(text.count), modelgen_sqlite_transient())
                    }
                }
                sqlite3_bind_int64(statement, 2, Int64(index))
                sqlite3_bind_double(statement, 3, Double(index) * 0.5)
                sqlite3_bind_double(statement, 4, base.addingTimeInterval(Double(index)).timeIntervalSinceReferenceDate)
                sqlite3_bind_int64(statement, 5, index % 2 == 0 ? 1 : 0)
                precondition(sqlite3_step(statement) == SQLITE_DONE)
                rowIDs.append(sqlite3_last_insert_rowid(db))
                sqlite3_reset(statement)
            }
        }
    }

    func fetchQuery(threshold: Int64) -> Int {
        let result = fetch(
            #"SELECT "_pk", "_entity", "_version", "title", "quantity", "price", "created", "active" FROM "item" WHERE "_entity" IN (1) AND "quantity" >= ? AND "active" = ? ORDER BY "price" DESC, "_pk" LIMIT 1000"#,
            bind: { statement in
                sqlite3_bind_int64(statement, 1, threshold)
                sqlite3_bind_int64(statement, 2, 1)
            })
        checksumOfQuery = result.sum
        return result.rows
    }

    var checksumOfQuery = 0.0

    func fetch(_ sql: String, bind: (OpaquePointer) -> Void = { _ in }) -> (sum: Double, rows: Int) {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        var sum = 0.0
        var rows = 0
        var keys: Int64 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            rows += 1
            // Every selected column is read, as the runtime reads `_pk`, `_entity` and `_version`.
            keys &+= sqlite3_column_int64(statement, 0) &+ sqlite3_column_int64(statement, 1) &+ sqlite3_column_int64(statement, 2)
            let count = Int(sqlite3_column_bytes(statement, 3))
            let title = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, 3), count: count), as: UTF8.self)
            let quantity = sqlite3_column_int64(statement, 4)
            let price = sqlite3_column_double(statement, 5)
            let created: Date? =
                sqlite3_column_type(statement, 6) == SQLITE_NULL
                ? nil : Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 6))
            let active = sqlite3_column_int64(statement, 7) != 0
            sum += Double(title.utf8.count) + Double(quantity) + price
            sum += (created?.timeIntervalSinceReferenceDate ?? 0) + (active ? 1 : 0)
        }
        keySink &+= keys
        return (sum, rows)
    }

    /// Where the key columns read by `fetch` go (so reading them is not optimized away).
    private(set) var keySink: Int64 = 0

    func updateAll() {
        let statement = prepare(#"UPDATE "item" SET "_version" = "_version" + 1, "quantity" = ? WHERE "_pk" = ?"#)
        defer { sqlite3_finalize(statement) }
        transaction {
            for (index, rowID) in rowIDs.enumerated() {
                sqlite3_bind_int64(statement, 1, Int64(index) + 1)
                sqlite3_bind_int64(statement, 2, rowID)
                precondition(sqlite3_step(statement) == SQLITE_DONE)
                sqlite3_reset(statement)
            }
        }
    }

    func deleteAll() {
        let statement = prepare(#"DELETE FROM "item" WHERE "_pk" = ?"#)
        defer { sqlite3_finalize(statement) }
        transaction {
            for rowID in rowIDs {
                sqlite3_bind_int64(statement, 1, rowID)
                precondition(sqlite3_step(statement) == SQLITE_DONE)
                sqlite3_reset(statement)
            }
        }
    }
}
