import CLibPQ
import CSQLite
import Foundation
@_spi(Database) import ModelGenRuntime

/// "concurrent reads": readers each fetch their quarter of 100,000 sales (25,000 objects)
/// `rounds` times, each time in a fresh context, while one writer saves 1,000 single-object
/// changes (each its own save) — with 4 readers, and with 1 to show how reading scales. The
/// runtime side runs them as tasks that prefer the store's executor, through the `async` API
/// (the store's threads, its reader pool); the baseline as threads with the C API: one
/// connection per reader and one writer (WAL on SQLite), each reader keeping its rows as
/// structs, the writer checking the version as a save does.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
enum ConcurrentReadsBenchmark {
    static let rounds = 4
    static let changes = 1_000

    /// What a baseline reader keeps of a row.
    struct Row {
        var key: Int64
        var category: Int64
        var price: Double
    }

    static let readSQL =
        #"SELECT "_pk", "_entity", "_version", "category", "price" FROM "sale" WHERE "_entity" IN (1) AND "category" >= ? AND "category" < ?"#
    static let targetsSQL =
        #"SELECT "_pk", "_version" FROM "sale" WHERE "_entity" IN (1) AND "category" = 99 ORDER BY "_pk" LIMIT 1000"#
    static let updateSQL =
        #"UPDATE "sale" SET "_version" = "_version" + 1, "price" = ? WHERE "_pk" = ? AND "_version" = ?"#

    static func phases(engine: BenchEngine) throws -> [Phase] {
        let places = try BenchPlaces("concurrent", model: AggregateBenchmark.model, engine: engine) { store in
            try AggregateBenchmark.fill(store)
        }
        defer { places.close() }
        if case .postgres = engine {
            // The earlier phases deleted and rewrote hundreds of thousands of rows: their
            // clean-up now, not the server's autovacuum running beside the timed runs (it took
            // one of the 2 cores during some of them and not others).
            try Connection(postgres: places.rawLocation).execute("VACUUM ANALYZE")
        }
        var phases: [Phase] = []
        for readers in [1, 4] {
            // A warm-up of each side, then the measured runs, alternating.
            var runtimeTimes: [Double] = []
            var rawTimes: [Double] = []
            for run in 0..<4 {
                let raw = try Clock.time { try rawRun(places.rawLocation, engine, readers: readers) }
                let runtime = try Clock.time { try runtimeRun(places.store, readers: readers) }
                if run > 0 {
                    rawTimes.append(raw)
                    runtimeTimes.append(runtime)
                }
            }
            phases.append(
                Phase(
                    name: "concurrent reads (\(readers) reader\(readers == 1 ? "" : "s"))",
                    milliseconds: runtimeTimes.min()!, baselineMilliseconds: rawTimes.min()!))
        }
        return phases
    }

    /// The quarter of the categories reader `index` reads.
    private static func range(_ index: Int) -> (Int64, Int64) {
        let quarter = AggregateBenchmark.categories / 4
        let start = Int64(index % 4) * quarter
        return (start, start + quarter)
    }

    // MARK: - The runtime

