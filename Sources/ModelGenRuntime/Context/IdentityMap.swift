#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The context's map from `ObjectID` to its one object: an open-addressing hash table with linear
/// probing and backward-shift deletion, keyed by (entity, row) with a multiplicative hash.
///
/// A `Dictionary<ObjectID, ManagedObject>` spent more time in SipHash than SQLite spent reading
/// the rows; row ids are already well-distributed integers, so a cheap mix suffices. The table
/// holds its objects with manual retains (`Unmanaged`), so growing and shifting entries costs no
/// reference counting, and lives in manually allocated memory reached through a constant pointer,
/// so its accesses need no dynamic exclusivity checks (they were a tenth of a fetch's time).
final class IdentityMap {
    private struct Entry {
        /// 0: empty (row 0 is never an identity: permanent rows start at 1, temporary at -1).
        var row: Int64
        var entity: Int32
        var object: Unmanaged<ManagedObject>?
    }

    private struct Table {
        var entries: UnsafeMutablePointer<Entry>
        var capacity: Int
        var count: Int
    }

    private let table: UnsafeMutablePointer<Table>

    /// A whole fetch result registered at once, when it was the first thing the map held: the
    /// objects of one table in ascending row order. Registering it costs nothing per row (filling
    /// the hash table above row by row would be a fifth of a large fetch); lookups
    /// index it directly when its rows are consecutive, else search it by row.
    private struct Run {
        /// Layout-compatible with the fetch's `[ManagedObject]` (removed objects become `nil`).
        var objects: [ManagedObject?]
        var first: Int64
        var last: Int64
        /// The row of each object, when the rows are not consecutive (else `nil`: row - first
        /// is the index).
        var rows: [Int64]?
        var count: Int

        func index(of row: Int64) -> Int? { Self.index(of: row, first: first, last: last, rows: rows) }

        static func index(of row: Int64, first: Int64, last: Int64, rows: [Int64]?) -> Int? {
            guard row >= first && row <= last else { return nil }
            guard let rows else { return Int(row - first) }
            var low = 0
            var high = rows.count - 1
            while low <= high {
                let middle = (low + high) / 2
                if rows[middle] == row { return middle }
                if rows[middle] < row { low = middle + 1 } else { high = middle - 1 }
            }
            return nil
        }
    }

    /// Unchecked for exclusivity, as the context's lists are: one thread uses a context at a time.
    @exclusivity(unchecked) private var run: Run?

    /// A bit per entity number (modulo 64) of every object ever registered since the map was
    /// last emptied: where none of an entity's bits is set, no row of it can be registered.
    private var entityBits: UInt64 = 0

    @inline(__always)
    private static func bit(_ entity: Int32) -> UInt64 { 1 << UInt64(UInt32(bitPattern: entity) & 63) }

    /// Whether an object of one of `entities` may be registered (false: certainly none is).
    func mayHold(anyOf entities: [Int32]) -> Bool {
        entities.contains { entityBits & Self.bit($0) != 0 }
    }

