import Foundation

/// The results of a fetch request, followed as the store changes: Core Data's fetched results
/// controller, as a value (in the way of GRDB's `ValueObservation`). It describes what to
/// observe; starting it in a context delivers the results, then after every save to the store
/// that changes them (in any context, in another store on the same PostgreSQL database, or in
/// another process on the same SQLite file) the new results and the change set that turns the
/// previous ones into them.
///
/// ```swift
/// let observation = ResultsObservation(
///     FetchRequest<Student>(predicate: \Student.year == 2, sortDescriptors: [ObjectSortDescriptor(\Student.lastName)]),
///     sectionedBy: \Student.house)
/// // As a callback, on the queue where `context` is used:
/// let handle = try observation.start(in: context, on: .main) { results in
///     tableView.apply(results.changes)
/// }
/// // Or as an asynchronous sequence, in the task that uses `context`:
/// for try await results in observation.values(in: context) { show(results.sections) }
/// ```
///
/// The results are exactly what `context.fetch(request)` returns at that moment, predicates and
/// sorts that SQL cannot express included. Observing merges the store's changes into the
/// context (`mergeChangesFromStore()`), so its objects are current when results are delivered.
/// Sectioned results are sorted by the section key first (case-sensitively, ascending unless
/// the request's first sort descriptor sorts by that key descending), then by the request's
/// sort descriptors.
public struct ResultsObservation<T: ManagedObject> {
    /// What is observed (with sectioning, the section key's sort first).
    public private(set) var request: FetchRequest<T>
    let sectionSlot: Int?
    /// Why the observation cannot run (an unsortable key path): starting it throws this.
    let failure: DatabaseError?

    /// Observes `request`, unsectioned.
    public init(_ request: FetchRequest<T> = FetchRequest()) {
        self.request = request
        sectionSlot = nil
        failure = nil
    }

    /// Observes `request` in sections, one per value of the attribute `keyPath` leads to.
    public init<V>(_ request: FetchRequest<T> = FetchRequest(), sectionedBy keyPath: KeyPath<T, V>) {
        guard let slot = T.slot(for: keyPath) else {
            self.request = request
            sectionSlot = nil
            failure = DatabaseError(
                .predicate, "cannot section by \(keyPath): it is not a stored attribute of \(T.entityDescription.name)",
                entity: T.entityDescription.name)
            return
        }
        var sectioned = request
        let first = request.sortDescriptors.first
        let ascending = first.map { $0.slot == slot ? $0.ascending : true } ?? true
        if first.map({ $0.slot != slot || $0.caseInsensitive }) ?? true {
            sectioned.sortDescriptors.insert(ObjectSortDescriptor(slot: slot, ascending: ascending), at: 0)
        }
        self.request = sectioned
        sectionSlot = slot
        failure = nil
    }

    /// Starts observing in `context`, which must be used on `queue`: the first results are
    /// delivered before this returns (call it on `queue`), later ones on `queue` after the saves
    /// that change them (saves in quick succession may come as one delivery). Keep the handle:
    /// dropping it ends the observation.
    /// - Throws: what the first fetch throws; `onError` gets what later fetches throw.
    public func start(
        in context: ObjectContext, on queue: DispatchQueue, onError: @escaping (DatabaseError) -> Void = { _ in },
        onChange: @escaping (ObservedResults<T>) -> Void
    ) throws -> ObservationHandle {
        let tracker = try makeTracker(in: context)
        let delivery = Delivery(tracker, queue, onChange, onError)
        let listening = tracker.listen { delivery.schedule() }
        let initial = try tracker.start()
        onChange(tracker.results(initial, isInitial: true))
        return ObservationHandle {
            delivery.cancel()
            listening.cancel()
        }
    }

    /// A tracker of the observation in `context`.
    /// - Throws: why the observation cannot run (a key path that cannot sort or section, a
    ///   predicate that did not compile).
    func makeTracker(in context: ObjectContext) throws(DatabaseError) -> ResultsTracker {
        if let failure = failure ?? request.predicate?.failure
            ?? request.sortDescriptors.lazy.compactMap(\.failure).first
        {
            throw failure
        }
        return ResultsTracker(context: context, request: request, sectionSlot: sectionSlot)
    }

