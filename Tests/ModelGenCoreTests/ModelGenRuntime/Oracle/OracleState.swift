/// What the store should hold, kept by brute force beside the runtime: every live object's values
/// and every link, with Core Data's rules for inverses, deletion and validation written out here
/// independently of the runtime.
struct OracleState {
    typealias Ref = OracleModel.RelationshipRef

    struct Object {
        var entity: Int
        var values: [String: OracleValue]
        /// Order of insertion (unsaved objects sort after saved ones in this order).
        var sequence: Int
        /// The row the runtime gave it at its first save (`nil` while unsaved).
        var row: Int64?
    }

    let model: OracleModel
    /// Live objects by oracle id.
    var objects: [Int: Object] = [:]
    /// Objects deleted since the last save, with their links kept (a Deny rule checks them).
    var deleted: [Int: Object] = [:]
    /// For each relationship, the objects each object leads to, in order.
    var links: [Ref: [Int: [Int]]] = [:]

    init(model: OracleModel) { self.model = model }

    func targets(_ object: Int, _ ref: Ref) -> [Int] { links[ref]?[object] ?? [] }

    func value(_ object: Int, _ name: String) -> OracleValue? { objects[object]?.values[name] }

    // MARK: - Links, both sides kept in step

    mutating func disconnect(_ a: Int, _ ref: Ref, _ b: Int) {
        links[ref, default: [:]][a]?.removeAll { $0 == b }
        links[model.inverse(of: ref), default: [:]][b]?.removeAll { $0 == a }
    }

    mutating func connect(_ a: Int, _ ref: Ref, _ b: Int) {
        if targets(a, ref).contains(b) { return }
        if !model.relationship(ref).isToMany, let old = targets(a, ref).first { disconnect(a, ref, old) }
        let inverse = model.inverse(of: ref)
        if !model.relationship(inverse).isToMany, let old = targets(b, inverse).first { disconnect(b, inverse, old) }
        links[ref, default: [:]][a, default: []].append(b)
        links[inverse, default: [:]][b, default: []].append(a)
    }

    /// A to-one set to `target` (or nil).
    mutating func setToOne(_ a: Int, _ ref: Ref, _ target: Int?) {
        if let target {
            connect(a, ref, target)
        } else if let old = targets(a, ref).first {
            disconnect(a, ref, old)
        }
    }

    /// A to-many set to exactly `wanted`, in that order when ordered.
    mutating func setToMany(_ a: Int, _ ref: Ref, _ wanted: [Int]) {
        for old in targets(a, ref) where !wanted.contains(old) { disconnect(a, ref, old) }
        for new in wanted where !targets(a, ref).contains(new) { connect(a, ref, new) }
        if model.relationship(ref).isOrdered { links[ref, default: [:]][a] = wanted }
    }

    // MARK: - Deleting

    /// Deletes `object` and applies its relationships' rules: Nullify unlinks, Cascade deletes the
    /// destinations, Deny keeps the links for the save to refuse.
    mutating func delete(_ object: Int) {
        guard let state = objects.removeValue(forKey: object) else { return }
        if state.row != nil { deleted[object] = state }
        for (ref, relationship) in model.relationships(of: state.entity) {
            let destinations = targets(object, ref)
            switch relationship.rule {
            case .nullify:
                for destination in destinations { disconnect(object, ref, destination) }
            case .cascade:
                for destination in destinations { delete(destination) }
                for destination in destinations { disconnect(object, ref, destination) }
            case .deny:
                if state.row == nil { for destination in destinations { disconnect(object, ref, destination) } }
            }
        }
    }

    /// Whether a Deny rule of a deleted object still has a live destination.
    var hasDenyConflict: Bool {
        deleted.contains { id, state in
            model.relationships(of: state.entity).contains { ref, relationship in
                relationship.rule == .deny && targets(id, ref).contains { objects[$0] != nil }
            }
        }
    }

    // MARK: - Validation (what a save must refuse)

    enum Violation: Equatable {
        case validation(String)
        case uniqueness(String)
        case deny
    }

    /// Every reason the pending state cannot be saved.
    func violations() -> [Violation] {
        var found: [Violation] = []
        if hasDenyConflict { found.append(.deny) }
        for (id, object) in objects.sorted(by: { $0.key < $1.key }) {
            let entity = model.entities[object.entity].name
            for attribute in model.attributes(of: object.entity)
            where !attribute.isOptional && object.values[attribute.name] == nil {
                found.append(.validation("\(entity).\(attribute.name) required"))
            }
            for attribute in model.attributes(of: object.entity)
            where object.values[attribute.name]?.isUnstorable ?? false {
                found.append(.validation("\(entity).\(attribute.name) NaN or -0.0"))
            }
            for (ref, relationship) in model.relationships(of: object.entity) {
                let count = targets(id, ref).count
                if !relationship.isToMany {
                    if !relationship.isOptional && count == 0 {
                        found.append(.validation("\(entity).\(ref.name) required"))
                    }
                    continue
                }
                // Core Data checks only the counts of a to-many; an optional one may be empty.
                let checked = count > 0 || !relationship.isOptional
                if checked, let minimum = relationship.minCount, count < minimum {
                    found.append(.validation("\(entity).\(ref.name) below \(minimum)"))
                }
                if let maximum = relationship.maxCount, maximum > 0, count > maximum {
                    found.append(.validation("\(entity).\(ref.name) above \(maximum)"))
                }
            }
        }
        for (index, entity) in model.entities.enumerated() {
            guard let unique = entity.unique else { continue }
            var seen: Set<[OracleValue?]> = []
            for (id, object) in objects.sorted(by: { $0.key < $1.key }) where model.isKind(object.entity, of: index) {
                // A to-one's value is its destination (by oracle id).
                let key = unique.map { name in
                    model.entities[index].relationships.contains { $0.name == name }
                        ? targets(id, OracleModel.RelationshipRef(entity: index, name: name)).first.map {
                            OracleValue.int(Int64($0))
                        }
                        : object.values[name]
                }
                if key.contains(where: { $0 == nil }) { continue }
                if !seen.insert(key).inserted { found.append(.uniqueness("\(entity.name) \(key)")) }
            }
        }
        return found
    }

    /// The state after a successful save: deleted objects are gone for good.
    mutating func committed(rows: [Int: Int64]) {
        for (id, row) in rows { objects[id]?.row = row }
        for id in deleted.keys {
            for ref in links.keys { links[ref]?[id] = nil }
        }
        deleted = [:]
    }
}
