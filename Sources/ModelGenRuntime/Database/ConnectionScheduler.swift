import Foundation

/// Hands a store's connections to the threads that work on it, the same way on every engine:
/// writes (a save's transaction, batch operations, migrations) go to `writers`, reads to
/// `readers` where the store has them.
///
/// - SQLite file: one writer (SQLite lets one connection write at a time; its pool has one
///   connection, so saves are serialized here rather than by the busy handler) and up to
///   `OpenOptions.connections` read-only connections, which WAL lets read while the writer
///   writes. Each read statement sees the database as one commit left it, never half a save.
/// - SQLite in memory, and a store Core Data wrote (whose views live in one connection's
///   temporary schema): one connection for everything.
/// - PostgreSQL: up to `OpenOptions.connections` sessions that write and as many that read, so
///   fetches never keep a save waiting for a session (nor saves a fetch); the server keeps
///   concurrent transactions apart.
///
/// A read on a thread that holds a writer (inside a save) runs on that writer, so it sees the
/// save's own rows; a read inside another read keeps its connection.
final class ConnectionScheduler: Sendable {
    let writers: ConnectionPool
    let readers: ConnectionPool?

    init(writers: ConnectionPool, readers: ConnectionPool? = nil) {
        self.writers = writers
        self.readers = readers
    }

    /// One connection for everything.
    convenience init(single connection: Connection) {
        self.init(writers: ConnectionPool(first: connection, capacity: 1, open: nil))
    }

    /// The writer of a SQLite file and a pool of up to `readers` connections that only read it.
    static func sqliteFile(writer: Connection, path: String, readers: Int) -> ConnectionScheduler {
        let pool = ConnectionPool(first: nil, capacity: readers) { () throws(DatabaseError) -> Connection in
            let reader = try Connection(path: path, wal: false, readOnly: false)
            try reader.execute("PRAGMA query_only = ON")
            return reader
        }
        return ConnectionScheduler(
            writers: ConnectionPool(first: writer, capacity: 1, open: nil), readers: readers > 0 ? pool : nil)
    }

    /// Sessions of one PostgreSQL database: `first` and up to `connections - 1` more that write,
    /// up to `connections` that read, each opened when it is needed.
    static func postgres(first: Connection, connectionString: String, connections: Int) -> ConnectionScheduler {
        let open: @Sendable () throws(DatabaseError) -> Connection = { () throws(DatabaseError) in
            try Connection(postgres: connectionString)
        }
        return ConnectionScheduler(
            writers: ConnectionPool(first: first, capacity: connections, open: open),
            readers: ConnectionPool(first: nil, capacity: connections, open: open))
    }

    /// How many connections can work at once.
    var capacity: Int { writers.capacity + (readers?.capacity ?? 0) }

    func write<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T { try writers.with(body) }

    func read<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        if let held = writers.heldByCurrentThread { return try body(held) }
        guard let readers else { return try writers.with(body) }
        if let held = readers.heldByCurrentThread { return try body(held) }
        // No reader could be opened at all: the writer reads too.
        guard let reader = readers.acquire(waiting: true) else { return try writers.with(body) }
        return try readers.use(reader, body)
    }

    /// Whether this thread holds a connection of the store (a use of it runs further out, such
    /// as a save's transaction).
    var isHoldingOnCurrentThread: Bool {
        writers.heldByCurrentThread != nil || readers?.heldByCurrentThread != nil
    }

    func setTracer(_ tracer: SQLTracer?) {
        writers.setTracer(tracer)
        readers?.setTracer(tracer)
    }
}
