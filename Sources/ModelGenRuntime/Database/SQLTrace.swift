import CSQLite

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

extension Connection {
    /// Reports every statement of this connection to `tracer`; `nil` stops reporting. SQLite
    /// measures statements itself (`sqlite3_trace_v2`'s profile events, at no cost while unset);
    /// the PostgreSQL connection times its calls when a tracer is set.
    func setTracer(_ tracer: SQLTracer?) {
        self.tracer = tracer
        if let postgres {
            postgres.tracer = tracer
            return
        }
        guard let handle else { return }
        if let tracer {
            sqlite3_trace_v2(
                handle, UInt32(SQLITE_TRACE_PROFILE), sqliteTraceEvent, Unmanaged.passUnretained(tracer).toOpaque())
        } else {
            sqlite3_trace_v2(handle, 0, nil, nil)
        }
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
