import Foundation
@_spi(Generated) import ModelGenRuntime

@testable import ModelGenCore

/// What the runtime did that brute force says it should not have.
struct OracleFinding: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Counts of what a run checked.
struct OracleTally {
    var cases = 0
    var operations = 0
    var queries = 0
    var predicates = 0
    var comparedObjects = 0
    var saves = 0
    var refusedSaves = 0
    var reopens = 0

    static func + (a: OracleTally, b: OracleTally) -> OracleTally {
        OracleTally(
            cases: a.cases + b.cases, operations: a.operations + b.operations, queries: a.queries + b.queries,
            predicates: a.predicates + b.predicates, comparedObjects: a.comparedObjects + b.comparedObjects,
            saves: a.saves + b.saves,
            refusedSaves: a.refusedSaves + b.refusedSaves, reopens: a.reopens + b.reopens)
    }
}

/// The entry point a dynamic entity class gives the oracle: a fetch and a count typed for the class.
protocol OracleQuerying {
    static func oracleQuery(
        _ context: ObjectContext, format: String?, arguments: [Any?], sort: [(String, Bool, Bool)], limit: Int?,
        offset: Int
    ) throws -> (objects: [ManagedObject], count: Int)
}

extension DynamicEntity: OracleQuerying {
    static func oracleQuery(
        _ context: ObjectContext, format: String?, arguments: [Any?], sort: [(String, Bool, Bool)], limit: Int?,
        offset: Int
    ) throws -> (objects: [ManagedObject], count: Int) {
        let predicate = try format.map { text throws in
            try ObjectPredicate<DynamicEntity>(format: text, arguments: arguments)
        }
        var descriptors: [ObjectSortDescriptor<DynamicEntity>] = []
        for (key, ascending, caseInsensitive) in sort {
            descriptors.append(
                try ObjectSortDescriptor(key: key, ascending: ascending, caseInsensitive: caseInsensitive))
        }
        let request = FetchRequest<DynamicEntity>(
            predicate: predicate, sortDescriptors: descriptors, fetchLimit: limit, fetchOffset: offset)
        return (try context.fetch(request), try context.count(request))
    }
}

/// One oracle case: a model, a store file, the runtime's contexts and the brute-force state.
final class OracleRun {
    let model: OracleModel
    let runtime: PersistentStore.Model
    let location: OracleStore
    /// Runtime entity per model entity index.
    let entities: [EntityDescription]
    private(set) var store: PersistentStore
    private(set) var context: ObjectContext
    /// The pending state of `context`, and the state of the store.
    private(set) var state: OracleState
    private(set) var saved: OracleState
    /// The working context's object for each live oracle id.
    private var objects: [Int: ManagedObject] = [:]
    var tally = OracleTally()

    init(model: OracleModel, runtime: PersistentStore.Model, location: OracleStore) throws {
        self.model = model
        self.runtime = runtime
        self.location = location
        entities = model.entities.map { entity in runtime.entities.first { $0.name == entity.name }! }
        store = try location.open(runtime)
        context = store.newContext()
        state = OracleState(model: model)
        saved = state
    }

    private func attribute(_ id: Int, _ name: String) -> OracleModel.Attribute? {
        state.objects[id].flatMap { object in model.attributes(of: object.entity).first { $0.name == name } }
    }