    /// Makes room for `total` objects in the hash table, so that registering that many one by
    /// one grows it at most once.
    func reserve(_ total: Int) {
        while total * 2 > table.pointee.capacity { grow() }
    }

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        table = .allocate(capacity: 1)
        table.initialize(to: Table(entries: Self.emptyEntries(size), capacity: size, count: 0))
    }

    deinit {
        let entries = table.pointee.entries
        for index in 0..<table.pointee.capacity { entries[index].object?.release() }
        free(entries)
        table.deallocate()
    }

    /// Zeroed memory from `calloc`: an all-zero `Entry` is an empty one, and a large table's pages
    /// are only touched (and zeroed by the kernel) where entries land.
    private static func emptyEntries(_ size: Int) -> UnsafeMutablePointer<Entry> {
        guard let memory = calloc(size, MemoryLayout<Entry>.stride) else {
            fatalError("out of memory for \(size) identity-map entries")
        }
        return memory.bindMemory(to: Entry.self, capacity: size)
    }

    var count: Int { table.pointee.count + (run?.count ?? 0) }
    var isEmpty: Bool { count == 0 }

    /// Registers objects at once (a fetch's result, a save's new rows). When the map is empty and
    /// their rows strictly ascend they become the run (objects of several tables are fine: a
    /// lookup checks the entity of the object it finds); otherwise they are registered one by one.
    /// `ascending`: the caller knows whether the rows strictly ascend (else they are checked).
    func register(fetched objects: [ManagedObject], ascending: Bool? = nil) {
        guard isEmpty, let first = objects.first?.objectID.rowID, let last = objects.last?.objectID.rowID, first > 0,
            ascending ?? Self.ascends(objects)
        else {
            reserve(table.pointee.count + objects.count)
            for object in objects { self[object.objectID] = object }
            return
        }
        for object in objects { entityBits |= Self.bit(object.objectID.entityID) }
        // A class reference and an optional one have the same layout: no copy, no retains.
        let stored = unsafeBitCast(objects, to: [ManagedObject?].self)
        let isDense = last - first + 1 == Int64(objects.count)
        run = Run(
            objects: stored, first: first, last: last, rows: isDense ? nil : objects.map(\.objectID.rowID),
            count: objects.count)
    }

    /// Rows come in runs (a fetch reads them in `_pk` order), so the low six bits of the row pick
    /// the place within a block of 64 slots and the rest is hashed to pick the block: a run of
    /// rows fills adjacent slots (one cache miss per block, not per row), while rows far apart
    /// still spread over the table.
    @inline(__always)
    private static func slot(row: Int64, entity: Int32, mask: Int) -> Int {
        let bits = UInt64(bitPattern: row)
        let block = ((bits >> 6) ^ (UInt64(UInt32(bitPattern: entity)) << 40)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: (block >> 26) << 6 | (bits & 63)) & mask
    }

    private static func ascends(_ objects: [ManagedObject]) -> Bool {
        var previous = Int64.min
        for object in objects {
            guard object.objectID.rowID > previous else { return false }
            previous = object.objectID.rowID
        }
        return true
    }

    /// Calls `body` with every registered object, then forgets it.
    func removeAll(_ body: (ManagedObject) -> Void) {
        if let run {
            // Through the buffer: no retain and release per object.
            run.objects.withUnsafeBufferPointer { objects in
                for object in objects { if let object { body(object) } }
            }
            self.run = nil
        }
        let entries = table.pointee.entries
        for index in 0..<table.pointee.capacity {
            guard let object = entries[index].object else { continue }
            body(object.takeUnretainedValue())
            entries[index] = Entry(row: 0, entity: 0, object: nil)
            object.release()
        }
        table.pointee.count = 0
        entityBits = 0
    }

    /// Calls `body` with every registered object.
    func forEach(_ body: (ManagedObject) -> Void) {
        if let run {
            for case let object? in run.objects { body(object) }
        }
        let entries = table.pointee.entries
        for index in 0..<table.pointee.capacity {
            if let object = entries[index].object { body(object.takeUnretainedValue()) }
        }
    }

    /// The object registered for `id`.
    subscript(id: ObjectID) -> ManagedObject? {
        get {
            if let run, let index = run.index(of: id.rowID), let object = run.objects[index], object.objectID == id {
                return object
            }
            let entries = table.pointee.entries
            let mask = table.pointee.capacity - 1
            var index = Self.slot(row: id.rowID, entity: id.entityID, mask: mask)
            while entries[index].row != 0 {
                if entries[index].row == id.rowID && entries[index].entity == id.entityID {
                    return entries[index].object?.takeUnretainedValue()
                }
                index = (index + 1) & mask
            }
            return nil
        }
        set {
            if let newValue { insert(newValue, for: id) } else { remove(id) }
        }
    }

    private func insert(_ object: ManagedObject, for id: ObjectID) {
        precondition(id.rowID != 0, "row 0 is not an object identity")
        if run != nil, let index = run!.index(of: id.rowID), let present = run!.objects[index], present.objectID == id {
            run!.objects[index] = object
            return
        }
        if (table.pointee.count + 1) * 2 > table.pointee.capacity { grow() }
        let entries = table.pointee.entries
        let mask = table.pointee.capacity - 1
        var index = Self.slot(row: id.rowID, entity: id.entityID, mask: mask)
        while entries[index].row != 0 {
            if entries[index].row == id.rowID && entries[index].entity == id.entityID {
                let old = entries[index].object
                entries[index].object = Unmanaged.passRetained(object)
                old?.release()
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = Entry(row: id.rowID, entity: id.entityID, object: Unmanaged.passRetained(object))
        table.pointee.count += 1
        entityBits |= Self.bit(id.entityID)
    }

    /// Forgets each of `objects` (a save's deleted objects): those in the run through its buffer
    /// (no lookup bookkeeping, retain or release per object), the others one by one.
    func remove(_ objects: [ManagedObject]) {
        guard !objects.isEmpty else { return }
        guard var taken = run.take() else {
            for object in objects { remove(object.objectID) }
            return
        }
        let (first, last, rows) = (taken.first, taken.last, taken.rows)
        var removed = 0
        var elsewhere: [ManagedObject] = []
        taken.objects.withUnsafeMutableBufferPointer { slots in
            for object in objects {
                let id = object.objectID
                if let index = Run.index(of: id.rowID, first: first, last: last, rows: rows),
                    slots[index]?.objectID == id
                {
                    slots[index] = nil
                    removed += 1
                } else {
                    elsewhere.append(object)
                }
            }
        }
        taken.count -= removed
        run = taken
        for object in elsewhere { remove(object.objectID) }
    }

    private func remove(_ id: ObjectID) {
        if run != nil, let index = run!.index(of: id.rowID), let present = run!.objects[index], present.objectID == id {
            run!.objects[index] = nil
            run!.count -= 1
            return
        }
        let entries = table.pointee.entries
        let mask = table.pointee.capacity - 1
        var index = Self.slot(row: id.rowID, entity: id.entityID, mask: mask)
        while entries[index].row != 0 {
            if entries[index].row == id.rowID && entries[index].entity == id.entityID { break }
            index = (index + 1) & mask
        }
        guard entries[index].row != 0 else { return }
        let removed = entries[index].object
        table.pointee.count -= 1
        // Backward-shift deletion: move later entries of the probe run into the hole.
        var hole = index
        var next = (hole + 1) & mask
        while entries[next].row != 0 {
            let home = Self.slot(row: entries[next].row, entity: entries[next].entity, mask: mask)
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole <= distanceToNext {
                entries[hole] = entries[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        entries[hole] = Entry(row: 0, entity: 0, object: nil)
        removed?.release()
    }

    private func grow() {
        let old = table.pointee.entries
        let oldCapacity = table.pointee.capacity
        // Quadruple large tables: fewer rehashes while a big fetch fills the map.
        let size = oldCapacity * (oldCapacity >= 4_096 ? 4 : 2)
        let entries = Self.emptyEntries(size)
        let mask = size - 1
        // Move the entries over; their retains move with them.
        for position in 0..<oldCapacity where old[position].row != 0 {
            var index = Self.slot(row: old[position].row, entity: old[position].entity, mask: mask)
            while entries[index].row != 0 { index = (index + 1) & mask }
            entries[index] = old[position]
        }
        free(old)
        table.pointee.entries = entries
        table.pointee.capacity = size
    }
}
