/// What one database engine provides to `Connection`: a driver per engine (`SQLiteConnection`,
/// `PostgresConnection`), so that no type holds the handles of two engines and what differs
/// between them lives here, not in contexts or stores.
///
/// `Connection` holds one driver and adds what is the same on every engine: the statement cache,
/// transactions, tracing state, the bookkeeping of a Core Data store's views.
protocol ConnectionDriver: AnyObject {
    /// The SQL this engine speaks.
    var dialect: StoreDialect { get }
    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(DatabaseError)
    /// Prepares `sql` (parameters as `?`) for `Statement`.
    func prepare(_ sql: String) throws(DatabaseError) -> Statement.Engine
    /// What opens a write transaction (SQLite takes its write lock up front).
    var beginTransaction: String { get }
    /// Whether new rows take their numbers from the table's identity sequence (PostgreSQL, where
    /// many sessions insert at once) rather than one past the largest in use (SQLite, whose save
    /// holds the database's write lock).
    var numbersRowsFromSequence: Bool { get }
    /// Whether writes that need nothing back are queued and sent in pipelines
    /// (`Statement.runQueued`, `flush`) rather than run at once.
    var pipelinesWrites: Bool { get }
    /// Rows changed by the last statement.
    var changes: Int { get }
    /// The row id of the last insert, where the engine has one.
    var lastInsertedRowID: Int64 { get throws(DatabaseError) }
    /// Ends every statement that stopped before its last row (SQLite keeps a read transaction
    /// open for each).
    func resetActiveStatements()
    /// Runs the statements queued with `Statement.runQueued()` and returns the rows each changed
    /// (PostgreSQL's pipeline; nothing on SQLite, where they ran at once).
    func flush() throws(DatabaseError) -> [Int]
    /// Commits the open transaction, after the queued statements (on PostgreSQL in their
    /// pipeline); a queued statement's error fails the commit.
    func commit() throws(DatabaseError)
    /// How many statements are queued.
    var queuedCount: Int { get }
    /// Opens a session the server or the network dropped again (PostgreSQL).
    func reconnectIfNeeded() throws(DatabaseError)
    /// Reports every statement to `tracer`; `nil` stops reporting.
    func setTracer(_ tracer: SQLTracer?)
    /// Puts back the session settings a migration's statements change (SQLite's
    /// `legacy_alter_table` and `foreign_keys`) after it failed and was rolled back.
    func restoreSettingsAfterMigration()
    func close()
}

/// What one engine's prepared statement provides to `Statement` (`SQLiteStatement`,
/// `PostgresStatement`). `Statement` dispatches to them by a `switch` over `Statement.Engine`
/// rather than through this protocol, so that generated code's column reads inline to the
/// engine's own call; the protocol keeps the two drivers' surfaces the same.
protocol StatementDriver {
    func bindNull(_ index: Int32)
    func bind(_ value: Int64, at index: Int32)
    func bind(_ value: Double, at index: Int32)
    func bind(_ value: Bool, at index: Int32)
    func bind(_ value: String, at index: Int32)
    func bind(_ value: [UInt8], at index: Int32)
    func bindDate(_ seconds: Double, at index: Int32)
    func bindUUID(_ bytes: [UInt8], at index: Int32)
    func bindDecimal(_ text: String, at index: Int32)
    /// Ready to run again with no values bound.
    func reset()
    /// Ready to run again, keeping the bound values.
    func resetForRebinding()
    func step() throws(DatabaseError) -> Bool
    /// Runs a statement that returns no rows.
    func execute() throws(DatabaseError)
    /// Runs a statement that returns no rows in the connection's next pipeline, where the engine
    /// has one (else at once).
    func enqueue() throws(DatabaseError)
    var columnCount: Int32 { get }
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    func date(_ column: Int32) -> Double
    func string(_ column: Int32) -> String
    func bytes(_ column: Int32) -> [UInt8]
}