    /// The results as an asynchronous sequence, to iterate in the task that uses `context`: the
    /// first element is the results now, each later one comes after saves that change them.
    /// The observation ends with the iteration (or the task's cancellation).
    public func values(in context: ObjectContext) -> ObservedResultsSequence<T> {
        ObservedResultsSequence(observation: self, context: context)
    }
}

/// Runs a callback observation's updates on its queue, one scheduled at a time.
private final class Delivery<T: ManagedObject>: @unchecked Sendable {
    let tracker: ResultsTracker
    private let queue: DispatchQueue
    private let onChange: (ObservedResults<T>) -> Void
    private let onError: (DatabaseError) -> Void
    private let lock = NSLock()
    private var isScheduled = false
    private var isCancelled = false

    init(
        _ tracker: ResultsTracker, _ queue: DispatchQueue, _ onChange: @escaping (ObservedResults<T>) -> Void,
        _ onError: @escaping (DatabaseError) -> Void
    ) {
        self.tracker = tracker
        self.queue = queue
        self.onChange = onChange
        self.onError = onError
    }

    /// Called after each save (on the saving thread): one update runs on the queue for all the
    /// saves before it runs.
    func schedule() {
        lock.lock()
        defer { lock.unlock() }
        guard !isScheduled, !isCancelled else { return }
        isScheduled = true
        queue.async { self.run() }
    }

    private func run() {
        lock.lock()
        isScheduled = false
        let cancelled = isCancelled
        lock.unlock()
        guard !cancelled else { return }
        do {
            if let changes = try tracker.update() { onChange(tracker.results(changes, isInitial: false)) }
        } catch {
            onError(error)
        }
    }

    func cancel() {
        lock.lock()
        isCancelled = true
        lock.unlock()
    }
}

/// The results of a `ResultsObservation` as an asynchronous sequence (see
/// `ResultsObservation.values(in:)`).
public struct ObservedResultsSequence<T: ManagedObject>: AsyncSequence {
    public typealias Element = ObservedResults<T>
    public typealias Failure = any Error

    let observation: ResultsObservation<T>
    let context: ObjectContext

    public func makeAsyncIterator() -> Iterator { Iterator(observation: observation, context: context) }

    public struct Iterator: AsyncIteratorProtocol {
        private let observation: ResultsObservation<T>
        private let context: ObjectContext
        private var tracker: ResultsTracker?
        private let signal = ChangeSignal()
        private var listening: ObservationHandle?

        init(observation: ResultsObservation<T>, context: ObjectContext) {
            self.observation = observation
            self.context = context
        }

        public mutating func next() async throws -> ObservedResults<T>? {
            try await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws
            -> ObservedResults<T>?
        {
            guard let tracker else {
                let made = try observation.makeTracker(in: context)
                let signal = signal
                listening = made.listen { signal.raise() }
                tracker = made
                return made.results(try made.start(), isInitial: true)
            }
            while true {
                await signal.wait()
                if Task.isCancelled {
                    listening?.cancel()
                    return nil
                }
                if let changes = try tracker.update() { return tracker.results(changes, isInitial: false) }
            }
        }
    }
}

/// A flag raised after saves, which one task waits for.
final class ChangeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var isRaised = false
    private var waiter: CheckedContinuation<Void, Never>?

    func raise() {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume()
        } else {
            isRaised = true
            lock.unlock()
        }
    }

    /// Lowers the flag; whether it was raised.
    private func lower() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let raised = isRaised
        isRaised = false
        return raised
    }

    /// Returns once raised (lowering it), or when the task is cancelled; at once, without
    /// suspending, when it is raised already.
    func wait() async {
        if lower() { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if isRaised || Task.isCancelled {
                    isRaised = false
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            raise()
        }
    }
}
