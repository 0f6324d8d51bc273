/// PostgreSQL as `Connection`'s driver.
extension PostgresConnection: ConnectionDriver {
    var dialect: StoreDialect { .postgres }
    var beginTransaction: String { "BEGIN" }
    var numbersRowsFromSequence: Bool { true }
    var pipelinesWrites: Bool { true }

    func prepare(_ sql: String) throws(DatabaseError) -> Statement.Engine {
        .postgres(PostgresStatement(connection: self, sql: sql))
    }

    var lastInsertedRowID: Int64 {
        get throws(DatabaseError) {
            throw DatabaseError(.misuse, "a PostgreSQL connection has no last inserted row id")
        }
    }

    /// Statements end with their result: nothing stays open.
    func resetActiveStatements() {}

    /// A migration changes no session setting here.
    func restoreSettingsAfterMigration() {}

    @discardableResult
    func flush() throws(DatabaseError) -> [Int] { try flushPipeline() }

    var queuedCount: Int { pending.count }

    func setTracer(_ tracer: SQLTracer?) { self.tracer = tracer }

    /// The session ends when the connection is released (`PQfinish` in `deinit`).
    func close() {}
}

extension PostgresStatement: StatementDriver {
    func resetForRebinding() { clearResult() }
}
