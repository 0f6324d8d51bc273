import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the stores of one PostgreSQL database learn each other's saves, across processes: each
/// save sends `NOTIFY` on the schema's channel inside its transaction (PostgreSQL delivers it at
/// commit, and not at all when the save rolls back), and each store keeps a connection that
/// `LISTEN`s on a thread of its own and records what other stores saved in its `ChangeLog`, where
/// contexts merge it as they merge saves of the same store. Nothing polls the tables.
///
/// A notification names the store that sent it (its own saves are already in its log) and the
/// saved objects as `entity.row` lists; a save too large for a notification's 8,000 bytes is sent
/// as "large", and a store that lost its listening connection records a large change too: its
/// contexts then refresh everything, since they may have missed saves.
final class PostgresChangeFeed: @unchecked Sendable {
    /// The channel of the database and schema the connection is in.
    let channel: String
    /// This store's name in notifications.
    let origin = UUID().uuidString
    private let connectionString: String
    private weak var log: ChangeLog?
    private let stopped = NSLock()
    private var isStopped = false
    /// The origin recorded for changes of other stores: no context of this store has it.
    private let foreign = ObjectIdentifier(PostgresChangeFeed.self)

    /// Starts listening for `connection`'s database and schema.
    init(connection: Connection, connectionString: String, log: ChangeLog) throws(DatabaseError) {
        let statement = try connection.cachedStatement(
            "SELECT 'modelgen_' || md5(current_database() || '.' || current_schema())")
        defer { statement.reset() }
        _ = try statement.step()
        channel = statement.string(0)
        self.connectionString = connectionString
        self.log = log
        let listener = try PostgresConnection(connectionString)
        try listener.execute("LISTEN \"\(channel)\"")
        let thread = Thread { [self] in self.listen(listener) }
        thread.name = "modelgen change feed"
        thread.start()
    }

    /// Ends the listening thread (within half a second).
    func stop() {
        stopped.lock()
        isStopped = true
        stopped.unlock()
    }

    private var shouldStop: Bool {
        stopped.lock()
        defer { stopped.unlock() }
        return isStopped || log == nil
    }

    private func listen(_ first: PostgresConnection) {
        var listener: PostgresConnection? = first
        while !shouldStop {
            guard let connection = listener, connection.isConnected else {
                // Saves may have been missed while the connection was down: refresh everything.
                listener = try? reconnect()
                if listener != nil {
                    log?.record(origin: foreign, changes: nil, isLocal: false)
                } else {
                    usleep(200_000)
                }
                continue
            }
            for payload in connection.waitForNotifications(milliseconds: 500) {
                record(payload)
            }
        }
    }

    private func reconnect() throws -> PostgresConnection {
        let connection = try PostgresConnection(connectionString)
        try connection.execute("LISTEN \"\(channel)\"")
        return connection
    }

    // MARK: - Payloads

    /// The notification of a save: `origin|inserted|updated|deleted`, each list `entity.row`
    /// separated by commas; or `origin|large`.
    func payload(_ changes: SavedChanges?) -> String {
        guard let changes else { return origin + "|large" }
        func list(_ ids: [ObjectID]) -> String { ids.map { "\($0.entityID).\($0.rowID)" }.joined(separator: ",") }
        let text = [origin, list(changes.inserted), list(changes.updated), list(changes.deleted)].joined(separator: "|")
        return text.utf8.count < 7_900 ? text : origin + "|large"
    }

    private func record(_ payload: String) {
        let parts = payload.split(separator: "|", omittingEmptySubsequences: false)
        guard let sender = parts.first, sender != origin else { return }
        guard parts.count == 4 else {
            log?.record(origin: foreign, changes: nil, isLocal: false)
            return
        }
        func ids(_ text: Substring) -> [ObjectID] {
            text.split(separator: ",").compactMap { item in
                let numbers = item.split(separator: ".")
                guard numbers.count == 2, let entity = Int32(numbers[0]), let row = Int64(numbers[1]) else {
                    return nil
                }
                return ObjectID(entityID: entity, rowID: row)
            }
        }
        log?.record(origin: foreign, changes: (ids(parts[1]), ids(parts[2]), ids(parts[3])), isLocal: false)
    }
}

extension PostgresConnection {
    /// The payloads of the notifications that arrive within `milliseconds` (none when none do).
    func waitForNotifications(milliseconds: Int32) -> [String] {
        var payloads = drainNotifications()
        guard payloads.isEmpty else { return payloads }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return [] }
        guard consumeInput() else { return [] }
        payloads = drainNotifications()
        return payloads
    }
}
