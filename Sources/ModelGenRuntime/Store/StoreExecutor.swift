import Foundation

/// The threads a store runs its `async` work on (`perform`, a context's `async` fetches and
/// saves): the database calls block, so they run here rather than on Swift's cooperative pool,
/// whose few threads would otherwise wait on the disk or the network and stall every other task.
///
/// At most `capacity` threads, started as work arrives and ended after a few seconds without
/// any; work waits in order of arrival. Work whose task is cancelled before it starts does not
/// run: its caller gets `CancellationError`.
///
/// Each `async` call hops here and back (two thread hand-offs, tens of microseconds). A task that
/// makes many calls can run here as a whole instead — the executor is a `TaskExecutor`:
///
/// ```swift
/// Task(executorPreference: store.executor) {
///     for change in changes { apply(change, in: context); try await context.save() }  // no hop each
/// }
/// ```
public final class StoreExecutor: @unchecked Sendable {
    let capacity: Int
    private let condition = NSCondition()
    private var queue: [Work] = []
    /// The first work of `queue` not yet taken (taken work is dropped in batches).
    private var head = 0
    private var threads = 0
    private var idleThreads = 0
    private var spinningThreads = 0
    /// How long a thread that has finished work waits for more before it sleeps (`spinForWork`).
    private let spinNanoseconds: UInt64 = 50_000
    /// How long a thread waits for work before it ends.
    private let idleLifetime: TimeInterval = 5

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// One piece of work, run once unless cancelled first.
    final class Work: @unchecked Sendable {
        private let lock = NSLock()
        private var body: (() -> Void)?
        private var onCancel: (() -> Void)?

        init(body: @escaping () -> Void, onCancel: @escaping () -> Void) {
            self.body = body
            self.onCancel = onCancel
        }

        /// Runs the body unless the work was cancelled (then its cancellation already answered).
        func run() { take().body?() }

        /// Answers with the cancellation unless the work started.
        func cancel() { take().onCancel?() }

        /// Both closures, leaving none: whichever of `run` and `cancel` comes first acts alone.
        private func take() -> (body: (() -> Void)?, onCancel: (() -> Void)?) {
            lock.lock()
            defer {
                body = nil
                onCancel = nil
                lock.unlock()
            }
            return (body, onCancel)
        }
    }

    /// Runs `body` on one of the executor's threads while the calling task waits, and returns
    /// its result. The calling task is suspended meanwhile: `body` may use what the task owns
    /// (its context) as if the task ran it.
    /// - Throws: `CancellationError` when the task is cancelled before `body` starts; else what
    ///   `body` throws.
    func run<T>(_ body: @escaping () throws -> T) async throws -> T {
        try Task.checkCancellation()
        // Already on one of this executor's threads (a task that prefers it): no hop.
        if HeldConnections.currentExecutor == ObjectIdentifier(self) { return try body() }
        // The task is suspended until `body` has run: nothing else uses what it captures.
        let unchecked = UncheckedBox(body)
        let gate = CancellationGate()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                let work = Work(
                    body: { continuation.resume(with: Result { try unchecked.value() }) },
                    onCancel: { continuation.resume(throwing: CancellationError()) })
                if gate.attach(work) { submit(work) }
            }
        } onCancel: {
            gate.cancel()
        }
    }

    /// Between a task's cancellation handler and its work: cancelling before the work is
    /// attached cancels it as it is attached.
    private final class CancellationGate: @unchecked Sendable {
        private let lock = NSLock()
        private var work: Work?
        private var isCancelled = false

        /// Attaches `work`; false (and the work answered with its cancellation) when the task
        /// was cancelled already.
        func attach(_ work: Work) -> Bool {
            lock.lock()
            let cancelled = isCancelled
            if !cancelled { self.work = work }
            lock.unlock()
            if cancelled { work.cancel() }
            return !cancelled
        }

        func cancel() {
            lock.lock()
            isCancelled = true
            let work = self.work
            lock.unlock()
            work?.cancel()
        }
    }

    private func submit(_ work: Work) {
        condition.lock()
        queue.append(work)
        if idleThreads == 0, threads < capacity {
            threads += 1
            let thread = Thread { [self] in serve() }
            thread.name = "modelgen store"
            thread.start()
        } else {
            condition.signal()
        }
        condition.unlock()
    }

    /// Lets one thread that has just finished wait a moment for more work without sleeping (the
    /// lock held on entry and exit): a task awaiting one call after another (a loop of saves)
    /// queues its next work within microseconds, and waking a sleeping thread costs more than
    /// that. Other threads sleep at once.
    private func spinForWork() {
        spinningThreads += 1
        idleThreads += 1
        let deadline = DispatchTime.now().uptimeNanoseconds + spinNanoseconds
        while head >= queue.count, DispatchTime.now().uptimeNanoseconds < deadline {
            condition.unlock()
            sched_yield()
            condition.lock()
        }
        idleThreads -= 1
        spinningThreads -= 1
    }

    /// A thread's loop: takes work in order until none comes for `idleLifetime`.
    private func serve() {
        HeldConnections.currentExecutor = ObjectIdentifier(self)
        condition.lock()
        while true {
            if head < queue.count {
                let work = queue[head]
                head += 1
                if head >= 64, head * 2 >= queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                work.run()
                condition.lock()
                if head >= queue.count, spinningThreads == 0 { spinForWork() }
                continue
            }
            idleThreads += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: idleLifetime))
            idleThreads -= 1
            if !woken, head >= queue.count {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension StoreExecutor: TaskExecutor {
    /// Runs a job of a task that prefers this executor on one of its threads.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        submit(Work(body: { job.runSynchronously(on: executor) }, onCancel: {}))
    }
}

/// A value handed to another thread while its owner waits for that thread (see `StoreExecutor.run`).
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}
