import Dispatch
import Foundation

/// Runs independent jobs on the machine's cores and returns their results in job order, so the
/// output does not depend on which worker ran which job.
enum Parallel {
    /// The results of `job(0) … job(count - 1)`. Workers take the next job when they finish one,
    /// so put long jobs first. On one core (or for one job) the jobs run in order on this thread.
    static func map<T: Sendable>(_ count: Int, _ job: @Sendable (Int) -> T) -> [T] {
        guard count > 1, ProcessInfo.processInfo.activeProcessorCount > 1 else { return (0..<count).map(job) }
        let slots = Slots<T>(count)
        withoutActuallyEscaping(job) { job in
            // Each job writes only its own slot, and `concurrentPerform` returns after all of them.
            DispatchQueue.concurrentPerform(iterations: count) { index in slots.store(job(index), at: index) }
        }
        return slots.take()
    }

    /// `items` cut into about sixteen runs of consecutive items (eight per core on two cores:
    /// small enough to even out the work), each at least `minimumLength` long so a run pays for
    /// its job.
    static func runs<T>(_ items: [T], minimumLength: Int) -> [ArraySlice<T>] {
        let length = max(minimumLength, (items.count + 15) / 16)
        return stride(from: 0, to: items.count, by: length).map { items[$0..<min($0 + length, items.count)] }
    }

    /// One result slot per job, written by exactly one worker each.
    private final class Slots<T>: @unchecked Sendable {
        private let values: UnsafeMutablePointer<T?>
        private let count: Int

        init(_ count: Int) {
            self.count = count
            values = .allocate(capacity: count)
            values.initialize(repeating: nil, count: count)
        }

        deinit {
            values.deinitialize(count: count)
            values.deallocate()
        }

        func store(_ value: T, at index: Int) { values[index] = value }

        func take() -> [T] {
            (0..<count).map { index in
                guard let value = values[index].take() else { preconditionFailure("job \(index) stored no result") }
                return value
            }
        }
    }
}
