/// A connection to one database, with a cache of prepared statements: a SQLite database (a file
/// or in memory), or a PostgreSQL database through libpq. The engine is the connection's driver
/// (`SQLiteConnection`, `PostgresConnection`); what is the same on both lives here.
///
/// A connection is used by one thread at a time; `PersistentStore` hands connections out.
/// Every SQLite failure is a `DatabaseError` with code `.sqlite`, the SQL and SQLite's result
/// code; PostgreSQL failures are classified by SQLSTATE (`EngineErrorCodes.swift`).
@_spi(Database) public final class Connection {
    /// The engine.
    let driver: any ConnectionDriver
    /// The SQL this connection's database speaks.
    public let dialect: StoreDialect
    private var cache: [String: Statement] = [:]
    private var sequences: [String: String] = [:]
    /// Where statements are reported (`PersistentStore.trace`); kept here while SQLite holds a
    /// pointer to it.
    var tracer: SQLTracer?

    private init(driver: any ConnectionDriver) {
        self.driver = driver
        dialect = driver.dialect
    }

    /// Connects to a PostgreSQL database: `connectionString` is a libpq connection string
    /// (`host=/run/postgresql dbname=app`) or URL (`postgresql://user@host/app`).
    public convenience init(postgres connectionString: String) throws(DatabaseError) {
        self.init(driver: try PostgresConnection(connectionString))
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
    convenience init(path: String, busyTimeout: Int32 = 5_000, wal: Bool, readOnly: Bool) throws(DatabaseError) {
        let sqlite = try SQLiteConnection(path: path, busyTimeout: busyTimeout, readOnly: readOnly)
        self.init(driver: sqlite)
        if wal { try sqlite.useWAL() }
    }

    /// The SQLite driver, on SQLite (for what only SQLite has: WAL, functions of its own).
    var sqlite: SQLiteConnection? { driver as? SQLiteConnection }
    /// The PostgreSQL driver, on PostgreSQL.
    var postgres: PostgresConnection? { driver as? PostgresConnection }

    /// Whether the database is a file of its own (SQLite, not in memory).
    var isFile: Bool { sqlite?.isFile ?? false }

    /// Switches a SQLite file database to WAL with `synchronous = NORMAL` (nothing for one in
    /// memory, nothing on PostgreSQL).
    func useWAL() throws(DatabaseError) { try sqlite?.useWAL() }

    deinit { close() }

    /// Finalizes the cached statements and closes the database.
    public func close() {
        cache.removeAll()
        driver.close()
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(DatabaseError) { try driver.execute(sql) }

    /// A prepared statement for `sql`, from the cache when it was prepared before (reset, bindings cleared).
    public func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try makeStatement(sql)
        cache[sql] = statement
        return statement
    }

    /// A new prepared statement, not cached.
    public func makeStatement(_ sql: String) throws(DatabaseError) -> Statement {
        Statement(connection: self, sql: sql, engine: try driver.prepare(sql))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// On SQLite `IMMEDIATE` takes the write lock up front, so a busy database is waited for at
    /// the start instead of failing half-way.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            try execute(driver.beginTransaction)
        } catch  where error.code == .connectionLost {
            // Nothing of the transaction ran: a session the server closed while the connection
            // was idle (a restart, a failover) is opened again, and the transaction begins there.
            try reconnectIfNeeded()
            try execute(driver.beginTransaction)
        }
        do {
            let result = try body()
            try driver.commit()
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
    public func resetActiveStatements() { driver.resetActiveStatements() }

    /// The row id of the last insert on this connection (SQLite; PostgreSQL has no such thing:
    /// `INSERT … RETURNING` answers there).
    /// - Throws: `.misuse` on PostgreSQL and on a closed connection.
    public var lastInsertedRowID: Int64 {
        get throws(DatabaseError) { try driver.lastInsertedRowID }
    }

    /// Rows changed by the last statement (on a Core Data store, rows of the runtime's views the
    /// statement wrote, as `viewRows` counts them).
    public var changes: Int {
        if let viewRows { return viewRows.count }
        return driver.changes
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

    /// Registers `modelgen_row()`, which counts a view row written (`changes`); SQLite only.
    func countViewRows() throws(DatabaseError) {
        guard let sqlite else { throw DatabaseError(.misuse, "view rows are counted on SQLite only") }
        let counter = RowCounter()
        try sqlite.registerRowCounter(counter)
        viewRows = counter
    }

    /// Reports every statement of this connection to `tracer`; `nil` stops reporting.
    func setTracer(_ tracer: SQLTracer?) {
        self.tracer = tracer
        driver.setTracer(tracer)
    }

    /// Runs the statements queued with `Statement.runQueued()` (PostgreSQL) and returns the rows
    /// each changed, in order; nothing on SQLite, where they ran at once.
    @discardableResult
    func flush() throws(DatabaseError) -> [Int] { try driver.flush() }

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

    /// Whether new rows take their numbers from the table's identity sequence (PostgreSQL)
    /// rather than one past the largest in use (SQLite).
    var numbersRowsFromSequence: Bool { driver.numbersRowsFromSequence }
    /// Whether writes that need nothing back are queued for pipelines (PostgreSQL).
    var pipelinesWrites: Bool { driver.pipelinesWrites }

    /// How many statements are queued (their results come first in the next `flush()`).
    var queuedCount: Int { driver.queuedCount }

    /// Opens a PostgreSQL session again when the server or the network dropped it (nothing on
    /// SQLite).
    func reconnectIfNeeded() throws(DatabaseError) { try driver.reconnectIfNeeded() }
}
