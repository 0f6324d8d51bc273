import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite database handle (a file or in memory), used by one thread at a time. Every failure
/// is a `DatabaseError` with code `.sqlite`, the SQL and SQLite's extended result code.
final class SQLiteConnection: ConnectionDriver {
    /// `nil` once closed.
    private(set) var handle: OpaquePointer?
    /// Whether the database is a file (not `:memory:` or a temporary one).
    let isFile: Bool
    private let busyTimeout: Int32

    var dialect: StoreDialect { .sqlite }
    var beginTransaction: String { "BEGIN IMMEDIATE" }
    var numbersRowsFromSequence: Bool { false }
    var pipelinesWrites: Bool { false }

    /// Opens the database at `path` (creating it unless `readOnly`): foreign keys enforced, a busy
    /// database retried for `busyTimeout` milliseconds.
    init(path: String, busyTimeout: Int32, readOnly: Bool) throws(DatabaseError) {
        isFile = path != ":memory:" && !path.isEmpty
        self.busyTimeout = busyTimeout
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
            | SQLITE_OPEN_EXRESCODE
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the database"
            sqlite3_close_v2(opened)
            throw DatabaseError(.sqlite, "cannot open '\(path)': \(message)", sqliteCode: status)
        }
        handle = opened
        sqlite3_extended_result_codes(opened, 1)
        sqlite3_busy_timeout(opened, busyTimeout)
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { close() }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    var pointer: OpaquePointer {
        guard let handle else { preconditionFailure("the connection is closed") }
        return handle
    }

    /// Switches a file database to WAL with `synchronous = NORMAL` (nothing for one in memory).
    func useWAL() throws(DatabaseError) {
        guard isFile else { return }
        try enableWAL()
        try execute("PRAGMA synchronous = NORMAL")
    }

    /// Switches a file database to WAL. The switch needs the database to itself and SQLite does
    /// not wait for that (no busy handler), so a database another process is opening at the same
    /// moment is retried until `busyTimeout` runs out.
    private func enableWAL() throws(DatabaseError) {
        var waited: Int32 = 0
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                return
            } catch {
                guard error.isBusy, waited < busyTimeout else { throw error }
                usleep(2_000)
                waited += 2
            }
        }
    }

    func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(pointer, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(pointer))
            sqlite3_free(message)
            throw DatabaseError(.sqlite, text, sql: sql, sqliteCode: sqlite3_extended_errcode(pointer))
        }
    }

    func prepare(_ sql: String) throws(DatabaseError) -> Statement.Engine {
        var prepared: OpaquePointer?
        guard
            sqlite3_prepare_v3(pointer, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK,
            let prepared
        else { throw error(sql) }
        return .sqlite(SQLiteStatement(prepared))
    }

    var changes: Int { Int(sqlite3_changes(pointer)) }

    var lastInsertedRowID: Int64 {
        get throws(DatabaseError) {
            guard let handle else { throw DatabaseError(.misuse, "the connection is closed") }
            return sqlite3_last_insert_rowid(handle)
        }
    }

    func resetActiveStatements() {
        var statement = sqlite3_next_stmt(pointer, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(pointer, current)
        }
    }

    func flush() throws(DatabaseError) -> [Int] { [] }

    func commit() throws(DatabaseError) { try execute("COMMIT") }

    func restoreSettingsAfterMigration() {
        try? execute("PRAGMA legacy_alter_table = OFF")
        try? execute("PRAGMA foreign_keys = ON")
    }
    var queuedCount: Int { 0 }
    func reconnectIfNeeded() throws(DatabaseError) {}

    /// SQLite measures statements itself (`sqlite3_trace_v2`'s profile events, at no cost while
    /// unset); the connection keeps `tracer` alive while SQLite holds a pointer to it.
    func setTracer(_ tracer: SQLTracer?) {
        guard let handle else { return }
        if let tracer {
            sqlite3_trace_v2(
                handle, UInt32(SQLITE_TRACE_PROFILE), sqliteTraceEvent, Unmanaged.passUnretained(tracer).toOpaque())
        } else {
            sqlite3_trace_v2(handle, 0, nil, nil)
        }
    }

    /// Registers `modelgen_row()`, which adds one to `counter` each time it runs.
    func registerRowCounter(_ counter: Connection.RowCounter) throws(DatabaseError) {
        let status = sqlite3_create_function_v2(
            pointer, "modelgen_row", 0, SQLITE_UTF8, Unmanaged.passUnretained(counter).toOpaque(),
            { context, _, _ in
                Unmanaged<Connection.RowCounter>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue().count += 1
                sqlite3_result_null(context)
            }, nil, nil, nil)
        guard status == SQLITE_OK else { throw DatabaseError(.sqlite, "cannot register modelgen_row()") }
    }

    func error(_ sql: String?) -> DatabaseError {
        DatabaseError(
            .sqlite, String(cString: sqlite3_errmsg(pointer)), sql: sql, sqliteCode: sqlite3_extended_errcode(pointer))
    }
}

/// SQLite's profile event: the statement (`statement`) and its run time in nanoseconds (`detail`
/// points at an `Int64`).
private func sqliteTraceEvent(
    _ kind: UInt32, _ context: UnsafeMutableRawPointer?, _ statement: UnsafeMutableRawPointer?,
    _ detail: UnsafeMutableRawPointer?
) -> Int32 {
    guard kind == UInt32(SQLITE_TRACE_PROFILE), let context, let statement, let detail else { return 0 }
    let tracer = Unmanaged<SQLTracer>.fromOpaque(context).takeUnretainedValue()
    let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? ""
    tracer.handler(SQLTraceEvent(sql: sql, duration: .nanoseconds(detail.load(as: Int64.self))))
    return 0
}
