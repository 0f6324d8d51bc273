/// How a root context answers a fetch request: the one place that decides what SQL answers and
/// what memory completes, for `fetch`, `fetchObjectIDs` and `count` alike.
///
/// SQL sees the store as saved. Where the context holds unsaved changes, or the predicate has a
/// part SQL cannot express exactly (its residue), SQL only narrows: the objects it returns are
/// checked again in memory, the context's own changed and inserted objects added, and the result
/// sorted and windowed there. Otherwise SQL's rows are the answer, window included.
struct FetchPlan<T: ManagedObject> {
    let request: FetchRequest<T>
    let dialect: StoreDialect
    /// The context holds unsaved changes SQL cannot see.
    let pending: Bool
    /// Unsaved changes of other objects can change what a condition through relationships means:
    /// then SQL filters nothing and every row is checked in memory.
    let throughRelationships: Bool
    /// The part of the predicate SQL filters by (`nil`: no predicate, or none SQL may use).
    let compiled: CompiledPredicate<T>?
    /// The ORDER BY list, and whether it is the request's whole order.
    let order: (sql: String, isExact: Bool)

    init(_ request: FetchRequest<T>, pending: Bool, dialect: StoreDialect) {
        self.request = request
        self.dialect = dialect
        self.pending = pending
        throughRelationships = pending && (request.predicate.map { $0.condition.followsRelationships } ?? false)
        compiled = throughRelationships ? nil : request.predicate.map { CompiledPredicate<T>($0.condition, dialect) }
        order = request.order(dialect)
    }

    /// SQL selects exactly the rows the request wants: memory neither filters nor adds.
    var sqlCountsAll: Bool { compiled?.residue == nil && !pending }
    /// SQL selects exactly the rows, in the request's order, its window applied: the rows are
    /// the answer.
    var sqlAnswersAll: Bool { sqlCountsAll && order.isExact }
    /// The request's limit and offset go into the SQL.
    var windowInSQL: Bool { sqlAnswersAll && (request.effectiveLimit != nil || request.fetchOffset > 0) }
    /// The query leaves row order out where ordering by `_pk` costs the engine
    /// (`StoreDialect.ordersByKeyForFree`) and no window needs it.
    var leavesKeyOrderOut: Bool {
        request.sortDescriptors.isEmpty && !windowInSQL && !dialect.ordersByKeyForFree
    }
    /// The objects of such a query are put in row order as they are made; not where changes are
    /// pending, as `complete` then sorts the whole answer.
    var sortsByKeyAfterwards: Bool { leavesKeyOrderOut && !pending }
    var parameters: [SQLArgument] { compiled?.parameters ?? [] }

    /// The query of `columns` of `entity`'s rows: filtered, ordered (unless `leavesKeyOrderOut`
    /// and the caller sorts) and windowed as planned.
    func sql(selecting columns: String, of entity: EntityDescription, callerSortsByKey: Bool) -> String {
        var sql = "SELECT \(columns) " + entity.fetchedRowsSQL(where: compiled?.sql, dialect)
        if !(callerSortsByKey && leavesKeyOrderOut) { sql += " ORDER BY " + order.sql }
        if windowInSQL { sql += dialect.window(limit: request.effectiveLimit, offset: request.fetchOffset) }
        return sql
    }

    /// The count query: filtered as planned, not windowed (the window is applied to the count).
    func countSQL(of entity: EntityDescription) -> String {
        "SELECT count(*) " + entity.fetchedRowsSQL(where: compiled?.sql, dialect)
    }

    /// The request's answer from the objects SQL selected (of a plan that does not answer all):
    /// filtered again where changes are pending or the predicate has a residue, the context's
    /// changed and inserted objects that now match added, sorted and windowed.
    func complete(_ selected: [T], in context: ObjectContext) -> [T] {
        var objects = selected
        let condition = request.predicate?.condition
        let residue = compiled?.residue
        if pending {
            // Unchanged objects need only what SQL left out; changed ones the whole condition.
            objects = objects.filter { object in
                if object.changedMask == 0 && object.relationshipMask == 0 && !throughRelationships {
                    return residue.map { PredicateEvaluator.matches($0, object) } ?? true
                }
                return condition.map { PredicateEvaluator.matches($0, object) } ?? true
            }
            let present = Set(objects.map(ObjectIdentifier.init))
            let entity = T.entityDescription
            for object in context.updatedObjects + context.insertedObjects where !object.isListedAsDeleted {
                // By entity, not by class: the entity's sub-entities are what a fetch returns.
                guard entity.includes(type(of: object).entityDescription.entityID),
                    !present.contains(ObjectIdentifier(object))
                else { continue }
                if condition.map({ PredicateEvaluator.matches($0, object) }) ?? true {
                    // Reinterpreted, not downcast: the object is of the entity or a sub-entity,
                    // whose class need not descend from `T`'s (the oracle's models share one
                    // class; `unsafeDowncast` traps there in debug builds).
                    objects.append(
                        Unmanaged<T>.fromOpaque(Unmanaged.passUnretained(object).toOpaque()).takeUnretainedValue())
                }
            }
            objects = ObjectContext.sorted(objects, by: request.sortDescriptors)
        } else {
            if let residue { objects = objects.filter { PredicateEvaluator.matches(residue, $0) } }
            if !order.isExact { objects = ObjectContext.sorted(objects, by: request.sortDescriptors) }
        }
        let start = min(request.fetchOffset, objects.count)
        let end = request.effectiveLimit.map { min(start + $0, objects.count) } ?? objects.count
        return Array(objects[start..<end])
    }
}