    private static func runtimeRun(_ store: PersistentStore, readers: Int) throws {
        try RuntimeBenchmark.blocking {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<readers {
                    group.addTask(executorPreference: store.executor) {
                        let (low, high) = range(index)
                        let request = FetchRequest<BenchSale>(
                            predicate: \BenchSale.category >= low && \BenchSale.category < high)
                        var read = 0
                        for _ in 0..<rounds {
                            let context = store.newContext()
                            var sum = 0.0
                            for sale in try await context.fetch(request) { sum += sale.price }
                            precondition(sum > 0)
                            read += try await context.count(request) > 0 ? 1 : 0
                        }
                        return read
                    }
                }
                group.addTask(executorPreference: store.executor) {
                    let context = store.newContext()
                    let targets = try await context.fetch(
                        FetchRequest<BenchSale>(
                            predicate: \BenchSale.category == 99, sortDescriptors: [], fetchLimit: changes))
                    for sale in targets {
                        sale.price += 1
                        try await context.save()
                    }
                    return 0
                }
                var total = 0
                for try await read in group { total += read }
                precondition(total == readers * rounds, "a reader read nothing")
            }
        }
    }

    // MARK: - The baselines

    private static func rawRun(_ location: String, _ engine: BenchEngine, readers: Int) throws {
        let group = DispatchGroup()
        let failures = UncheckedFailures()
        func start(_ body: @escaping @Sendable () throws -> Void) {
            group.enter()
            let thread = Thread {
                do { try body() } catch { failures.add(error) }
                group.leave()
            }
            thread.start()
        }
        switch engine {
        case .sqlite:
            for index in 0..<readers { start { try sqliteReader(location, index) } }
            start { try sqliteWriter(location) }
        case .postgres:
            for index in 0..<readers { start { try postgresReader(location, index) } }
            start { try postgresWriter(location) }
        }
        group.wait()
        if let failure = failures.first { throw failure }
    }

    private static func sqliteOpen(_ path: String) throws -> OpaquePointer? {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else {
            throw DatabaseError(.sqlite, "cannot open \(path)")
        }
        sqlite3_busy_timeout(db, 5_000)
        // As the store's connections: WAL (the file is in WAL already), commits not synced.
        sqlite3_exec(db, "PRAGMA synchronous = NORMAL", nil, nil, nil)
        return db
    }

    private static func sqliteReader(_ path: String, _ index: Int) throws {
        let db = try sqliteOpen(path)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, readSQL, -1, &statement, nil) == SQLITE_OK)
        var count: OpaquePointer?
        precondition(
            sqlite3_prepare_v2(
                db, #"SELECT count(*) FROM "sale" WHERE "_entity" IN (1) AND "category" >= ? AND "category" < ?"#, -1,
                &count, nil) == SQLITE_OK)
        defer {
            sqlite3_finalize(statement)
            sqlite3_finalize(count)
        }
        let (low, high) = range(index)
        var keys: Int64 = 0
        for _ in 0..<rounds {
            var rows: [Row] = []
            sqlite3_bind_int64(statement, 1, low)
            sqlite3_bind_int64(statement, 2, high)
            while sqlite3_step(statement) == SQLITE_ROW {
                keys &+= sqlite3_column_int64(statement, 1) &+ sqlite3_column_int64(statement, 2)
                rows.append(
                    Row(
                        key: sqlite3_column_int64(statement, 0), category: sqlite3_column_int64(statement, 3),
                        price: sqlite3_column_double(statement, 4)))
            }
            sqlite3_reset(statement)
            precondition(rows.reduce(0) { $0 + $1.price } > 0 && keys != 0)
            sqlite3_bind_int64(count, 1, low)
            sqlite3_bind_int64(count, 2, high)
            precondition(sqlite3_step(count) == SQLITE_ROW && sqlite3_column_int64(count, 0) > 0)
            sqlite3_reset(count)
        }
    }

    private static func sqliteWriter(_ path: String) throws {
        let db = try sqliteOpen(path)
        defer { sqlite3_close(db) }
        var targets: [(key: Int64, version: Int64, price: Double)] = []
        var select: OpaquePointer?
        precondition(
            sqlite3_prepare_v2(
                db,
                #"SELECT "_pk", "_version", "price" FROM "sale" WHERE "_entity" IN (1) AND "category" = 99 ORDER BY "_pk" LIMIT 1000"#,
                -1, &select, nil) == SQLITE_OK)
        while sqlite3_step(select) == SQLITE_ROW {
            targets.append(
                (sqlite3_column_int64(select, 0), sqlite3_column_int64(select, 1), sqlite3_column_double(select, 2)))
        }
        sqlite3_finalize(select)
        var begin: OpaquePointer?
        var update: OpaquePointer?
        var commit: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nil) == SQLITE_OK)
        precondition(sqlite3_prepare_v2(db, updateSQL, -1, &update, nil) == SQLITE_OK)
        precondition(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nil) == SQLITE_OK)
        defer {
            sqlite3_finalize(begin)
            sqlite3_finalize(update)
            sqlite3_finalize(commit)
        }
        for target in targets {
            precondition(sqlite3_step(begin) == SQLITE_DONE)
            sqlite3_reset(begin)
            sqlite3_bind_double(update, 1, target.price + 1)
            sqlite3_bind_int64(update, 2, target.key)
            sqlite3_bind_int64(update, 3, target.version)
            precondition(sqlite3_step(update) == SQLITE_DONE && sqlite3_changes(db) == 1)
            sqlite3_reset(update)
            precondition(sqlite3_step(commit) == SQLITE_DONE)
            sqlite3_reset(commit)
        }
    }

    private static func postgresConnect(_ location: String) throws -> OpaquePointer {
        guard let connection = PQconnectdb(location), PQstatus(connection) == CONNECTION_OK else {
            throw DatabaseError(.postgres, "the baseline cannot connect")
        }
        return connection
    }

    private static func postgresReader(_ location: String, _ index: Int) throws {
        let connection = try postgresConnect(location)
        defer { PQfinish(connection) }
        let (low, high) = range(index)
        var buffer: [UInt8] = []
        withUnsafeBytes(of: UInt64(bitPattern: low).bigEndian) { buffer.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(bitPattern: high).bigEndian) { buffer.append(contentsOf: $0) }
        let sql = readSQL.replacingOccurrences(of: ">= ?", with: ">= $1").replacingOccurrences(of: "< ?", with: "< $2")
        let countSQL = #"SELECT count(*) FROM "sale" WHERE "_entity" IN (1) AND "category" >= $1 AND "category" < $2"#
        PQclear(PQprepare(connection, "read", sql, 2, nil))
        PQclear(PQprepare(connection, "count", countSQL, 2, nil))
        for _ in 0..<rounds {
            let result = buffer.withUnsafeBufferPointer { bytes -> OpaquePointer? in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                return PQexecPrepared(connection, "read", 2, [base, base + 8], [8, 8], [1, 1], 1)
            }
            precondition(PQresultStatus(result) == PGRES_TUPLES_OK, String(cString: PQerrorMessage(connection)))
            var rows: [Row] = []
            var keys: Int64 = 0
            for row in 0..<PQntuples(result) {
                keys &+= PostgresBaseline.integer(result, row, 1) &+ PostgresBaseline.integer(result, row, 2)
                rows.append(
                    Row(
                        key: PostgresBaseline.integer(result, row, 0),
                        category: PostgresBaseline.integer(result, row, 3),
                        price: Double(bitPattern: UInt64(bitPattern: PostgresBaseline.integer(result, row, 4)))))
            }
            PQclear(result)
            precondition(rows.reduce(0) { $0 + $1.price } > 0 && keys != 0)
            let counted = buffer.withUnsafeBufferPointer { bytes -> OpaquePointer? in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                return PQexecPrepared(connection, "count", 2, [base, base + 8], [8, 8], [1, 1], 1)
            }
            precondition(PQresultStatus(counted) == PGRES_TUPLES_OK && PostgresBaseline.integer(counted, 0, 0) > 0)
            PQclear(counted)
        }
    }

    private static func postgresWriter(_ location: String) throws {
        let connection = try postgresConnect(location)
        defer { PQfinish(connection) }
        let select = PQexecParams(
            connection,
            #"SELECT "_pk", "_version", "price" FROM "sale" WHERE "_entity" IN (1) AND "category" = 99 ORDER BY "_pk" LIMIT 1000"#,
            0, nil, nil, nil, nil, 1)
        precondition(PQresultStatus(select) == PGRES_TUPLES_OK)
        let targets = (0..<PQntuples(select)).map { row in
            (
                PostgresBaseline.integer(select, row, 0), PostgresBaseline.integer(select, row, 1),
                Double(bitPattern: UInt64(bitPattern: PostgresBaseline.integer(select, row, 2)))
            )
        }
        PQclear(select)
        let sql = #"UPDATE "sale" SET "_version" = "_version" + 1, "price" = $1 WHERE "_pk" = $2 AND "_version" = $3"#
        PQclear(PQprepare(connection, "update", sql, 3, nil))
        for (key, version, price) in targets {
            PQclear(PQexec(connection, "BEGIN"))
            var buffer: [UInt8] = []
            withUnsafeBytes(of: (price + 1).bitPattern.bigEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(bitPattern: key).bigEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(bitPattern: version).bigEndian) { buffer.append(contentsOf: $0) }
            let result = buffer.withUnsafeBufferPointer { bytes -> OpaquePointer? in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                return PQexecPrepared(connection, "update", 3, [base, base + 8, base + 16], [8, 8, 8], [1, 1, 1], 1)
            }
            precondition(
                PQresultStatus(result) == PGRES_COMMAND_OK && String(cString: PQcmdTuples(result)) == "1",
                String(cString: PQerrorMessage(connection)))
            PQclear(result)
            PQclear(PQexec(connection, "COMMIT"))
        }
    }
}

/// The first error any baseline thread threw.
final class UncheckedFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func add(_ error: any Error) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var first: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return errors.first
    }
}
