import Foundation
import ModelGenRuntime

@testable import ModelGenCore

/// One seeded oracle case: a random model through the real front end, random operations on a real
/// SQLite file or PostgreSQL schema, every step checked; a failing case is shrunk to fewer operations.
struct OracleCase {
    let seed: UInt64
    let operationCount: Int
    var options = OracleModel.Options()

    /// What a failing case reports: the finding, the model and the shortest failing operations.
    struct Failure: CustomStringConvertible {
        var seed: UInt64
        var finding: String
        var model: String
        var operations: [OracleOperation]

        var description: String {
            "oracle seed \(seed): \(finding)\n\(operations.count) operations:\n"
                + operations.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
                + "\nmodel:\n\(model)"
        }
    }

    /// The runtime model of `model`, through parse, resolve and lowering as `modelgen` does.
    static func runtimeModel(_ model: OracleModel) throws -> PersistentStore.Model {
        let engine = DiagnosticEngine()
        let file = SourceFile(path: "Oracle.xcdatamodel/contents", bytes: Array(model.xml.utf8))
        guard var objectModel = FrontEnd().run(file, diagnostics: engine),
            case let schema = SchemaLowering().lower(objectModel, diagnostics: engine), let schema, !engine.hasErrors
        else {
            throw OracleFinding(
                "a model Xcode accepts was refused: " + engine.sorted.map { "\($0)" }.joined(separator: "; "))
        }
        objectModel.modelName = "Oracle"
        return runtimeModel(objectModel, schema, model)
    }

    /// The runtime model of a loaded model, new objects starting with `model`'s defaults.
    static func runtimeModel(_ objectModel: ObjectModel, _ schema: RelationalSchema, _ model: OracleModel)
        -> PersistentStore.Model
    {
        RuntimeSeeder.runtimeModel(objectModel, schema, patterns: false) { entityName, attributeName in
            guard let entity = model.entities.indices.first(where: { model.entities[$0].name == entityName }),
                let attribute = model.attributes(of: entity).first(where: { $0.name == attributeName })
            else { return nil }
            return attribute.defaultValue?.runtimeValue(attribute.kind)
        }
    }

    /// Runs the case in `place`; returns the tally, or the shrunk failure.
    func run(in directory: OraclePlace) -> (OracleTally, Failure?) {
        var random = OracleRandom(seed: seed)
        let model = OracleModel.random(&random, options: options)
        let runtime: PersistentStore.Model
        do {
            runtime = try Self.runtimeModel(model)
        } catch {
            return (OracleTally(), Failure(seed: seed, finding: "\(error)", model: model.xml, operations: []))
        }
        return Self.run(
            model: model, runtime: runtime, random: &random, seed: seed, operationCount: operationCount, in: directory,
            label: model.xml)
    }

    /// Random operations on `model` (its runtime form `runtime`), every step checked; `label`
    /// names the model in a failure.
    static func run(
        model: OracleModel, runtime: PersistentStore.Model, random: inout OracleRandom, seed: UInt64,
        operationCount: Int,
        in directory: OraclePlace, label: String
    ) -> (OracleTally, Failure?) {
        var operations: [OracleOperation] = []
        var tally = OracleTally(cases: 1)
        let location: OracleStore
        do {
            location = try directory.store("oracle_\(seed)")
        } catch {
            return (tally, Failure(seed: seed, finding: "no store: \(error)", model: label, operations: []))
        }
        do {
            let run = try OracleRun(model: model, runtime: runtime, location: location)
            var generator = OracleGenerator(model: model)
            for _ in 0..<operationCount {
                let operation = generator.next(run, &random)
                operations.append(operation)
                try run.apply(operation)
            }
            operations.append(.reopen)
            try run.apply(.reopen)
            tally = tally + run.tally
        } catch {
            let shrunk = shrink(operations, model: model, runtime: runtime, directory: directory)
            return (tally, Failure(seed: seed, finding: shrunk.1 ?? "\(error)", model: label, operations: shrunk.0))
        }
        location.remove()
        return (tally, nil)
    }

