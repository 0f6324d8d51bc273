/// The result of a batched fetch (Core Data's `fetchBatchSize`): the objects a request selects,
/// in its order, read from the store a batch of rows at a time as they are touched. Only the
/// result's object IDs are held for all of it; of its objects, the batches read last (two) are,
/// and an object of an older batch stays in its context only while something else holds it or
/// it has unsaved changes — so walking a result of any size keeps memory bounded.
///
/// ```swift
/// let results = try context.fetchBatched(FetchRequest<LogEntry>(), batchSize: 500)
/// for entry in results { export(entry) }
/// ```
///
/// An element is read when first touched: an object whose row is gone by then (deleted since the
/// fetch) comes back detached — `context` is `nil`, as for an object a merge found deleted — and
/// a batch that cannot be read at all (the connection is lost) comes back so too, with
/// `lastError` saying why. `ObjectContext.forEachObject(_:batchSize:_:)` walks a result and
/// throws such errors instead.
public final class BatchedResults<T: ManagedObject>: RandomAccessCollection {
    public typealias Index = Int

    /// Kept alive by the result, which reads through it.
    private let context: ObjectContext
    /// The result's objects' IDs, in order.
    public let objectIDs: [ObjectID]
    public let batchSize: Int
    /// The batches read, by number, most recently read last (at most `residentBatches`).
    private var batches: [(number: Int, objects: [T])] = []
    private static var residentBatches: Int { 2 }
    /// Why the last batch that could not be read could not.
    public private(set) var lastError: DatabaseError?

    init(context: ObjectContext, objectIDs: [ObjectID], batchSize: Int) {
        self.context = context
        self.objectIDs = objectIDs
        self.batchSize = Swift.max(1, batchSize)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    public subscript(position: Int) -> T {
        let number = position / batchSize
        let offset = position - number * batchSize
        if let index = batches.lastIndex(where: { $0.number == number }) {
            if index != batches.count - 1 { batches.append(batches.remove(at: index)) }
            return batches[batches.count - 1].objects[offset]
        }
        let objects = read(number)
        batches.append((number, objects))
        if batches.count > Self.residentBatches {
            context.releaseUnheld(&batches[0].objects)
            batches.removeFirst()
        }
        return objects[offset]
    }

    /// The objects of batch `number`: those the context holds as they are, the others read in one
    /// query.
    private func read(_ number: Int) -> [T] {
        let ids = objectIDs[(number * batchSize)..<Swift.min((number + 1) * batchSize, objectIDs.count)]
        var found: [ObjectID: ManagedObject] = [:]
        var missing: [Int64] = []
        for id in ids {
            if let object = context.registeredObject(id), !context.isGone(object) {
                found[id] = object
            } else if !id.isTemporary {
                missing.append(id.rowID)
            }
        }
        if !missing.isEmpty {
            do {
                for object in try context.readRows(of: T.entityDescription, keys: missing) {
                    found[object.objectID] = object
                }
            } catch {
                lastError = error
            }
        }
        return ids.map { id in
            if let object = found[id] { return unsafeDowncast(object, to: T.self) }
            return detached(id)
        }
    }

    /// An object for a row that could not be read: of the ID's entity's class where it is a `T`,
    /// outside any context.
    private func detached(_ id: ObjectID) -> T {
        let object = (context.store.entity(id.entityID)?.objectType as? T.Type ?? T.self).init()
        object.objectID = id
        return object
    }
}

extension ObjectContext {
    /// The objects `request` selects, read in batches of `batchSize` rows (else the request's
    /// `fetchBatchSize`, else 1,000) as they are touched (see `BatchedResults`). The result's IDs
    /// are read now (all of them, as `fetchObjectIDs`); where the context has unsaved changes that
    /// takes a whole fetch, whose objects then stay.
    public func fetchBatched<T: ManagedObject>(_ request: FetchRequest<T>, batchSize: Int? = nil)
        throws -> BatchedResults<T>
    {
        let size = batchSize ?? (request.fetchBatchSize > 0 ? request.fetchBatchSize : 1_000)
        return BatchedResults(context: self, objectIDs: try fetchObjectIDs(request), batchSize: size)
    }

    /// Calls `body` with each object `request` selects, in order, reading `batchSize` rows (as
    /// `fetchBatched`) at a time and keeping only the objects something else holds: a cursor over a result of any
    /// size. Throws when a batch cannot be read.
    public func forEachObject<T: ManagedObject>(
        _ request: FetchRequest<T>, batchSize: Int? = nil, _ body: (T) throws -> Void
    ) throws {
        let results = try fetchBatched(request, batchSize: batchSize)
        for object in results {
            if let error = results.lastError { throw error }
            try body(object)
        }
        if let error = results.lastError { throw error }
    }

    /// The objects of `entity`'s table whose rows are `keys` (in no particular order), through the
    /// identity map; rows that are gone are left out.
    func readRows(of entity: EntityDescription, keys: [Int64]) throws(DatabaseError) -> [ManagedObject] {
        let sql =
            "SELECT \(entity.selectColumnsSQL) \(entity.fetchedRowsSQL) AND " + store.dialect.isOneOfKeys("\"_pk\"")
        return try materializeRows(sql, parameters: [store.dialect.keyList(keys)], as: entity)
    }

    /// Takes the objects of `objects` out of the context where nothing else holds them and they
    /// have no unsaved changes (what a batched result does with a batch it no longer keeps), and
    /// empties `objects`.
    func releaseUnheld<T: ManagedObject>(_ objects: inout [T]) {
        while var object = objects.popLast() {
            guard object.context === self, object.changedMask == 0, object.relationshipMask == 0,
                !object.isListedAsDeleted, !object.isListedAsUpdated, !object.objectID.isTemporary,
                registered[object.objectID] === object
            else { continue }
            let id = object.objectID
            registered[id] = nil
            // The identity map's reference is gone; `object` is the last one unless something
            // else (the program, another object's relationship, an observation) holds it.
            if isKnownUniquelyReferenced(&object) {
                object.links = []
                object.context = nil
            } else {
                registered[id] = object
            }
        }
    }
}
