import CSQLite
import Foundation
@_spi(Generated) @_spi(Database) import ModelGenRuntime

/// A five-attribute entity written as the generator will write it.
final class BenchItem: ManagedObject {
    static let entity = EntityDescription(
        name: "Item", table: "item", entityID: 1,
        attributes: [
            AttributeDescription(name: "title", column: "title", type: .string, isOptional: false, hasDefault: false),
            AttributeDescription(
                name: "quantity", column: "quantity", type: .int64, isOptional: false, hasDefault: true),
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
        set {
            _title = newValue
            didChange(slot: 0)
        }
    }
    var quantity: Int64 {
        get { _quantity }
        set {
            _quantity = newValue
            didChange(slot: 1)
        }
    }
    var price: Double {
        get { _price }
        set {
            _price = newValue
            didChange(slot: 2)
        }
    }
    var created: Date? {
        get { _created }
        set {
            _created = newValue
            didChange(slot: 3)
        }
    }
    var active: Bool {
        get { _active }
        set {
            _active = newValue
            didChange(slot: 4)
        }
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

/// A row of the item table as an application keeps it: the baselines' "fetch all" makes one per row.
struct BenchRow {
    var key: Int64
    var title: String
    var quantity: Int64
    var price: Double
    var created: Date?
    var active: Bool
}

/// What the runtime is measured against: the same work done directly with the database's C API.
protocol RuntimeBaseline: AnyObject {
    func insert(count: Int, base: Date)
    /// Reads every row; returns the checksum of the values read. `keepingRows`: each row is kept
    /// as a `BenchRow` in an array (until the next fetch), as an application keeps what it reads;
    /// else the values are summed and dropped.
    func fetchAll(keepingRows: Bool) -> Double
    /// Runs the predicate+sort+limit query; returns how many rows it read (`checksumOfQuery`
    /// holds their checksum).
    func fetchQuery(threshold: Int64) -> Int
    var checksumOfQuery: Double { get }
    func updateAll()
    func deleteAll()
    /// Where the key columns read go (so reading them is not optimized away).
    var keySink: Int64 { get }
}

/// Where the runtime benchmark runs: a SQLite file, or a PostgreSQL database (`connection`,
/// with a schema of its own for each side).
enum BenchEngine {
    case sqlite
    case postgres(connection: String)
}

/// `modelgen-bench runtime`: the object store against the raw C API (SQLite's, or libpq) doing
/// the same work.
enum RuntimeBenchmark {
    static let ddl = """
        CREATE TABLE "item" ("_pk" INTEGER PRIMARY KEY, "_entity" INTEGER NOT NULL, "_version" INTEGER NOT NULL DEFAULT 1,
            "title" TEXT NOT NULL, "quantity" INTEGER NOT NULL DEFAULT 0, "price" REAL NOT NULL DEFAULT 0,
            "created" REAL, "active" INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "_modelgen_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
        INSERT INTO "_modelgen_metadata" VALUES ('schema_hash', 'bench');
        """
    static let postgresDDL = """
        CREATE TABLE "item" ("_pk" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "_entity" integer NOT NULL,
            "_version" bigint NOT NULL DEFAULT 1, "title" text NOT NULL, "quantity" bigint NOT NULL DEFAULT 0,
            "price" double precision NOT NULL DEFAULT 0, "created" timestamptz, "active" boolean NOT NULL DEFAULT false);
        CREATE TABLE "_modelgen_metadata" ("key" text PRIMARY KEY NOT NULL, "value" text NOT NULL);
        INSERT INTO "_modelgen_metadata" VALUES ('schema_hash', 'bench');
        """
    static let model = PersistentStore.Model(
        name: "Bench", sqliteDDL: ddl, postgresDDL: postgresDDL, schemaHash: "bench", entities: [BenchItem.entity])

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
    /// With `only`, just the "concurrent reads" phases (which take their own places).
    static func run(objects: Int, noise: Bool = false, engine: BenchEngine = .sqlite, only: Bool = false) throws
        -> [Phase]
    {
        if only {
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return [] }
            return try ConcurrentReadsBenchmark.phases(engine: engine)
        }
        _ = try measure(objects: objects, noise: noise, engine: engine)
        return try measure(objects: objects, noise: noise, engine: engine)
    }

    /// A baseline and a store in fresh places of `engine`: files in a new directory, or new
    /// schemas; `cleanup` removes them.
    private static func places(_ engine: BenchEngine, noise: Bool) throws -> (
        raw: any RuntimeBaseline, again: (any RuntimeBaseline)?, store: PersistentStore, cleanup: () -> Void
    ) {
        switch engine {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "modelgen-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let raw = try RawStore(path: directory.appendingPathComponent("raw.sqlite").path, ddl: ddl)
            let again =
                noise ? try RawStore(path: directory.appendingPathComponent("raw-again.sqlite").path, ddl: ddl) : nil
            let store = try PersistentStore(path: directory.appendingPathComponent("runtime.sqlite").path, model: model)
            return (raw, again, store, { try? FileManager.default.removeItem(at: directory) })
        case .postgres(let connection):
            let admin = try Connection(postgres: connection)
            let suffix = UUID().uuidString.prefix(8).lowercased()
            let schemas = ["bench_raw_\(suffix)", "bench_again_\(suffix)", "bench_runtime_\(suffix)"]
            for schema in schemas { try admin.execute("CREATE SCHEMA \"\(schema)\"") }
            let raw = try PostgresBaseline(connectionString: searchPath(connection, schemas[0]), ddl: postgresDDL)
            let again =
                noise
                ? try PostgresBaseline(connectionString: searchPath(connection, schemas[1]), ddl: postgresDDL) : nil
            let store = try PersistentStore(postgres: searchPath(connection, schemas[2]), model: model)
            return (
                raw, again, store, { for schema in schemas { try? admin.execute("DROP SCHEMA \"\(schema)\" CASCADE") } }
            )
        }
    }

    /// `connection` (a libpq connection string or URL) working in `schema`.
    static func searchPath(_ connection: String, _ schema: String) -> String {
        if connection.hasPrefix("postgres://") || connection.hasPrefix("postgresql://") {
            return connection + (connection.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        }
        return connection + " options='-c search_path=\(schema)'"
    }

    private static func measure(objects: Int, noise: Bool, engine: BenchEngine) throws -> [Phase] {
        let (raw, rawAgain, store, cleanup) = try places(engine, noise: noise)
        defer { cleanup() }
        let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
        var phases: [Phase] = []
        /// The phase with the baseline's work timed once more on the second file (with `noise`).
        func phase(
            _ name: String, _ measured: Phase.Timing, _ baseline: Phase.Timing,
            again work: (any RuntimeBaseline) -> Void
        ) -> Phase {
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
        for keepingRows in [true, false] {
            let rawFetch = Clock.timeWithKernel { checksum += raw.fetchAll(keepingRows: keepingRows) }
            let runtimeFetch = try Clock.timeWithKernel {
                let fresh = store.newContext()
                var sum = 0.0
                for item in try fresh.fetchAll(BenchItem.self) {
                    sum += Double(item.title.utf8.count) + Double(item.quantity) + item.price
                    sum += (item.created?.timeIntervalSinceReferenceDate ?? 0) + (item.active ? 1 : 0)
                }
                checksum -= sum
            }
            phases.append(
                phase(keepingRows ? "fetch all" : "fetch all (read only)", runtimeFetch, rawFetch) {
                    _ = $0.fetchAll(keepingRows: keepingRows)
                })
        }

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
        precondition(
            rawMatches == runtimeMatches && rawMatches == min(1_000, objects / 4), "the queries selected different rows"
        )
        checksum += raw.checksumOfQuery
        phases.append(
            phase("fetch predicate+sort+limit", runtimeQuery, rawQuery) { _ = $0.fetchQuery(threshold: threshold) })

        let items = try context.fetchAll(BenchItem.self)
        let rawUpdate = Clock.timeWithKernel { raw.updateAll() }
        let runtimeUpdate = try Clock.timeWithKernel {
            for item in items { item.quantity += 1 }
            try context.save()
        }
        phases.append(phase("update+save", runtimeUpdate, rawUpdate) { $0.updateAll() })
        phases.append(try observePhase(store, context, items, moves: false))
        phases.append(try observePhase(store, context, items, moves: true))

        let rawDelete = Clock.timeWithKernel { raw.deleteAll() }
        let runtimeDelete = try Clock.timeWithKernel {
            for item in items { context.delete(item) }
            try context.save()
        }
        phases.append(phase("delete+save", runtimeDelete, rawDelete) { $0.deleteAll() })
        phases.append(try PrefetchBenchmark.phase(engine: engine))
        phases += try AggregateBenchmark.phases(engine: engine)
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            phases += try ConcurrentReadsBenchmark.phases(engine: engine)
        }
        precondition(checksum == 0, "the runtime and the raw API read different values")
        precondition(raw.keySink > 0, "the raw API read no keys")
        return phases
    }
}

extension RuntimeBenchmark {
    /// "observe": saves of one changed object each, timed with every object of the store observed
    /// (sorted by price) — after each save, the observation's next results and change set, in
    /// another context, are awaited — against the same saves with nothing observing. The change
    /// is to the quantity (the object keeps its place), or with `moves` to the price (each save
    /// moves the object somewhere else among the 100,000: "observe (moves)"). The baseline here is the runtime itself:
    /// what observing adds to a save. Saves and observation run in one task (the observation's
    /// work is timed, not a thread's wake-up), in five alternating rounds of each (this machine's
    /// speed drifts; each observed round starts a new observation, its first fetch not timed).
    static func observePhase(_ store: PersistentStore, _ context: ObjectContext, _ items: [BenchItem], moves: Bool)
        throws -> Phase
    {
        let (rounds, perRound) = (5, min(200, items.count / 10))
        var saved = 0
        func save() throws {
            let item = items[(saved * 7_919) % items.count]
            if moves {
                item.price = Double((saved * 104_729) % items.count) * 0.5 + 0.25
            } else {
                item.quantity += 1
            }
            saved += 1
            try context.save()
        }
        let observation = ResultsObservation(
            FetchRequest<BenchItem>(sortDescriptors: [ObjectSortDescriptor(\BenchItem.price)]))
        return try blocking {
            var plain = Phase.Timing(0, KernelUsage(pageFaults: 0, milliseconds: 0))
            var observed = plain
            func add(_ total: inout Phase.Timing, _ start: (UInt64, KernelUsage)) {
                total.milliseconds += Double(DispatchTime.now().uptimeNanoseconds - start.0) / 1e6
                total.kernel = total.kernel + (KernelUsage.now() - start.1)
            }
            for _ in 0..<rounds {
                let plainStart = (DispatchTime.now().uptimeNanoseconds, KernelUsage.now())
                for _ in 0..<perRound { try save() }
                add(&plain, plainStart)

                var results = observation.values(in: store.newContext()).makeAsyncIterator()
                _ = try await results.next()
                let observedStart = (DispatchTime.now().uptimeNanoseconds, KernelUsage.now())
                for _ in 0..<perRound {
                    try save()
                    let next = try await results.next()
                    precondition(
                        next?.objects.count == items.count && next?.changes.updated.count == 1,
                        "the observation missed a save")
                }
                add(&observed, observedStart)
            }
            return Phase(name: moves ? "observe (moves)" : "observe", observed, plain)
        }
    }

    /// Runs `body` in a task and waits for it: the whole of `body` runs on one thread of the
    /// pool as long as it does not suspend (an observation's `next()` does not when the save it
    /// waits for has been made).
    static func blocking<T>(_ body: @escaping () async throws -> T) throws -> T {
        nonisolated(unsafe) let body = body
        nonisolated(unsafe) var outcome: Result<T, any Error>?
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            semaphore.signal()
        }
        semaphore.wait()
        return try outcome!.get()
    }
}

extension Phase {
    /// A phase of the runtime benchmark: the runtime's timing next to the raw API's.
    init(name: String, _ measured: Timing, _ baseline: Timing) {
        self.init(
            name: name, milliseconds: measured.milliseconds, baselineMilliseconds: baseline.milliseconds,
            kernel: measured.kernel,
            baselineKernel: baseline.kernel)
    }
}

/// The baseline: the same work with the SQLite C API, prepared statements, one transaction per
/// phase, reading every selected column into the same Swift types and, for "fetch all", keeping
/// each row as a `BenchRow` struct (building no objects).
final class RawStore: RuntimeBaseline {
    private var db: OpaquePointer?
    private var rowIDs: [Int64] = []

    init(path: String, ddl: String) throws {
        // The runtime's open flags (no per-call mutex: one thread uses the connection).
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            throw DatabaseError(.sqlite, "cannot open \(path)")
        }
        for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", ddl] {
            guard sqlite3_exec(db, pragma, nil, nil, nil) == SQLITE_OK else {
                throw DatabaseError(.sqlite, String(cString: sqlite3_errmsg(db)))
            }
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
            #"INSERT INTO "item" ("_entity", "title", "quantity", "price", "created", "active") VALUES (1, ?, ?, ?, ?, ?)"#
        )
        defer { sqlite3_finalize(statement) }
        transaction {
            for index in 0..<count {
                var title = "Item \(index)"
                // The text's UTF-8 bytes as they are, as the runtime binds a String (passing the
                // String as a C string would copy it into a new array first).
                title.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { text in
                        _ = sqlite3_bind_text(
                            statement, 1, text.baseAddress, Int32(text.count), modelgen_sqlite_transient())
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

    /// The rows of the last fetch that keeps them.
    private(set) var rows: [BenchRow] = []

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

    func fetchAll(keepingRows: Bool) -> Double {
        fetch(
            #"SELECT "_pk", "_entity", "_version", "title", "quantity", "price", "created", "active" FROM "item" WHERE "_entity" IN (1) ORDER BY "_pk""#,
            keepingRows: keepingRows
        ).sum
    }

    func fetch(_ sql: String, keepingRows: Bool = false, bind: (OpaquePointer) -> Void = { _ in }) -> (
        sum: Double, rows: Int
    ) {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        rows.removeAll(keepingCapacity: true)
        var sum = 0.0
        var count = 0
        var keys: Int64 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            count += 1
            // Every selected column is read, as the runtime reads `_pk`, `_entity` and `_version`.
            keys &+=
                sqlite3_column_int64(statement, 0) &+ sqlite3_column_int64(statement, 1)
                &+ sqlite3_column_int64(statement, 2)
            let count = Int(sqlite3_column_bytes(statement, 3))
            let title = String(
                decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, 3), count: count), as: UTF8.self)
            let quantity = sqlite3_column_int64(statement, 4)
            let price = sqlite3_column_double(statement, 5)
            let created: Date? =
                sqlite3_column_type(statement, 6) == SQLITE_NULL
                ? nil : Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 6))
            let active = sqlite3_column_int64(statement, 7) != 0
            if keepingRows {
                rows.append(
                    BenchRow(
                        key: sqlite3_column_int64(statement, 0), title: title, quantity: quantity, price: price,
                        created: created, active: active))
            }
            sum += Double(title.utf8.count) + Double(quantity) + price
            sum += (created?.timeIntervalSinceReferenceDate ?? 0) + (active ? 1 : 0)
        }
        keySink &+= keys
        return (sum, count)
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