    /// The finding of `operations` replayed on a new store, or nil when they pass.
    static func replay(
        _ operations: [OracleOperation], model: OracleModel, runtime: PersistentStore.Model, location: OracleStore
    ) -> String? {
        location.remove()
        defer { location.remove() }
        do {
            let run = try OracleRun(model: model, runtime: runtime, location: location)
            for operation in operations { try run.apply(operation) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Leaves out runs of operations while the case still fails (at most 400 replays).
    static func shrink(
        _ operations: [OracleOperation], model: OracleModel, runtime: PersistentStore.Model, directory: OraclePlace
    ) -> ([OracleOperation], String?) {
        guard let location = try? directory.store("oracle_shrink") else { return (operations, nil) }
        var current = operations
        var finding = replay(current, model: model, runtime: runtime, location: location)
        guard finding != nil else { return (operations, nil) }
        var budget = 400
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && budget > 0 {
            var start = 0
            var removed = false
            while start < current.count && budget > 0 {
                budget -= 1
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                if let failure = replay(candidate, model: model, runtime: runtime, location: location) {
                    current = candidate
                    finding = failure
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed || chunk > 1 { chunk /= 2 }
        }
        return (current, finding)
    }
}

/// Chooses the next operation from the current state (objects that exist, values they hold).
struct OracleGenerator {
    let model: OracleModel
    private var nextID = 1
    /// Operations owed to earlier ones (a new object's required to-ones).
    private var queued: [OracleOperation] = []

    init(model: OracleModel) { self.model = model }

    mutating func next(_ run: OracleRun, _ random: inout OracleRandom) -> OracleOperation {
        let state = run.state
        if state.hasDenyConflict { return .save }
        while !queued.isEmpty {
            let operation = queued.removeFirst()
            return operation
        }
        let live = state.objects.keys.sorted()
        let roll = random.below(1000)
        if roll < 200 || live.isEmpty { return insert(state, &random) }
        let id = random.pick(live)
        let entity = state.objects[id]!.entity
        if roll < 350 {
            guard let attribute = model.attributes(of: entity).randomElement(using: &random) else {
                return inspectOrQuery(state, id, &random)
            }
            let value = attribute.isOptional && random.chance(25) ? nil : fresh(attribute, &random)
            return .set(id: id, attribute: attribute.name, value: value)
        }
        if roll < 550, let (ref, relationship) = model.relationships(of: entity).randomElement(using: &random) {
            let candidates = live.filter { model.isKind(state.objects[$0]!.entity, of: relationship.destination) }
            if !relationship.isToMany {
                let target = candidates.isEmpty || random.chance(20) ? nil : random.pick(candidates)
                return .setToOne(id: id, relationship: ref, target: target)
            }
            var targets = state.targets(id, ref)
            if !targets.isEmpty && random.chance(35) {
                targets.remove(at: random.below(targets.count))
            } else if let target = candidates.randomElement(using: &random), !targets.contains(target) {
                targets.insert(target, at: relationship.isOrdered ? random.below(targets.count + 1) : targets.count)
            }
            return .setToMany(id: id, relationship: ref, targets: targets)
        }
        if roll < 610 { return .delete(id: id) }
        if roll < 690 { return .save }
        if roll < 710 { return .rollback }
        if roll < 725 { return .reopen }
        if roll < 745, let (ref, relationship) = model.relationships(of: entity).randomElement(using: &random) {
            let saved = run.saved.objects.keys.sorted().filter {
                model.isKind(run.saved.objects[$0]!.entity, of: relationship.destination)
            }
            if let target = saved.randomElement(using: &random) {
                return .crossLink(id: id, relationship: ref, target: target)
            }
        }
        return inspectOrQuery(state, id, &random)
    }

    private mutating func inspectOrQuery(_ state: OracleState, _ id: Int, _ random: inout OracleRandom)
        -> OracleOperation
    {
        if random.chance(15) { return .inspect(id: id) }
        return .query(query(state, &random))
    }

    private mutating func insert(_ state: OracleState, _ random: inout OracleRandom) -> OracleOperation {
        let entity = random.pick(model.concreteEntities)
        let id = nextID
        nextID += 1
        var values: [String: OracleValue] = [:]
        for attribute in model.attributes(of: entity) {
            let needed = !attribute.isOptional && attribute.defaultValue == nil
            if (needed && random.chance(97)) || random.chance(45) { values[attribute.name] = fresh(attribute, &random) }
        }
        for (ref, relationship) in model.relationships(of: entity)
        where !relationship.isToMany && !relationship.isOptional {
            let candidates = state.objects.keys.sorted().filter {
                model.isKind(state.objects[$0]!.entity, of: relationship.destination)
            }
            if let target = candidates.randomElement(using: &random), random.chance(95) {
                queued.append(.setToOne(id: id, relationship: ref, target: target))
            }
        }
        return .insert(id: id, entity: entity, values: values)
    }

    /// A value for `attribute`; a unique one mostly gets one no other object has.
    private func fresh(_ attribute: OracleModel.Attribute, _ random: inout OracleRandom) -> OracleValue {
        let isUnique = model.entities.contains { $0.unique?.contains(attribute.name) ?? false }
        if isUnique && [.string, .int32, .int64].contains(attribute.kind) && random.chance(90) {
            let number = Int64(random.below(1_000_000)) + 1000
            return attribute.kind == .string ? .string("u\(number)") : .int(number)
        }
        return OracleValue.random(attribute.kind, &random)
    }

    private func query(_ state: OracleState, _ random: inout OracleRandom) -> OracleQuery {
        let entity = random.below(model.entities.count)
        let maker = OraclePredicateMaker(model: model, state: state)
        let predicate = random.chance(85) ? maker.make(entity, &random) : nil
        var sort: [(String, Bool, Bool)] = []
        if random.chance(45) {
            let ordered = model.attributes(of: entity).filter { $0.kind.isOrdered }
            for _ in 0..<1 + random.below(2) {
                guard let attribute = ordered.randomElement(using: &random) else { break }
                sort.append((attribute.name, random.chance(60), attribute.kind == .string && random.chance(30)))
            }
        }
        let limit: Int? = random.chance(25) ? random.pick([0, 1, 2, 5]) : nil
        let offset = random.chance(15) ? 1 + random.below(2) : 0
        return OracleQuery(
            entity: entity, predicate: predicate, sort: sort, limit: limit, offset: offset,
            argumentsFromOtherContext: random.chance(15),
            alsoFresh: random.chance(30))
    }
}
