import Foundation

/// Notices saves that other processes (or other stores in this process) make to the same SQLite
/// file: while the store has subscribers, a thread asks SQLite every `interval` whether another
/// connection committed (`PRAGMA data_version`, one integer, no table read) and records such a
/// commit in the store's change log as a change whose objects are not listed. Contexts merging
/// it refresh their objects; observed results fetch again.
final class ExternalChangeWatcher: @unchecked Sendable {
    private weak var store: PersistentStore?
    private let interval: TimeInterval
    private let lock = NSLock()
    private var isRunning = false
    /// The origin of the changes it records: no context has it.
    private let origin = ObjectIdentifier(ExternalChangeWatcher.self)

    init(store: PersistentStore, interval: TimeInterval) {
        self.store = store
        self.interval = interval
    }

    /// Starts the thread unless it runs; it ends once nobody subscribes.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !isRunning, let store else { return }
        isRunning = true
        let baseline = try? Self.dataVersion(store)
        let thread = Thread { [self] in watch(from: baseline) }
        thread.name = "modelgen external changes"
        thread.start()
    }

    private func watch(from baseline: Int64?) {
        var seen = baseline
        while true {
            Thread.sleep(forTimeInterval: interval)
            lock.lock()
            guard let store, store.changeLog.hasSubscribers else {
                isRunning = false
                lock.unlock()
                return
            }
            lock.unlock()
            guard let now = try? Self.dataVersion(store) else { continue }
            if let seen, now != seen { store.changeLog.record(origin: origin, changes: nil, isLocal: false) }
            seen = now
        }
    }

    /// SQLite's count of other connections' commits, as this connection sees it.
    private static func dataVersion(_ store: PersistentStore) throws(DatabaseError) -> Int64 {
        try store.withConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement("PRAGMA data_version")
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int64(0)
        }
    }
}
