/// One statement a store ran on its database: the SQL as it was prepared (parameters as `?` or
/// `$n`; bound values are never included) and how long it took. `PersistentStore.trace` receives
/// one for every statement: queries, writes, and transaction control.
public struct SQLTraceEvent: Sendable {
    public var sql: String
    public var duration: Duration

    public init(sql: String, duration: Duration) {
        self.sql = sql
        self.duration = duration
    }
}

/// The handler a store's connections report to. One object per `trace` setting, kept by each
/// connection while SQLite holds a pointer to it.
final class SQLTracer: Sendable {
    let handler: @Sendable (SQLTraceEvent) -> Void

    init(_ handler: @escaping @Sendable (SQLTraceEvent) -> Void) { self.handler = handler }
}

extension PostgresConnection {
    /// Runs `body` and reports it as `sql` when a tracer is set.
    @inline(__always)
    func traced<T>(_ sql: @autoclosure () -> String, _ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        guard let tracer else { return try body() }
        let start = ContinuousClock.now
        defer { tracer.handler(SQLTraceEvent(sql: sql(), duration: ContinuousClock.now - start)) }
        return try body()
    }
}
