#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The objects of a fetch as they are made, in manually grown memory, handed over as an array at
/// the end.
///
/// Appending to an `Array` row by row costs two out-of-line calls and a retain/release pair per
/// row; here an append stores the reference it is given (its +1 moves in) and the buffer grows by
/// `realloc`, which moves no references one by one.
struct ObjectBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<ManagedObject>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 256
        base = Self.reallocate(nil, capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        free(base)
    }

    /// Adds `object`, taking over the caller's reference.
    @inline(__always)
    mutating func append(_ object: consuming ManagedObject) {
        if count == capacity { grow() }
        (base + count).initialize(to: object)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        capacity *= 2
        base = Self.reallocate(base, capacity: capacity)
    }

    private static func reallocate(_ pointer: UnsafeMutablePointer<ManagedObject>?, capacity: Int)
        -> UnsafeMutablePointer<ManagedObject>
    {
        // Class references are plain pointers: moving them bitwise (as realloc does) is a move.
        guard let memory = realloc(pointer, capacity * MemoryLayout<ManagedObject>.stride) else {
            fatalError("out of memory for \(capacity) fetched objects")
        }
        return memory.bindMemory(to: ManagedObject.self, capacity: capacity)
    }

    /// Moves the objects, in the order they were appended, to `target` (uninitialized memory with
    /// room for them), leaving the buffer empty; returns how many there were.
    mutating func moveAll(to target: UnsafeMutablePointer<ManagedObject>) -> Int {
        let moved = count
        target.moveInitialize(from: base, count: moved)
        count = 0
        return moved
    }

    /// The objects, in the order they were appended, as an array (moved, not retained again).
    consuming func finish() -> [ManagedObject] {
        let count = count
        let base = base
        discard self
        defer { free(base) }
        return [ManagedObject](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { buffer.baseAddress!.moveInitialize(from: base, count: count) }
            initialized = count
        }
    }
}
