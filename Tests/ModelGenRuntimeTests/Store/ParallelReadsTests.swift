import Foundation
import GeneratedModels
import Synchronization
import TestSupport
import Testing

@_spi(Database) @testable import ModelGenRuntime

/// Reads in parallel with each other and with saves (`ConnectionScheduler`), and the `async` API
/// on the store's threads (`StoreExecutor`), on both engines.
///
/// The oracle of `fetchesSeeWholeSavesInOrder`: the writers keep, outside the store, the state of
/// the data after each of their saves (computed from what they changed, never read back). Every
/// fetch a reader makes while they run must equal one of those states — never a mix of two,
/// which a fetch seeing half a save would give — and a reader's successive fetches never go back
/// to an earlier state.
@Suite struct ParallelReadsTests {
    /// The states a writer's saves left, in order (state 0: before its first save).
    final class History<State: Sendable>: Sendable {
        private let states: Mutex<[State]>
        init(_ first: State) { states = Mutex([first]) }
        func append(_ state: State) { states.withLock { $0.append(state) } }
        var all: [State] { states.withLock { $0 } }
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// What a reader saw, in order.
    enum Seen: Sendable {
        case grades([UUID: Int32])
        case highGrades([UUID: Int32], sortedDescending: Bool)
        case highCount(Int)
        case quizzes([UUID: String])
        case pointsTotal(Int64)
    }

    static let grades = 120
    static let quizzes = 12
    static let saves = 80
    static let readers = 4
    static let readsPerReader = 30
    static let threshold: Int32 = 50

    @Test(arguments: Backend.allCases) func fetchesSeeWholeSavesInOrder(_ backend: Backend) async throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model)
        var random = SplitMix(seed: 39)
        let setup = store.newContext()
        // Grades need a quiz (one the renaming writer leaves alone) and a student.
        let holder = Quiz(in: setup, id: UUID(), name: "Holder")
        let student = Student(in: setup, first_name: "Ada", id: UUID(), last_name: "Lovelace")
        var points: [UUID: Int32] = [:]
        for _ in 0..<Self.grades {
            let grade = Grade(in: setup, id: UUID())
            grade.quiz = holder
            grade.student = student
            grade.points = Int32.random(in: 0..<100, using: &random)
            points[grade.id] = grade.points
        }
        var names: [UUID: String] = [holder.id: holder.name]
        for index in 0..<Self.quizzes {
            let quiz = Quiz(in: setup, id: UUID(), name: "Quiz \(index) of 0")
            names[quiz.id] = quiz.name
        }
        try await setup.save()
        let total = points.values.reduce(Int64(0)) { $0 + Int64($1) }
        let gradeStates = History(points)
        let quizStates = History(names)

