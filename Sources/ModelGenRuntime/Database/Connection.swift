import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection to one database, with a cache of prepared statements: a SQLite database (a file
/// or in memory), or a PostgreSQL database through libpq.
///
/// A connection is used by one thread at a time; `PersistentStore` hands connections out.
/// Every SQLite failure is a `DatabaseError` with code `.sqlite`, the SQL and SQLite's result
/// code; PostgreSQL failures are classified by SQLSTATE (see `PostgresConnection`).
public final class Connection {
    /// The SQLite handle; `nil` once closed, and on PostgreSQL.
    private(set) var handle: OpaquePointer?
    /// The PostgreSQL connection; `nil` on SQLite.
    let postgres: PostgresConnection?
    /// The SQL this connection's database speaks.
    public let dialect: StoreDialect
    private var cache: [String: Statement] = [:]
    private var sequences: [String: String] = [:]
    /// Where statements are reported (`PersistentStore.trace`); kept here while SQLite holds a
    /// pointer to it.
    var tracer: SQLTracer?

    /// Connects to a PostgreSQL database: `connectionString` is a libpq connection string
    /// (`host=/run/postgresql dbname=app`) or URL (`postgresql://user@host/app`).
    public init(postgres connectionString: String) throws(DatabaseError) {
        postgres = try PostgresConnection(connectionString)
        dialect = .postgres
        isFile = false
        busyTimeout = 0
    }

    /// Opens (creating if needed) the database at `path`; `":memory:"` opens a private in-memory one.
    /// File databases use WAL (unless `wal` is false: the caller switches with `useWAL()` once it
    /// knows the file is its own), foreign keys are enforced, and a busy database is retried for
    /// `busyTimeout` milliseconds.
    public convenience init(path: String, busyTimeout: Int32 = 5_000, wal: Bool = true) throws(DatabaseError) {
        try self.init(path: path, busyTimeout: busyTimeout, wal: wal, readOnly: false)
    }

    /// Opens the database at `path`; read-only opens an existing file that nothing is written to
    /// (its temporary schema can still hold views).
    init(path: String, busyTimeout: Int32 = 5_000, wal: Bool, readOnly: Bool) throws(DatabaseError) {
        postgres = nil
        dialect = .sqlite
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
        if wal { try useWAL() }
    }

    let isFile: Bool
    private let busyTimeout: Int32

    /// Switches a file database to WAL with `synchronous = NORMAL` (nothing for one in memory).
    func useWAL() throws(DatabaseError) {
        guard isFile, postgres == nil else { return }
        try enableWAL(busyTimeout: busyTimeout)
        try execute("PRAGMA synchronous = NORMAL")
    }

    /// Switches a file database to WAL. The switch needs the database to itself and SQLite does
    /// not wait for that (no busy handler), so a database another process is opening at the same
    /// moment is retried until `busyTimeout` runs out.
    private func enableWAL(busyTimeout: Int32) throws(DatabaseError) {
        var waited: Int32 = 0
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                return
            } catch {
                guard error.isBusy, waited < busyTimeout else {
                    throw error
                }
                usleep(2_000)
                waited += 2
            }
        }
    }

    deinit { close() }

    /// Finalizes the cached statements and closes the database.
    public func close() {
        cache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    var pointer: OpaquePointer {
        guard let handle else { preconditionFailure("the connection is closed") }
        return handle
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(DatabaseError) {
        if let postgres { return try postgres.execute(sql) }
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(pointer, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(pointer))
            sqlite3_free(message)
            throw DatabaseError(.sqlite, text, sql: sql, sqliteCode: sqlite3_extended_errcode(pointer))
        }
    }

    /// A prepared statement for `sql`, from the cache when it was prepared before (reset, bindings cleared).
    public func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// A new prepared statement, not cached.
    public func makeStatement(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// `IMMEDIATE` takes the write lock up front, so a busy database is waited for at the start
    /// instead of failing half-way.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            try execute(postgres == nil ? "BEGIN IMMEDIATE" : "BEGIN")
        } catch  where error.code == .connectionLost {
            // Nothing of the transaction ran: a session the server closed while the connection
            // was idle (a restart, a failover) is opened again, and the transaction begins there.
            try reconnectIfNeeded()
            try execute("BEGIN")
        }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Resets every statement that stopped before its last row. A statement left that way keeps
    /// a read transaction open: the connection would go on reading an old snapshot of the file,
    /// and in WAL mode its next write would fail with `SQLITE_BUSY_SNAPSHOT` once another process
    /// has written.
    public func resetActiveStatements() {
        guard postgres == nil else { return }
        var statement = sqlite3_next_stmt(pointer, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(pointer, current)
        }
    }

    /// The row id of the last insert on this connection (SQLite; PostgreSQL has no such thing:
    /// `INSERT … RETURNING` answers there).
    /// - Throws: `.misuse` on PostgreSQL and on a closed connection.
    public var lastInsertedRowID: Int64 {
        get throws(DatabaseError) {
            guard postgres == nil, let handle else {
                throw DatabaseError(
                    .misuse,
                    postgres == nil
                        ? "the connection is closed" : "a PostgreSQL connection has no last inserted row id")
            }
            return sqlite3_last_insert_rowid(handle)
        }
    }

    /// Rows changed by the last statement (on a Core Data store, rows of the runtime's views the
    /// statement wrote, as `viewRows` counts them).
    public var changes: Int {
        if let viewRows { return viewRows.count }
        return postgres?.changes ?? Int(sqlite3_changes(pointer))
    }

    /// On a Core Data store, whose tables the runtime reads and writes through views (SQLite
    /// counts no changes for a view's `INSTEAD OF` triggers): the view rows the running statement
    /// wrote, counted by the triggers calling `modelgen_row()`.
    private(set) var viewRows: RowCounter?
    /// Per table of the runtime's layout, the query of the largest row number in use where it is
    /// not `max("_pk")` (a Core Data store also keeps a high-water mark); such tables get every
    /// new row's number from the runtime.
    var keyQueries: [String: String] = [:]
    /// What must live as long as the connection (the private copy a read-only Core Data store is
    /// read from).
    var keepAlive: AnyObject?

    final class RowCounter {
        var count = 0
    }

    /// Registers `modelgen_row()`, which counts a view row written (`changes`).
    func countViewRows() throws(DatabaseError) {
        let counter = RowCounter()
        let status = sqlite3_create_function_v2(
            pointer, "modelgen_row", 0, SQLITE_UTF8, Unmanaged.passUnretained(counter).toOpaque(),
            { context, _, _ in
                Unmanaged<RowCounter>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue().count += 1
                sqlite3_result_null(context)
            }, nil, nil, nil)
        guard status == SQLITE_OK else { throw DatabaseError(.sqlite, "cannot register modelgen_row()") }
        viewRows = counter
    }

    /// Runs the statements queued with `Statement.runQueued()` (PostgreSQL) and returns the rows
    /// each changed, in order; nothing on SQLite, where they ran at once.
    @discardableResult
    func flush() throws(DatabaseError) -> [Int] { try postgres?.flushPipeline() ?? [] }

    /// The identity sequence of `table`'s `_pk` (PostgreSQL), looked up once per connection.
    func keySequence(of table: String) throws(DatabaseError) -> String {
        if let known = sequences[table] { return known }
        let statement = try cachedStatement("SELECT pg_get_serial_sequence(?, '_pk')")
        defer { statement.reset() }
        statement.bind(EntityDescription.quoted(table), at: 1)
        guard try statement.step(), !statement.isNull(0) else {
            throw DatabaseError(.postgres, "table \(table) has no identity sequence for _pk", sql: statement.sql)
        }
        let name = statement.string(0)
        sequences[table] = name
        return name
    }

    /// How many statements are queued (their results come first in the next `flush()`).
    var queuedCount: Int { postgres?.pending.count ?? 0 }

    /// Opens a PostgreSQL session again when the server or the network dropped it (nothing on
    /// SQLite).
    func reconnectIfNeeded() throws(DatabaseError) { try postgres?.reconnectIfNeeded() }

    func error(_ sql: String?) -> DatabaseError {
        DatabaseError(
            .sqlite, String(cString: sqlite3_errmsg(pointer)), sql: sql, sqliteCode: sqlite3_extended_errcode(pointer))
    }
}
