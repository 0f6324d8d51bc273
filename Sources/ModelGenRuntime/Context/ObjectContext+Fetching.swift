extension ObjectContext {
    // MARK: - Fetching

    /// Every object of `type` (and its sub-entities), in row order; see `fetch(_:)`.
    public func fetchAll<T: ManagedObject>(_ type: T.Type) throws -> [T] {
        try fetch(FetchRequest<T>())
    }

    /// Every object of `entity` (and its sub-entities), in row order, for a program that knows
    /// the entity only at run time (a tool that walks every table of a store, with
    /// `store.model.entities`): rows read as `fetchAll` reads them, this context's unsaved inserts
    /// of the entity added and its deleted objects left out.
    /// - Throws: `.misuse` in a child context (fetch there with a `FetchRequest`).
    public func fetchAll(entity: EntityDescription) throws -> [ManagedObject] {
        guard parent == nil else {
            throw DatabaseError(.misuse, "fetchAll(entity:) reads the store; use a FetchRequest in a child context")
        }
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        var objects = try materializeRows(
            "SELECT \(entity.selectColumnsSQL) \(entity.fetchedRowsSQL) ORDER BY \"_pk\"", parameters: [], as: entity,
            type: entity.objectType)
        for object in insertedObjects
        where !object.isListedAsDeleted && entity.includes(type(of: object).entityDescription.entityID) {
            objects.append(object)
        }
        return objects
    }

    /// The objects `request` selects, as Core Data fetches them: objects already in this context
    /// come back as they are (one object per row), and the context's unsaved inserts, changes and
    /// deletes are taken into account.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        let objects = try fetchObjects(request)
        if !request.relationshipKeyPathsForPrefetching.isEmpty, parent == nil, !objects.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, entity: T.entityDescription)
        }
        return objects
    }

    private func fetchObjects<T: ManagedObject>(_ request: FetchRequest<T>) throws(DatabaseError) -> [T] {
        if let failure = request.predicate?.failure ?? request.sortDescriptors.lazy.compactMap(\.failure).first {
            throw failure
        }
        if let parent { return try fetchInChild(request, from: parent) }
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        let entity = T.entityDescription
        let plan = FetchPlan(request, pending: hasChanges, dialect: store.dialect)
        let ownRowsOnly = entity.selectColumnsOwnRowsSQL != nil
        let sql = plan.sql(
            selecting: entity.selectColumnsOwnRowsSQL ?? entity.selectColumnsSQL, of: entity, callerSortsByKey: true)
        let objects = try materialize(
            T.self, sql: sql, parameters: plan.parameters, ownRowsOnly: ownRowsOnly,
            sortsByKey: plan.sortsByKeyAfterwards)
        return plan.sqlAnswersAll ? objects : plan.complete(objects, in: self)
    }

    /// The IDs of the objects `request` selects, in its order (Core Data's object-ID result
    /// type): without making objects where the context has no unsaved changes and SQL decides the
    /// whole request; unsaved inserts have temporary IDs.
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        if let failure = request.predicate?.failure ?? request.sortDescriptors.lazy.compactMap(\.failure).first {
            throw failure
        }
        if parent == nil, automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        let plan = FetchPlan(request, pending: hasChanges, dialect: store.dialect)
        guard parent == nil, plan.sqlAnswersAll else { return try fetch(request).map(\.objectID) }
        let sql = plan.sql(selecting: "\"_pk\", \"_entity\"", of: T.entityDescription, callerSortsByKey: false)
        return try store.withReadConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            defer { statement.resetForRebinding() }
            for (index, value) in plan.parameters.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            var ids: [ObjectID] = []
            while try statement.step() { ids.append(statement.objectID(key: 0, entity: 1)) }
            return ids
        }
    }

    /// How many objects `request` selects (its limit and offset applied).
    public func count<T: ManagedObject>(_ request: FetchRequest<T>) throws -> Int {
        if let failure = request.predicate?.failure { throw failure }
        if automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        let plan = FetchPlan(request, pending: hasChanges, dialect: store.dialect)
        guard parent == nil, plan.sqlCountsAll else { return try fetch(request).count }
        let sql = plan.countSQL(of: T.entityDescription)
        let total: Int = try store.withReadConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            for (index, value) in plan.parameters.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            _ = try statement.step()
            return Int(statement.int64(0))
        }
        let afterOffset = max(0, total - request.fetchOffset)
        return request.effectiveLimit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// Sorts objects in memory the way SQL orders their rows: by the descriptors, then by row
    /// (unsaved inserts last, in insertion order).
    static func sorted<T: ManagedObject>(_ objects: [T], by descriptors: [ObjectSortDescriptor<T>]) -> [T] {
        func rank(_ object: T) -> (Int, Int64) {
            object.objectID.isTemporary ? (1, -object.objectID.rowID) : (0, object.objectID.rowID)
        }
        return objects.sorted { lhs, rhs in
            for descriptor in descriptors {
                let order = StoredValue.order(
                    PredicateEvaluator.value(descriptor.slot, lhs), PredicateEvaluator.value(descriptor.slot, rhs),
                    caseInsensitive: descriptor.caseInsensitive)
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return rank(lhs) < rank(rhs)
        }
    }

    /// Runs a SELECT of an entity's columns and turns rows into objects through the identity map.
    func materialize<T: ManagedObject>(
        _ type: T.Type, sql: String, parameters: [SQLArgument], ownRowsOnly: Bool, sortsByKey: Bool = false
    ) throws(DatabaseError) -> [T] {
        let objects = try materializeRows(
            sql, parameters: parameters, as: T.entityDescription, type: T.self, ownRowsOnly: ownRowsOnly,
            sortsByKey: sortsByKey)
        // Every row is of T's entity or a sub-entity, so every object is a T; an array of class
        // references has one layout whatever the class (no per-row generic work, no copy).
        return unsafeBitCast(objects, to: [T].self)
    }

    /// Runs a SELECT of `entity`'s columns (`_pk`, `_entity`, `_version`, then `entity.columns`)
    /// and turns rows into objects through the identity map; rows of sub-entities become objects of
    /// their own classes, deleted objects are left out. `ownRowsOnly`: the query selects only rows
    /// of `entity` itself, with `NULL` for `_entity`.
    ///
    /// A large result goes straight into the array that is returned: once `largeFetch` rows have
    /// come, the table's range of `_pk`s (two index lookups, in the fetch's own read snapshot) bounds
    /// how many rows can follow, and an array of that capacity takes the rest. Growing a buffer and
    /// copying it into the array at the end touched more memory (for 100,000 objects, ~190 more
    /// pages from the kernel, measured, and a 0.8 MB copy). An array's pages the rows do not reach
    /// are never touched; a result far smaller than its array is copied into one that fits. Where
    /// the engine knows how many rows follow (PostgreSQL), that is the array's capacity.
    ///
    /// `sortsByKey`: the query has no ORDER BY (`StoreDialect.ordersByKeyForFree`); the objects
    /// are put in row order here.
    func materializeRows(
        _ sql: String, parameters: [SQLArgument], as entity: EntityDescription, type: ManagedObject.Type? = nil,
        ownRowsOnly: Bool = false, sortsByKey: Bool = false
    ) throws(DatabaseError) -> [ManagedObject] {
        try store.withReadConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            for (index, value) in parameters.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            // A local cursor and buffer, not state captured from outside the closure: appending to
            // a captured variable pays a dynamic exclusivity check per row.
            var rows = FetchCursor(self, entity, type, ownRowsOnly: ownRowsOnly, statement)
            var head = ObjectBuffer()
            while head.count < Self.largeFetch, let object = try rows.next() { head.append(object) }
            var result: [ManagedObject]
            if rows.isFinished {
                result = head.finish()
            } else if let remaining = statement.remainingRows {
                result = try Self.collect(from: &rows, after: &head, capacity: head.count + remaining)
            } else {
                let bound = try Self.rowBound(of: entity.table, connection)
                result = try Self.collect(
                    from: &rows, after: &head, capacity: min(max(bound, 2 * Self.largeFetch), Self.largestReservation))
            }
            var ascending = rows.checksRegistered ? nil : rows.ascending
            if sortsByKey, ascending != true {
                result.sort { $0.objectID.rowID < $1.objectID.rowID }
                ascending = true
            }
            // Into an empty map the whole result goes at once.
            if !rows.checksRegistered { registered.register(fetched: result, ascending: ascending) }
            return result
        }
    }

    /// Rows a fetch reads before it asks the table how many rows it can have at most.
    static let largeFetch = 4_096
    /// The most objects room is made for at once (32 MB of references, mostly untouched when a
    /// table's `_pk`s are sparse); rows beyond it are collected as they come.
    static let largestReservation = 1 << 22

    /// At most how many rows `table` holds: its `_pk`s are distinct integers from the smallest to
    /// the largest (0 for an empty table).
    private static func rowBound(of table: String, _ connection: Connection) throws(DatabaseError) -> Int {
        let quoted = EntityDescription.quoted(table)
        let statement = try connection.cachedStatement(
            "SELECT (SELECT max(\"_pk\") FROM \(quoted)) - (SELECT min(\"_pk\") FROM \(quoted)) + 1")
        defer { statement.resetForRebinding() }
        guard try statement.step(), !statement.isNull(0) else { return 0 }
        return Int(clamping: statement.int64(0))
    }

    /// The objects in `head`, then the rest of `rows`, in an array made with room for `capacity`
    /// (rows beyond it, which a bound from another snapshot could let through, are appended).
    static func collect(
        from rows: inout FetchCursor, after head: inout ObjectBuffer, capacity: Int
    ) throws(DatabaseError) -> [ManagedObject] {
        var failure: DatabaseError?
        var result = [ManagedObject](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let base = buffer.baseAddress!
            initialized = head.moveAll(to: base)
            do throws(DatabaseError) {
                while initialized < capacity, let object = try rows.next() {
                    (base + initialized).initialize(to: object)
                    initialized += 1
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if !rows.isFinished {
            var tail = ObjectBuffer()
            while let object = try rows.next() { tail.append(object) }
            result.append(contentsOf: tail.finish())
        } else if result.count < capacity / 4 {
            // Far fewer rows than the table's range (a sub-entity's share, a selective predicate):
            // not a mostly empty array kept for as long as the result lives.
            result = result.withUnsafeBufferPointer { Array($0) }
        }
        return result
    }

    /// An object for a row of a sub-entity of `entity` (or of `entity` itself when it has no class
    /// of its own), off the fast path of `materializeRows`.
    func makeObject(
        _ id: ObjectID, of entity: EntityDescription, from statement: Statement, context: Unmanaged<ObjectContext>
    ) throws(DatabaseError) -> ManagedObject {
        let rowEntity = id.entityID == entity.entityID ? entity : (store.entity(id.entityID) ?? entity)
        guard let objectType = rowEntity.objectType else {
            throw DatabaseError(
                .misuse, "the model has no class for entity \(id.entityID) of table \(entity.table)",
                entity: entity.name)
        }
        let object = objectType.init()
        Self.fill(object, id, rowEntity, hasForeignKeys: rowEntity.hasForeignKeys, from: statement, context: context)
        if rowEntity.hasConversions { try statement.checkConversions(rowEntity, row: id.rowID) }
        if rowEntity.hasLifecycle { object.lifecycle?.awakeFromFetch() }
        return object
    }

    /// Makes a new object the one of the statement's current row: identity, `_version`, context,
    /// attributes and (when the row has them) its to-one keys.
    @inline(__always)
    static func fill(
        _ object: ManagedObject, _ id: ObjectID, _ entity: EntityDescription, hasForeignKeys: Bool,
        from statement: Statement,
        context: Unmanaged<ObjectContext>
    ) {
        object.adopt(id: id, version: statement.int64(2), context: context)
        object.read(from: statement, startingAt: 3)
        if hasForeignKeys { readForeignKeys(object, entity, statement) }
    }
}

/// The rows of a fetch's statement as objects: existing ones from the identity map (deleted ones
/// left out), new ones made, filled and (when the map was not empty) registered.
struct FetchCursor {
    private unowned(unsafe) let context: ObjectContext
    private let statement: Statement
    private let entity: EntityDescription
    private let ownRowsOnly: Bool
    /// Whether rows are looked up in the identity map (else the map is empty and the whole result
    /// is registered at the end).
    let checksRegistered: Bool
    // The query's own entity is decided once, not per row: its class, its entity number and
    // whether its rows carry foreign keys.
    private let ownType: ManagedObject.Type?
    private let ownEntityID: Int32
    private let ownHasForeignKeys: Bool
    private let ownHasLifecycle: Bool
    private let ownHasConversions: Bool
    /// The context goes into each object unretained (objects do not keep it alive).
    private let contextReference: Unmanaged<ObjectContext>
    private var previousRow = Int64.min
    /// Whether the rows so far came in strictly ascending `_pk` order (tracked only when
    /// `checksRegistered` is false).
    private(set) var ascending = true
    private(set) var isFinished = false

    /// `mayRepeatRows`: a row may come more than once (a join), so each is looked up even where
    /// the map holds no object of its table.
    init(
        _ context: ObjectContext, _ entity: EntityDescription, _ type: ManagedObject.Type?, ownRowsOnly: Bool,
        _ statement: Statement, mayRepeatRows: Bool = false
    ) {
        self.context = context
        self.statement = statement
        self.entity = entity
        self.ownRowsOnly = ownRowsOnly
        // Where the map holds no object of the table's entities, no row can be in it: the rows
        // are registered all at once afterwards, not looked up one by one.
        checksRegistered =
            !context.registered.isEmpty
            && (mayRepeatRows || context.registered.mayHold(anyOf: context.store.entityIDs(sharing: entity.table)))
        ownType = entity.objectType ?? type
        ownEntityID = entity.entityID
        ownHasForeignKeys = entity.hasForeignKeys
        ownHasLifecycle = entity.hasLifecycle
        ownHasConversions = entity.hasConversions
        contextReference = Unmanaged.passUnretained(context)
    }

    /// The next row's object, `nil` after the last row. Each object comes with a +1 the caller
    /// takes over.
    @inline(__always)
    mutating func next() throws(DatabaseError) -> ManagedObject? {
        while !isFinished {
            guard try statement.step() else {
                isFinished = true
                return nil
            }
            let entityID = ownRowsOnly ? ownEntityID : Int32(truncatingIfNeeded: statement.int64(1))
            let id = ObjectID(entityID: entityID, rowID: statement.int64(0))
            if checksRegistered {
                if let existing = context.registered[id] {
                    if context.isGone(existing) { continue }
                    return existing
                }
            } else {
                ascending = ascending && id.rowID > previousRow
                previousRow = id.rowID
            }
            let object: ManagedObject
            if entityID == ownEntityID, let ownType {
                // The fast path.
                object = ownType.init()
                ObjectContext.fill(
                    object, id, entity, hasForeignKeys: ownHasForeignKeys, from: statement, context: contextReference)
                if ownHasConversions { try statement.checkConversions(entity, row: id.rowID) }
                if ownHasLifecycle { object.lifecycle?.awakeFromFetch() }
            } else {
                object = try context.makeObject(id, of: entity, from: statement, context: contextReference)
            }
            if checksRegistered { context.registered[id] = object }
            return object
        }
        return nil
    }
}