    /// Runs `operation`; returns false when it no longer applies (an id it names is gone), as when
    /// a shrunk case left out the step that made it.
    @discardableResult
    func apply(_ operation: OracleOperation) throws -> Bool {
        tally.operations += 1
        switch operation {
        case .insert(let id, let entity, let values):
            guard objects[id] == nil, state.objects[id] == nil else { return false }
            let object = context.insert(entities[entity].objectType!)
            objects[id] = object
            var initial: [String: OracleValue] = [:]
            for attribute in model.attributes(of: entity) {
                if let value = attribute.defaultValue { initial[attribute.name] = value }
            }
            state.objects[id] = OracleState.Object(entity: entity, values: initial, sequence: id, row: nil)
            for (name, value) in values.sorted(by: { $0.key < $1.key }) { try setAttribute(id, name, value) }
        case .set(let id, let name, let value):
            guard state.objects[id] != nil else { return false }
            try setAttribute(id, name, value)
        case .setToOne(let id, let ref, let target):
            guard let object = objects[id], state.objects[id] != nil, target.map({ state.objects[$0] != nil }) ?? true
            else { return false }
            try runtimeCall("set \(ref.name)") { () throws in
                try object.setValue(target.map { objects[$0]! }, forKey: ref.name)
            }
            state.setToOne(id, ref, target)
        case .setToMany(let id, let ref, let targets):
            guard let object = objects[id], state.objects[id] != nil, targets.allSatisfy({ state.objects[$0] != nil })
            else { return false }
            let destinations = targets.map { objects[$0]! }
            try runtimeCall("set \(ref.name)") { () throws in
                try object.setValue(destinations, forKey: ref.name)
            }
            state.setToMany(id, ref, targets)
        case .delete(let id):
            guard let object = objects[id], state.objects[id] != nil else { return false }
            context.delete(object)
            state.delete(id)
        case .save:
            try save()
        case .rollback:
            context.rollback()
            restoreSaved()
        case .reopen:
            try reopen()
        case .crossLink(let id, let ref, let target):
            guard let object = objects[id], state.objects[id] != nil, let row = saved.objects[target]?.row else {
                return false
            }
            let other = store.newContext()
            guard let foreign = try savedObjects(in: other)[target], foreign.objectID.rowID == row else {
                throw OracleFinding("saved #\(target) is not found in a new context")
            }
            let value: Any = model.relationship(ref).isToMany ? [foreign] : foreign
            do {
                try object.setValue(value, forKey: ref.name)
                throw OracleFinding("linking #\(id).\(ref.name) to an object of another context was accepted")
            } catch let error as DatabaseError {
                guard error.code == .misuse else {
                    throw OracleFinding("a link across contexts was refused with \(error), not .misuse")
                }
            }
            withExtendedLifetime(other) {}
        case .inspect(let id):
            guard state.objects[id] != nil, !state.hasDenyConflict else { return false }
            try inspect(id)
        case .query(let query):
            guard !state.hasDenyConflict,
                query.predicate?.objectIDs.allSatisfy({ state.objects[$0] != nil && objects[$0] != nil }) ?? true
            else {
                return false
            }
            try check(query)
        }
        return true
    }

