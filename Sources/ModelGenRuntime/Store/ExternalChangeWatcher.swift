import Foundation

/// Notices saves that other processes (or other stores in this process) make to the same SQLite
/// file: SQLite counts other connections' commits (`PRAGMA data_version`, one integer, no table
/// read), and a count that moved is recorded in the store's change log as a change whose objects
/// are not listed — contexts merging it read their objects again, observed results fetch again.
///
/// The count is checked every `interval` on a thread of its own while the store has subscribers
/// (observed results, `observeChanges`), which must hear of saves unasked; otherwise when a
/// context merges (`mergeChangesFromStore()`, so automatic merging sees other processes' saves
/// too).
final class ExternalChangeWatcher: @unchecked Sendable {
    private weak var store: PersistentStore?
    private let interval: TimeInterval
    private let lock = NSLock()
    private var isRunning = false
    /// The count last seen.
    private var seen: Int64?
    /// The origin of the changes it records: no context has it.
    private let origin = ObjectIdentifier(ExternalChangeWatcher.self)

    init(store: PersistentStore, interval: TimeInterval) {
        self.store = store
        self.interval = interval
        seen = try? Self.dataVersion(store)
    }

    /// Records a change when another connection committed since the last check.
    func check() {
        guard let store, let now = try? Self.dataVersion(store) else { return }
        lock.lock()
        let moved = seen != nil && seen != now
        seen = now
        lock.unlock()
        if moved { store.changeLog.record(origin: origin, changes: nil, isLocal: false) }
    }

    /// Checks, unless the thread does (then a merge does not wait for the database).
    func checkUnlessWatching() {
        lock.lock()
        let watching = isRunning
        lock.unlock()
        if !watching { check() }
    }

    /// Starts the thread unless it runs; it ends once nobody subscribes.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !isRunning, store != nil else { return }
        isRunning = true
        let thread = Thread { [self] in watch() }
        thread.name = "modelgen external changes"
        thread.start()
    }

    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: interval)
            lock.lock()
            guard let store, store.changeLog.hasSubscribers else {
                isRunning = false
                lock.unlock()
                return
            }
            lock.unlock()
            check()
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
