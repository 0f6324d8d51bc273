import Foundation

/// Connections of one kind for one store, each used by one thread at a time: up to `capacity`,
/// opened as they are needed. The store's `ConnectionScheduler` holds one pool for writes and, on
/// a SQLite file, one for reads.
///
/// A thread keeps the connection it took for as long as its outermost use lasts: a use nested in
/// another (a save's reads inside its transaction, a relationship read while rows are being
/// turned into objects) runs on the same connection. When the outermost use ends, statements that
/// stopped early are reset, so no read transaction outlives it.
final class ConnectionPool: @unchecked Sendable {
    let capacity: Int
    /// Opens one more connection; `nil` when the pool has only the one it was made with.
    private let open: (@Sendable () throws(DatabaseError) -> Connection)?
    private let condition = NSCondition()
    private var idle: [Connection]
    private var opened: Int
    /// The store's statement tracer, handed to each connection as it is taken.
    private var currentTracer: SQLTracer?

    /// A pool of `first` and up to `capacity - 1` more that `open` opens.
    init(first: Connection?, capacity: Int, open: (@Sendable () throws(DatabaseError) -> Connection)?) {
        self.capacity = max(1, capacity)
        self.open = open
        idle = first.map { [$0] } ?? []
        opened = idle.count
    }

    func setTracer(_ tracer: SQLTracer?) {
        // Each connection takes it the next time it is taken.
        condition.lock()
        currentTracer = tracer
        condition.unlock()
    }

    /// The connection of this pool the current thread holds (a use of it is running further out).
    var heldByCurrentThread: Connection? { HeldConnections.connection(of: self) }

    /// Runs `body` with the connection this thread holds, or one taken from the pool (waiting for
    /// one when all are in use) and given back afterwards.
    func with<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        if let held = heldByCurrentThread { return try body(held) }
        return try use(acquire(waiting: true)!, body)
    }

    /// Runs `body` with `connection`, taken from this pool, as the thread's connection of the
    /// pool; gives it back afterwards.
    func use<T, E: Error>(_ connection: Connection, _ body: (Connection) throws(E) -> T) throws(E) -> T {
        HeldConnections.hold(connection, of: self)
        defer {
            HeldConnections.release(of: self)
            connection.resetActiveStatements()
            release(connection)
        }
        // A dropped session is opened again here; if that fails, so does the first statement,
        // with `.connectionLost`.
        try? connection.reconnectIfNeeded()
        return try body(connection)
    }

    /// An idle connection, or a new one while fewer than `capacity` are open. A connection that
    /// cannot be opened (the server refuses more, the file cannot be opened again) is not counted:
    /// the caller waits for an idle one, or with `waiting` false, or when none is open to wait
    /// for, gets `nil`.
    func acquire(waiting: Bool) -> Connection? {
        condition.lock()
        while true {
            if let connection = idle.popLast() {
                let tracer = currentTracer
                condition.unlock()
                if connection.tracer !== tracer { connection.setTracer(tracer) }
                return connection
            }
            if opened < capacity, let open {
                opened += 1
                let tracer = currentTracer
                condition.unlock()
                if let connection = try? open() {
                    connection.setTracer(tracer)
                    return connection
                }
                condition.lock()
                opened -= 1
                if opened == 0 {
                    condition.unlock()
                    return nil
                }
            }
            guard waiting, opened > 0 else {
                condition.unlock()
                return nil
            }
            condition.wait()
        }
    }

    private func release(_ connection: Connection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}

/// Which connection each thread holds of each pool: one thread-specific list per thread, under
/// one key for the process (a key per pool would run out: the oracle opens thousands of stores).
/// A thread holds at most a few at once, so the list is searched from its end. The list also
/// names the `StoreExecutor` the thread belongs to, if any.
enum HeldConnections {
    final class List {
        var entries: [(pool: ObjectIdentifier, connection: Connection)] = []
        /// The `StoreExecutor` whose thread this is, if any.
        var executor: ObjectIdentifier?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<List>.fromOpaque(pointer).release()
        }
        precondition(status == 0, "no thread-specific key for the connections threads hold")
        return key
    }()

    private static var list: List {
        if let pointer = pthread_getspecific(key) { return Unmanaged<List>.fromOpaque(pointer).takeUnretainedValue() }
        let list = List()
        pthread_setspecific(key, Unmanaged.passRetained(list).toOpaque())
        return list
    }

    /// The `StoreExecutor` whose thread the current thread is.
    static var currentExecutor: ObjectIdentifier? {
        get {
            guard let pointer = pthread_getspecific(key) else { return nil }
            return Unmanaged<List>.fromOpaque(pointer).takeUnretainedValue().executor
        }
        set { list.executor = newValue }
    }

    static func connection(of pool: ConnectionPool) -> Connection? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let entries = Unmanaged<List>.fromOpaque(pointer).takeUnretainedValue().entries
        let identity = ObjectIdentifier(pool)
        for entry in entries.reversed() where entry.pool == identity { return entry.connection }
        return nil
    }

    static func hold(_ connection: Connection, of pool: ConnectionPool) {
        list.entries.append((ObjectIdentifier(pool), connection))
    }

    /// Ends the latest hold of `pool` (holds end in the reverse order they began).
    static func release(of pool: ConnectionPool) {
        let list = list
        let identity = ObjectIdentifier(pool)
        if let index = list.entries.lastIndex(where: { $0.pool == identity }) { list.entries.remove(at: index) }
    }
}
