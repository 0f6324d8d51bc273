import Foundation

/// What one save changed, as other contexts on the store learn it.
struct StoreChanges: Sendable {
    var sequence: Int
    /// The context that saved (it needs no merge).
    var origin: ObjectIdentifier
    var inserted: [ObjectID]
    var updated: [ObjectID]
    var deleted: [ObjectID]
    /// Too many changes to list (or changes of another process, not listed): merging refreshes
    /// every object.
    var isLarge = false
    /// Whether a context of this store saved (else another store or process did).
    var isLocal = true
}

/// The objects one save inserted, updated and deleted.
typealias SavedChanges = (inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID])

/// The store's recent saves, for contexts to merge (thread-safe). Keeps at least the last
/// `capacity`; a context further behind refreshes everything instead.
final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [StoreChanges] = []
    private var nextSequence = 1
    private let capacity = 256
    /// Who is told of each save, by subscription number, and in that order.
    private var subscribers: [Int: @Sendable (StoreChanges) -> Void] = [:] {
        didSet { told = subscribers.sorted { $0.key < $1.key }.map(\.value) }
    }
    private var told: [@Sendable (StoreChanges) -> Void] = []
    private var nextSubscriber = 1

    /// The sequence number the next save gets (a new context has seen everything before it).
    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return nextSequence
    }

    /// A save changing more objects than this is recorded without its identifiers: contexts
    /// merging it refresh everything (the log stays small).
    static let largeSave = 10_000

    /// Records a save; `changes` is `nil` for a save larger than `largeSave` (or one whose
    /// objects are not known). Subscribers are told on the calling thread, after the log is
    /// updated and unlocked.
    func record(origin: ObjectIdentifier, changes: SavedChanges?, isLocal: Bool = true) {
        lock.lock()
        let entry = StoreChanges(
            sequence: nextSequence, origin: origin, inserted: changes?.inserted ?? [], updated: changes?.updated ?? [],
            deleted: changes?.deleted ?? [], isLarge: changes == nil, isLocal: isLocal)
        entries.append(entry)
        nextSequence += 1
        // Trimmed in steps of `capacity`, not one entry per save (each trim moves the rest).
        if entries.count >= 2 * capacity { entries.removeFirst(entries.count - capacity) }
        let told = told
        lock.unlock()
        for subscriber in told { subscriber(entry) }
    }

    /// Calls `body` after every save recorded from now on; returns the subscription's number.
    func subscribe(_ body: @escaping @Sendable (StoreChanges) -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let number = nextSubscriber
        nextSubscriber += 1
        subscribers[number] = body
        return number
    }

    func unsubscribe(_ number: Int) {
        lock.lock()
        defer { lock.unlock() }
        subscribers[number] = nil
    }

    var hasSubscribers: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !subscribers.isEmpty
    }

    /// The saves since `sequence` (exclusive of earlier ones), and whether some were dropped.
    func changes(since sequence: Int) -> (changes: [StoreChanges], complete: Bool, next: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard let first = entries.first?.sequence else { return ([], true, nextSequence) }
        // Sequences are consecutive: the entry of `sequence` is at `sequence - first`.
        let start = min(max(sequence - first, 0), entries.count)
        return (Array(entries[start...]), first <= sequence || sequence >= nextSequence, nextSequence)
    }
}

/// A weak reference to a context bound to a queue or an actor, handed to the change log's
/// subscriber (which runs on the saving thread) and read only on the context's queue or actor.
final class MergeTarget: @unchecked Sendable {
    weak var context: ObjectContext?
    private let lock = NSLock()
    private var isMergeScheduled = false

    init(_ context: ObjectContext) { self.context = context }

    /// Whether a merge is to be scheduled now: none is scheduled and not yet started.
    func scheduleMerge() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isMergeScheduled else { return false }
        isMergeScheduled = true
        return true
    }

    /// The scheduled merge starts: a save noticed from now on schedules another.
    func mergeStarted() {
        lock.lock()
        isMergeScheduled = false
        lock.unlock()
    }
}