    private func runtimeCall(_ what: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw OracleFinding("\(what) threw \(error)")
        }
    }

    private func setAttribute(_ id: Int, _ name: String, _ value: OracleValue?) throws {
        guard let attribute = attribute(id, name), let object = objects[id] else {
            throw OracleFinding("no attribute \(name) on #\(id)")
        }
        try runtimeCall("set \(name)") { () throws in
            try object.setValue(value?.runtimeValue(attribute.kind), forKey: name)
        }
        state.objects[id]!.values[name] = value
    }

    // MARK: - Saving

    private func save() throws {
        tally.saves += 1
        let violations = state.violations()
        do {
            try context.save()
        } catch let error as DatabaseError {
            tally.refusedSaves += 1
            guard let first = violations.first else { throw OracleFinding("save refused a valid state: \(error)") }
            let expected: [DatabaseError.Code] = violations.map {
                switch $0 {
                case .validation: .validation
                case .uniqueness: .uniqueness
                case .deny: .deny
                }
            }
            guard expected.contains(error.code) else {
                throw OracleFinding("save refused with \(error), expected \(expected.map(\.description)) for \(first)")
            }
            context.rollback()
            restoreSaved()
            return
        }
        if let first = violations.first { throw OracleFinding("save accepted a state Core Data refuses: \(first)") }
        var rows: [Int: Int64] = [:]
        for id in state.objects.keys {
            guard let object = objects[id], !object.objectID.isTemporary else {
                throw OracleFinding("#\(id) has no row after the save")
            }
            rows[id] = object.objectID.rowID
        }
        state.committed(rows: rows)
        saved = state
        objects = objects.filter { state.objects[$0.key] != nil }
    }

    private func restoreSaved() {
        state = saved
        objects = objects.filter { saved.objects[$0.key] != nil }
    }

    // MARK: - Reopening

    private func reopen() throws {
        tally.reopens += 1
        context.rollback()
        restoreSaved()
        objects = [:]
        store = try location.open(runtime)
        context = store.newContext()
        objects = try savedObjects(in: context)
        for (id, object) in saved.objects.sorted(by: { $0.key < $1.key }) where objects[id] == nil {
            throw OracleFinding(
                "after reopening, #\(id) (\(model.entities[object.entity].name) row \(object.row!)) is missing")
        }
        // No object more than the state holds, of any entity.
        for root in model.entities.indices where model.entities[root].parent == nil {
            let (all, count) = try query(root, format: nil, arguments: [], sort: [], limit: nil, offset: 0, in: context)
            let expected = saved.objects.values.filter { model.isKind($0.entity, of: root) }.count
            guard all.count == expected, count == expected else {
                throw OracleFinding(
                    "after reopening, \(model.entities[root].name) has \(all.count) objects (count \(count)), expected \(expected)"
                )
            }
        }
        for id in saved.objects.keys.sorted() { try inspect(id) }
    }

    /// The objects of `context` for the saved state's objects, by oracle id: every hierarchy
    /// fetched once, each row matched by its entity and `_pk`.
    private func savedObjects(in context: ObjectContext) throws -> [Int: ManagedObject] {
        let ids = Dictionary(
            uniqueKeysWithValues: saved.objects.map {
                ("\(model.entities[$0.value.entity].name)/\($0.value.row!)", $0.key)
            })
        var found: [Int: ManagedObject] = [:]
        for root in model.entities.indices where model.entities[root].parent == nil {
            for object in try query(root, format: nil, arguments: [], sort: [], limit: nil, offset: 0, in: context)
                .objects
            {
                if let id = ids["\(type(of: object).entityDescription.name)/\(object.objectID.rowID)"] {
                    found[id] = object
                }
            }
        }
        return found
    }

    // MARK: - Checking

    private func query(
        _ entity: Int, format: String?, arguments: [Any?], sort: [(String, Bool, Bool)], limit: Int?, offset: Int,
        in context: ObjectContext
    ) throws -> (objects: [ManagedObject], count: Int) {
        guard let type = entities[entity].objectType as? any OracleQuerying.Type else {
            throw OracleFinding("no class for \(entity)")
        }
        do {
            return try type.oracleQuery(
                context, format: format, arguments: arguments, sort: sort, limit: limit, offset: offset)
        } catch {
            throw OracleFinding("query \(format ?? "all") threw \(error)")
        }
    }

    /// Compares one object's attributes and relationships, as the working context reads them, with
    /// the state.
    private func inspect(_ id: Int) throws {
        tally.comparedObjects += 1
        guard let object = objects[id], let expected = state.objects[id] else { return }
        let name = model.entities[expected.entity].name
        guard type(of: object).entityDescription.name == name else {
            throw OracleFinding("#\(id) is a \(type(of: object).entityDescription.name), expected \(name)")
        }
        for attribute in model.attributes(of: expected.entity) {
            let read: Any?
            do { read = try object.value(forKey: attribute.name) } catch {
                throw OracleFinding("reading #\(id).\(attribute.name) threw \(error)")
            }
            let value = read.flatMap { OracleValue.from(runtime: $0, attribute.kind) }
            if read != nil && value == nil {
                throw OracleFinding("#\(id).\(attribute.name) read \(read!) of type \(type(of: read!))")
            }
            let want = expected.values[attribute.name]
            let same =
                switch (value, want) {
                case (nil, nil): true
                case (let a?, let b?): a.isIdentical(to: b)
                default: false
                }
            if !same {
                throw OracleFinding(
                    "#\(id).\(attribute.name) is \(value.map { "\($0)" } ?? "nil"), expected \(want.map { "\($0)" } ?? "nil")"
                )
            }
        }
        let ids = Dictionary(uniqueKeysWithValues: objects.map { (ObjectIdentifier($0.value), $0.key) })
        for (ref, relationship) in model.relationships(of: expected.entity) {
            let read: Any?
            do { read = try object.value(forKey: ref.name) } catch {
                throw OracleFinding("reading #\(id).\(ref.name) threw \(error)")
            }
            let found: [Int?] =
                relationship.isToMany
                ? ((read as? [ManagedObject]) ?? []).map { ids[ObjectIdentifier($0)] }
                : [(read as? ManagedObject).map { ids[ObjectIdentifier($0)] } ?? nil].compactMap { $0 }
            let want = state.targets(id, ref)
            let same =
                relationship.isOrdered ? found == want.map(Optional.some) : Set(found) == Set(want.map(Optional.some))
            if !same {
                throw OracleFinding(
                    "#\(id).\(ref.name) leads to \(found.map { $0.map { "#\($0)" } ?? "?" }), expected \(want.map { "#\($0)" })"
                )
            }
        }
    }

    /// A fetch and count of `query`, in the working context against the pending state and, when
    /// asked, in a new context against the saved state.
    private func check(_ query: OracleQuery) throws {
        tally.queries += 1
        if query.predicate != nil { tally.predicates += 1 }
        try check(query, context: context, objects: objects, state: state)
        if query.alsoFresh {
            let fresh = store.newContext()
            let freshObjects = try savedObjects(in: fresh)
            // Only when every object the predicate names is saved (a new context has no other).
            if query.predicate?.objectIDs.allSatisfy({ freshObjects[$0] != nil }) ?? true {
                try check(query, context: fresh, objects: freshObjects, state: saved)
            }
        }
    }

    private func check(_ query: OracleQuery, context: ObjectContext, objects: [Int: ManagedObject], state: OracleState)
        throws
    {
        var other: ObjectContext?
        var otherObjects: [Int: ManagedObject] = [:]
        if query.argumentsFromOtherContext {
            let second = store.newContext()
            other = second
            // Objects of the state that are saved as they are stored (same row).
            otherObjects = try savedObjects(in: second).filter { id, _ in
                state.objects[id]?.row != nil && state.objects[id]?.row == saved.objects[id]?.row
            }
        }
        let (format, arguments) =
            query.predicate.map { predicate in
                predicate.format(model) { id in otherObjects[id] ?? objects[id]! }
            } ?? (nil, [])
        if query.predicate?.isRefused ?? false {
            // NSPredicate's rules refuse it: the fetch must throw `.predicate`, and nothing else.
            guard let type = entities[query.entity].objectType as? any OracleQuerying.Type else {
                throw OracleFinding("no class for \(query.entity)")
            }
            do {
                _ = try type.oracleQuery(
                    context, format: format, arguments: arguments, sort: query.sort, limit: query.limit,
                    offset: query.offset)
            } catch {
                if (error as? DatabaseError)?.code == .predicate { return }
                throw OracleFinding("'\(format ?? "")' threw \(error), not .predicate")
            }
            throw OracleFinding("'\(format ?? "")' was not refused with .predicate")
        }
        let (found, count) = try self.query(
            query.entity, format: format, arguments: arguments, sort: query.sort, limit: query.limit,
            offset: query.offset, in: context)
        withExtendedLifetime(other) {}
        let ids = Dictionary(uniqueKeysWithValues: objects.map { (ObjectIdentifier($0.value), $0.key) })
        let got = found.map { ids[ObjectIdentifier($0)] }
        let expected = Self.expected(query, state)
        if got != expected.map(Optional.some) || count != expected.count {
            throw OracleFinding(
                "\(context === self.context ? "working" : "new") context: got \(got.map { $0.map { "#\($0)" } ?? "?" }) (count \(count)), expected \(expected.map { "#\($0)" })"
            )
        }
    }

    /// What `query` selects in `state`, by brute force: filter, sort (ties by row, unsaved objects
    /// last in insertion order), window (a limit of 0 is no limit).
    static func expected(_ query: OracleQuery, _ state: OracleState) -> [Int] {
        let model = state.model
        var ids = state.objects.keys.filter { id in
            model.isKind(state.objects[id]!.entity, of: query.entity) && (query.predicate?.evaluate(state, id) ?? true)
        }
        func rank(_ id: Int) -> (Int, Int64) {
            let object = state.objects[id]!
            return object.row.map { (0, $0) } ?? (1, Int64(object.sequence))
        }
        ids.sort { a, b in
            for (key, ascending, caseInsensitive) in query.sort {
                let x = state.value(a, key)
                let y = state.value(b, key)
                let order: Int
                switch (x, y) {
                case (nil, nil): order = 0
                case (nil, _): order = -1
                case (_, nil): order = 1
                case (let x?, let y?): order = OracleValue.order(x, y, caseInsensitive: caseInsensitive)
                }
                if order != 0 { return ascending ? order < 0 : order > 0 }
            }
            return rank(a) < rank(b)
        }
        let start = min(query.offset, ids.count)
        let end = query.limit.flatMap { $0 > 0 ? min(start + $0, ids.count) : nil } ?? ids.count
        return Array(ids[start..<end])
    }
}
