import Foundation

/// The PostgreSQL connections of one store: up to `capacity`, opened as they are needed, each used
/// by one thread at a time, so that contexts on different threads (and `perform`) work on the
/// server at once instead of waiting for one connection.
///
/// A thread keeps the connection it took for as long as its outermost use lasts: a save's nested
/// reads run in the save's transaction, on its connection.
final class ConnectionPool: @unchecked Sendable {
    private let connectionString: String
    let capacity: Int
    private let condition = NSCondition()
    private var idle: [Connection]
    private var opened: Int
    /// The key under which a thread records the connection it holds.
    private let threadKey: String
    /// The store's statement tracer, handed to each connection as it is taken.
    private var currentTracer: SQLTracer?

    func setTracer(_ tracer: SQLTracer?) {
        condition.lock()
        currentTracer = tracer
        condition.unlock()
    }

    init(first: Connection, connectionString: String, capacity: Int) {
        self.connectionString = connectionString
        self.capacity = max(1, capacity)
        idle = [first]
        opened = 1
        threadKey = "modelgen.pool.\(UUID().uuidString)"
    }

    /// Runs `body` with the connection this thread holds, or one taken from the pool (waiting for
    /// one when all are in use) and given back afterwards.
    func with<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        let threadDictionary = Thread.current.threadDictionary
        if let held = threadDictionary[threadKey] as? Connection { return try body(held) }
        let connection = acquire()
        threadDictionary[threadKey] = connection
        defer {
            threadDictionary.removeObject(forKey: threadKey)
            release(connection)
        }
        // A dropped session is opened again here; if that fails, so does the first statement,
        // with `.connectionLost`.
        if connection.postgres?.isConnected == false { try? connection.reconnectIfNeeded() }
        return try body(connection)
    }

    /// Whether this thread holds a connection of the pool (a use of it is running further out,
    /// such as a save's transaction).
    var isHeldByCurrentThread: Bool { Thread.current.threadDictionary[threadKey] != nil }

    /// An idle connection, or a new one while fewer than `capacity` are open. A connection that
    /// cannot be opened (the server refuses more) is not counted: the caller waits for an idle one.
    private func acquire() -> Connection {
        condition.lock()
        while true {
            if let connection = idle.popLast() {
                let tracer = currentTracer
                condition.unlock()
                if connection.tracer !== tracer { connection.setTracer(tracer) }
                return connection
            }
            if opened < capacity {
                opened += 1
                let tracer = currentTracer
                condition.unlock()
                if let connection = try? Connection(postgres: connectionString) {
                    connection.setTracer(tracer)
                    return connection
                }
                condition.lock()
                opened -= 1
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