        let seen = try await withThrowingTaskGroup(of: [Seen].self) { group in
            group.addTask { try await Self.moveGrades(store, gradeStates, seed: 1) }
            group.addTask { try await Self.renameQuizzes(store, quizStates) }
            for reader in 0..<Self.readers { group.addTask { try await Self.read(store, reader: reader) } }
            var all: [[Seen]] = []
            for try await observations in group where !observations.isEmpty { all.append(observations) }
            return all
        }
        #expect(seen.count == Self.readers)
        let gradeHistory = gradeStates.all
        let quizHistory = quizStates.all
        #expect(gradeHistory.count == Self.saves + 1 && quizHistory.count == Self.saves + 1)
        var checked = 0
        for (reader, observations) in seen.enumerated() {
            // The earliest state each writer's data can be in, given what this reader saw so far.
            var gradeFloor = 0
            var quizFloor = 0
            for (index, observation) in observations.enumerated() {
                checked += 1
                switch observation {
                case .grades(let found):
                    let state = gradeHistory[gradeFloor...].firstIndex(of: found)
                    #expect(
                        state != nil, "reader \(reader), read \(index): all grades match no state from \(gradeFloor)")
                    gradeFloor = state ?? gradeFloor
                case .highGrades(let found, let sorted):
                    #expect(sorted, "reader \(reader), read \(index): not in descending order of points")
                    let state = gradeHistory[gradeFloor...].firstIndex {
                        $0.filter { $0.value >= Self.threshold } == found
                    }
                    #expect(
                        state != nil, "reader \(reader), read \(index): grades ≥ 50 match no state from \(gradeFloor)")
                    gradeFloor = state ?? gradeFloor
                case .highCount(let count):
                    let state = gradeHistory[gradeFloor...].firstIndex {
                        $0.values.filter { $0 >= Self.threshold }.count == count
                    }
                    #expect(state != nil, "reader \(reader), read \(index): count \(count) matches no state")
                    gradeFloor = state ?? gradeFloor
                case .quizzes(let found):
                    let state = quizHistory[quizFloor...].firstIndex(of: found)
                    #expect(state != nil, "reader \(reader), read \(index): quizzes match no state from \(quizFloor)")
                    quizFloor = state ?? quizFloor
                case .pointsTotal(let sum):
                    // Every save moves points between grades: the total never changes.
                    #expect(sum == total, "reader \(reader), read \(index): total \(sum), not \(total)")
                }
            }
        }
        #expect(checked == Self.readers * Self.readsPerReader)
        // At the end, a fresh context sees the last states.
        let final = store.newContext()
        let grades = try await final.fetch(FetchRequest<Grade>())
        #expect(Dictionary(uniqueKeysWithValues: grades.map { ($0.id, $0.points) }) == gradeHistory.last)
    }

    /// Saves that each move points from one grade to another, and every fifth replaces a grade by
    /// a new one with the same points (a delete and an insert in one save); records each state.
    static func moveGrades(_ store: PersistentStore, _ history: History<[UUID: Int32]>, seed: UInt64) async throws
        -> [Seen]
    {
        var random = SplitMix(seed: seed)
        let context = store.newContext()
        var state = history.all[0]
        var byID = Dictionary(uniqueKeysWithValues: try await context.fetch(FetchRequest<Grade>()).map { ($0.id, $0) })
        for save in 0..<saves {
            let ids = state.keys.sorted { $0.uuidString < $1.uuidString }
            let from = ids.randomElement(using: &random)!
            let to = ids.filter { $0 != from }.randomElement(using: &random)!
            let amount = Int32.random(in: 1...30, using: &random)
            byID[from]!.points -= amount
            byID[to]!.points += amount
            state[from]! -= amount
            state[to]! += amount
            if save % 5 == 4 {
                let gone = ids.filter { $0 != from && $0 != to }.randomElement(using: &random)!
                let replacement = Grade(in: context, id: UUID())
                replacement.points = state[gone]!
                replacement.quiz = byID[gone]!.quiz
                replacement.student = byID[gone]!.student
                context.delete(byID.removeValue(forKey: gone)!)
                state[replacement.id] = state.removeValue(forKey: gone)
                byID[replacement.id] = replacement
            }
            try await context.save()
            history.append(state)
        }
        return []
    }

    /// Saves that each give three quizzes the name of the save.
    static func renameQuizzes(_ store: PersistentStore, _ history: History<[UUID: String]>) async throws -> [Seen] {
        let context = store.newContext()
        var state = history.all[0]
        let quizzes = try await context.fetch(FetchRequest<Quiz>()).filter { $0.name != "Holder" }.sorted {
            $0.id.uuidString < $1.id.uuidString
        }
        for save in 1...saves {
            for offset in 0..<3 {
                let quiz = quizzes[(save * 3 + offset) % quizzes.count]
                quiz.name = "Quiz \(save * 3 + offset) of \(save)"
                state[quiz.id] = quiz.name
            }
            try await context.save()
            history.append(state)
        }
        return []
    }

    /// A reader's fetches, each in a fresh context, of every kind in turn.
    static func read(_ store: PersistentStore, reader: Int) async throws -> [Seen] {
        var seen: [Seen] = []
        for index in 0..<readsPerReader {
            let context = store.newContext()
            switch (index + reader) % 5 {
            case 0:
                let grades = try await context.fetch(FetchRequest<Grade>())
                seen.append(.grades(Dictionary(uniqueKeysWithValues: grades.map { ($0.id, $0.points) })))
            case 1:
                let request = FetchRequest<Grade>(
                    predicate: \Grade.points >= threshold,
                    sortDescriptors: [ObjectSortDescriptor(\Grade.points, ascending: false)])
                let grades = try await context.fetch(request)
                let sorted = zip(grades, grades.dropFirst()).allSatisfy { $0.points >= $1.points }
                seen.append(
                    .highGrades(
                        Dictionary(uniqueKeysWithValues: grades.map { ($0.id, $0.points) }), sortedDescending: sorted))
            case 2:
                seen.append(
                    .highCount(try await context.count(FetchRequest<Grade>(predicate: \Grade.points >= threshold))))
            case 3:
                let quizzes = try await context.fetch(FetchRequest<Quiz>())
                seen.append(.quizzes(Dictionary(uniqueKeysWithValues: quizzes.map { ($0.id, $0.name) })))
            default:
                let sum = Aggregate.sum(\Grade.points)
                let rows = try await context.fetchValues(ValuesRequest<Grade>(columns: [sum]))
                seen.append(.pointsTotal(Int64(rows.first?[sum] ?? 0)))
            }
        }
        return seen
    }

    /// A read that has begun (a statement stopped half-way through its rows) does not hold up a
    /// save on another thread; it goes on reading the database as it was when it began, and the
    /// next read sees the save.
    @Test(arguments: Backend.allCases) func aSaveCompletesWhileAReadIsOpen(_ backend: Backend) throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model)
        let setup = store.newContext()
        for index in 0..<10 { _ = Quiz(in: setup, id: UUID(), name: "Q\(index)") }
        try setup.save()
        let saved = DispatchSemaphore(value: 0)
        let (before, after): ([String], [String]) = try store.withReadConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(#"SELECT "name" FROM "quiz" ORDER BY "name""#)
            defer { statement.reset() }
            var names: [String] = []
            guard try statement.step() else { return ([], []) }
            names.append(statement.string(0))
            // The save runs on another thread while this statement is open.
            Thread.detachNewThread {
                let writer = store.newContext()
                _ = Quiz(in: writer, id: UUID(), name: "Q99")
                try? writer.save()
                saved.signal()
            }
            guard saved.wait(timeout: .now() + 20) == .success else { return (names, ["the save did not finish"]) }
            while try statement.step() { names.append(statement.string(0)) }
            return (names, [])
        }
        #expect(after.isEmpty, "\(after)")
        #expect(before == (0..<10).map { "Q\($0)" })
        let names = try store.newContext().fetch(FetchRequest<Quiz>()).map(\.name).sorted()
        #expect(names == (0..<10).map { "Q\($0)" } + ["Q99"])
    }

    /// `perform` and the `async` calls run on the store's own threads, about one per connection,
    /// never one per call.
    @Test(arguments: Backend.allCases) func asyncWorkRunsOnTheStoresBoundedThreads(_ backend: Backend) async throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model, options: .init(connections: 2))
        let capacity = store.executor.capacity
        // SQLite: the writer and 2 readers; PostgreSQL: 2 sessions that write and 2 that read.
        #expect(capacity == (backend == .sqlite ? 3 : 4))
        let executor = ObjectIdentifier(store.executor)
        let threads = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await store.perform { context in
                        _ = Quiz(in: context, id: UUID(), name: "P\(index)")
                        try context.save()
                        Thread.sleep(forTimeInterval: 0.002)
                        return ("\(pthread_self())", HeldConnections.currentExecutor == executor)
                    }
                }
            }
            var all: [(String, Bool)] = []
            for try await thread in group { all.append(thread) }
            return all
        }
        #expect(threads.count == 40)
        #expect(Set(threads.map(\.0)).count <= capacity)
        #expect(threads.allSatisfy { $0.1 }, "a body ran on a thread that is not the store's")
        #expect(try await store.newContext().count(FetchRequest<Quiz>()) == 40)
    }

    /// `connections: 0` on a SQLite file: one connection reads and writes (what a program on
    /// one thread at a time reads fastest with), and everything still works, async included.
    @Test func noReadersMeansOneConnection() async throws {
        guard let (location, cleanup) = try TemporaryStore.make(.sqlite) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model, options: .init(connections: 0))
        #expect(store.scheduler.readers == nil)
        #expect(store.scheduler.capacity == 1 && store.executor.capacity == 2)
        let context = store.newContext()
        _ = Quiz(in: context, id: UUID(), name: "only")
        try await context.save()
        #expect(try await store.newContext().fetch(FetchRequest<Quiz>()).map(\.name) == ["only"])
    }

    /// A task cancelled before its work starts gets `CancellationError`, and the work never runs:
    /// a save that waited behind busy threads writes nothing.
    @Test(arguments: Backend.allCases) func cancelledWorkDoesNotRun(_ backend: Backend) async throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(GradeBookModel.model, options: .init(connections: 1))
        // Already cancelled: nothing is even queued.
        let early = _Concurrency.Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let context = store.newContext()
            _ = Quiz(in: context, id: UUID(), name: "early")
            try await context.save()
        }
        await #expect(throws: CancellationError.self) { try await early.value }

        // Every thread of the store busy; a save queued behind them, then cancelled. (The test
        // waits without blocking a thread of the cooperative pool, which the tasks need.)
        let release = DispatchSemaphore(value: 0)
        let started = Counter()
        let capacity = store.executor.capacity
        let blockers = (0..<capacity).map { _ in
            _Concurrency.Task {
                try await store.perform { _ in
                    started.add()
                    release.wait()
                }
            }
        }
        while started.value < capacity {
            try await _Concurrency.Task.sleep(for: .milliseconds(5))
        }
        let queued = _Concurrency.Task {
            let context = store.newContext()
            _ = Quiz(in: context, id: UUID(), name: "queued")
            try await context.save()
        }
        // Give the save time to be queued, then cancel it before any thread is free.
        try await _Concurrency.Task.sleep(for: .milliseconds(100))
        queued.cancel()
        for _ in 0..<capacity { release.signal() }
        await #expect(throws: CancellationError.self) { try await queued.value }
        for blocker in blockers { try await blocker.value }
        #expect(try await store.newContext().count(FetchRequest<Quiz>()) == 0)
        // The store still works.
        let context = store.newContext()
        _ = Quiz(in: context, id: UUID(), name: "after")
        try await context.save()
        #expect(try await store.newContext().count(FetchRequest<Quiz>()) == 1)
    }
}
