/// The context's map from `ObjectID` to its one object: an open-addressing hash table with linear
/// probing and backward-shift deletion, keyed by (entity, row) with a multiplicative hash.
///
/// A `Dictionary<ObjectID, ManagedObject>` spent more time in SipHash than SQLite spent reading
/// the rows; row ids are already well-distributed integers, so a cheap mix suffices. The table
/// holds its objects with manual retains (`Unmanaged`), so growing and shifting entries costs no
/// reference counting.
final class IdentityMap {
    private var rows: [Int64]
    private var entities: [Int32]
    private var objects: [Unmanaged<ManagedObject>?]
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        rows = Array(repeating: 0, count: size)
        entities = Array(repeating: 0, count: size)
        objects = Array(repeating: nil, count: size)
        mask = size - 1
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func slot(for id: ObjectID) -> Int {
        let mixed = (UInt64(bitPattern: id.rowID) ^ (UInt64(UInt32(bitPattern: id.entityID)) << 40)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    /// The object registered for `id`. Row 0 is never an identity (permanent rows start at 1,
    /// temporary ones at -1), so it marks empty slots.
    subscript(id: ObjectID) -> ManagedObject? {
        get {
            var index = slot(for: id)
            while rows[index] != 0 {
                if rows[index] == id.rowID && entities[index] == id.entityID {
                    return objects[index]?.takeUnretainedValue()
                }
                index = (index + 1) & mask
            }
            return nil
        }
        set {
            if let newValue { insert(newValue, for: id) } else { remove(id) }
        }
    }

    deinit { releaseAll() }

    /// Calls `body` with every registered object.
    func forEach(_ body: (ManagedObject) -> Void) {
        for case let object? in objects { body(object.takeUnretainedValue()) }
    }

    private func releaseAll() {
        for case let object? in objects { object.release() }
    }

    private func insert(_ object: ManagedObject, for id: ObjectID) {
        precondition(id.rowID != 0, "row 0 is not an object identity")
        if (count + 1) * 2 > rows.count { grow() }
        var index = slot(for: id)
        while rows[index] != 0 {
            if rows[index] == id.rowID && entities[index] == id.entityID {
                objects[index]?.release()
                objects[index] = Unmanaged.passRetained(object)
                return
            }
            index = (index + 1) & mask
        }
        rows[index] = id.rowID
        entities[index] = id.entityID
        objects[index] = Unmanaged.passRetained(object)
        count += 1
    }

    private func remove(_ id: ObjectID) {
        var index = slot(for: id)
        while rows[index] != 0 {
            if rows[index] == id.rowID && entities[index] == id.entityID { break }
            index = (index + 1) & mask
        }
        guard rows[index] != 0 else { return }
        objects[index]?.release()
        count -= 1
        // Backward-shift deletion: move later entries of the probe run into the hole.
        var hole = index
        var next = (hole + 1) & mask
        while rows[next] != 0 {
            let home = slot(for: ObjectID(entityID: entities[next], rowID: rows[next]))
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole <= distanceToNext {
                rows[hole] = rows[next]
                entities[hole] = entities[next]
                objects[hole] = objects[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        rows[hole] = 0
        entities[hole] = 0
        objects[hole] = nil
    }

    private func grow() {
        let old = (rows, entities, objects)
        let size = rows.count * 2
        rows = Array(repeating: 0, count: size)
        entities = Array(repeating: 0, count: size)
        objects = Array(repeating: nil, count: size)
        mask = size - 1
        // Move the entries over; their retains move with them.
        for position in old.0.indices where old.0[position] != 0 {
            var index = slot(for: ObjectID(entityID: old.1[position], rowID: old.0[position]))
            while rows[index] != 0 { index = (index + 1) & mask }
            rows[index] = old.0[position]
            entities[index] = old.1[position]
            objects[index] = old.2[position]
        }
    }
}
