import CLibPQ
import Foundation

/// One libpq connection to a PostgreSQL database, used by one thread at a time (a
/// `PersistentStore` serializes its use, as it does a SQLite connection; a change feed hands its
/// listening connection to its thread and no longer touches it).
///
/// Failures are `DatabaseError`s classified by SQLSTATE, never by message text: a lost connection
/// is `.connectionLost` (retryable: the next use reconnects), a serialization failure or deadlock
/// `.conflict`, everything else `.postgres` with `sqlState` set.
final class PostgresConnection: @unchecked Sendable {
    /// The libpq connection (used by this file and the pipeline).
    let handle: OpaquePointer
    /// Bumped by every reconnect: statements prepared on the old session are prepared again.
    private(set) var generation = 0
    private var preparedCount = 0
    /// Rows changed by the last command.
    var changes = 0
    /// Commands queued for the next pipeline (`PostgresPipeline.swift`).
    var pending: [PostgresCommand] = []
    /// Where statements are reported (`PersistentStore.trace`).
    var tracer: SQLTracer?

    init(_ connectionString: String) throws(DatabaseError) {
        guard let opened = PQconnectdb(connectionString) else {
            throw DatabaseError(.postgres, "cannot connect to PostgreSQL: out of memory")
        }
        guard PQstatus(opened) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(opened)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(opened)
            throw DatabaseError(
                .postgres, "cannot connect to PostgreSQL (\(Self.redacted(connectionString))): \(message)")
        }
        handle = opened
        try configure()
    }

    deinit { PQfinish(handle) }

    /// Session settings every connection runs with: UTF-8, and no notices on standard error (a
    /// library does not write to the application's streams; errors come as `DatabaseError`s).
    private func configure() throws(DatabaseError) {
        PQsetClientEncoding(handle, "UTF8")
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        try execute("SET client_min_messages = warning")
    }

    /// A connection string with its password left out, for messages.
    static func redacted(_ text: String) -> String {
        text.replacing(/password=\S*/, with: "password=…").replacing(/:\/\/([^:@\/]*):[^@]*@/) { match in
            "://\(match.output.1):…@"
        }
    }

    var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Opens the session again after the server or the network dropped it.
    /// - Throws: `.connectionLost` when the server cannot be reached.
    func reconnectIfNeeded() throws(DatabaseError) {
        guard !isConnected else { return }
        PQreset(handle)
        guard isConnected else {
            throw DatabaseError(
                .connectionLost, "the connection to PostgreSQL is lost and could not be opened again: \(lastMessage)")
        }
        generation += 1
        try configure()
    }

    var lastMessage: String { String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Runs one or more statements without parameters (the simple query protocol).
    func execute(_ sql: String) throws(DatabaseError) {
        if !pending.isEmpty { try flushPipeline() }
        try traced(sql) { () throws(DatabaseError) in
            let result = PQexec(handle, sql)
            defer { PQclear(result) }
            try check(result, sql: sql)
        }
    }

    /// Prepares `sql` (parameters `$1`…) under a new name, with the parameter types given.
    func prepare(_ sql: String, types: [Oid]) throws(DatabaseError) -> String {
        preparedCount += 1
        let name = "modelgen_\(preparedCount)"
        let result = PQprepare(handle, name, sql, Int32(types.count), types.isEmpty ? nil : types)
        defer { PQclear(result) }
        try check(result, sql: sql)
        return name
    }

    /// Throws the error `result` reports (or the connection's, when there is no result).
    func check(_ result: OpaquePointer?, sql: String) throws(DatabaseError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw error(result, sql: sql)
        }
    }

    func error(_ result: OpaquePointer?, sql: String?) -> DatabaseError {
        func field(_ code: Int32) -> String? {
            guard let result, let text = PQresultErrorField(result, code) else { return nil }
            return String(cString: text)
        }
        let state = field(modelgen_pg_diag_sqlstate())
        let message = field(modelgen_pg_diag_primary()) ?? lastMessage
        let detail = field(modelgen_pg_diag_detail())
        let text = detail.map { "\(message) (\($0))" } ?? message
        var error = DatabaseError(.of(sqlState: state, connected: isConnected), text, sql: sql)
        error.sqlState = state
        error.table = field(modelgen_pg_diag_table())
        error.detail = detail
        return error
    }

    /// Runs a prepared statement with binary results (after the queued commands).
    func run(
        _ name: String, values: [UnsafePointer<CChar>?], lengths: [Int32], formats: [Int32]
    ) -> OpaquePointer? {
        PQexecPrepared(handle, name, Int32(values.count), values, lengths, formats, 1)
    }
}

extension PostgresConnection {
    /// The connection's socket, to wait on for notifications.
    var socket: Int32 { PQsocket(handle) }

    /// Reads what the server sent; `false` when the connection failed.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 }

    /// The payloads of the notifications received so far.
    func drainNotifications() -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }
}
