import PredicateSyntax

/// The key paths of fetch request templates and fetched properties resolve against their entity.
enum PredicateRules {
    static func unknownKey(_ key: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-predicate-key", .error, "predicate key '\(key)' is not a property of '\(entity)'")
    }
    static func keyAfterAttribute(_ key: String, _ attribute: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "invalid-predicate-key-path", .error,
            "predicate key '\(key)' follows attribute '\(attribute)', which has no properties")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for request in model.fetchRequests {
            check(request, owner: nil, in: model, diagnostics)
        }
        for (index, entity) in model.entities.enumerated() {
            for property in entity.fetchedProperties {
                check(property.request, owner: index, in: model, diagnostics)
            }
        }
    }

    private static func check(
        _ request: FetchRequest, owner: Int?, in model: ObjectModel, _ diagnostics: DiagnosticEngine
    ) {
        guard let predicate = request.predicate?.node, let entity = request.entity else { return }
        let errors = diagnostics.errorCount
        var checker = KeyPathChecker(model: model, line: request.line, owner: owner, diagnostics: diagnostics)
        checker.check(predicate, entity: entity)
        guard diagnostics.errorCount == errors,
            let (reason, offset) = RuntimePredicateSupport.refusal(predicate, entity: entity, in: model)
        else { return }
        let name = owner.map { "\(model.entities[$0].name).\(request.name)" } ?? request.name
        diagnostics.report(
            RuntimePredicateSupport.notRun(name, reason),
            at: model.source.location(line: request.line, attributeValue: "predicateString", offset: offset))
    }
}

/// Walks a predicate and resolves each key path step by step.
private struct KeyPathChecker {
    let model: ObjectModel
    let line: Int
    /// The entity of the fetched property that owns the request (`$FETCH_SOURCE`).
    let owner: Int?
    let diagnostics: DiagnosticEngine
    /// SUBQUERY variables in scope and the entity each ranges over (`nil`: unknown).
    var scope: [String: Int?] = [:]

    mutating func check(_ predicate: PredicateNode, entity: Int) {
        switch predicate {
        case .constant: break
        case .not(let inner): check(inner, entity: entity)
        case .and(let terms), .or(let terms): for term in terms { check(term, entity: entity) }
        case .comparison(let comparison):
            _ = check(comparison.lhs, entity: entity)
            _ = check(comparison.rhs, entity: entity)
        }
    }

    /// Checks an expression; returns the entity a key path ends on, when it ends on one.
    @discardableResult
    mutating func check(_ expression: Expression, entity: Int) -> Int? {
        switch expression {
        case .keyPath(let root, let components, let offset):
            let start: Int?
            switch root {
            case .implicit, .self: start = entity
            case .argument: return nil
            case .variable(let name):
                if let bound = scope[name] {
                    start = bound
                } else if name == "FETCH_SOURCE" {
                    start = owner
                } else {
                    return nil  // a substitution variable: its value is not known here
                }
            }
            guard let start else { return nil }
            return walk(components, from: start, offset: offset)
        case .literal, .variable, .argument:
            return nil
        case .aggregate(let items):
            for item in items { check(item, entity: entity) }
            return nil
        case .function(_, let arguments):
            for argument in arguments { check(argument, entity: entity) }
            return nil
        case .arithmetic(_, let lhs, let rhs):
            check(lhs, entity: entity)
            check(rhs, entity: entity)
            return nil
        case .negate(let inner), .cast(let inner, _):
            check(inner, entity: entity)
            return nil
        case .member(let base, let components):
            guard let start = check(base, entity: entity) else { return nil }
            return walk(components, from: start, offset: 0)
        case .index(let base, let index):
            let result = check(base, entity: entity)
            if case .position(let position) = index { check(position, entity: entity) }
            return result
        case .subquery(let collection, let variable, let predicate):
            let destination = check(collection, entity: entity)
            let saved = scope[variable]
            scope[variable] = .some(destination)
            if let destination { check(predicate, entity: destination) }
            scope[variable] = saved
            return nil
        }
    }

    /// Follows `components` from `entity`; reports the first key that does not resolve.
    private func walk(_ components: [String], from entity: Int, offset: Int) -> Int? {
        var current = entity
        var position = 0
        while position < components.count {
            let key = components[position]
            position += 1
            if key.hasPrefix("@") { continue }  // collection operators keep the current entity
            guard let ref = model.property(named: key, in: current) else {
                diagnostics.report(
                    PredicateRules.unknownKey(key, model.entities[current].name), at: location(offset),
                    notes: model.suggestion(for: key, in: current))
                return nil
            }
            switch ref {
            case .attribute:
                let attribute = model.attribute(ref)!
                guard position < components.count else { return nil }
                let next = components[position]
                if next.hasPrefix("@") { return nil }
                switch attribute.type {
                case .composite, .transformable, .undefined, .objectID: return nil
                default:
                    diagnostics.report(PredicateRules.keyAfterAttribute(next, attribute.name), at: location(offset))
                    return nil
                }
            case .relationship:
                guard let destination = model.relationship(ref)?.destination else { return nil }
                current = destination
            case .fetchedProperty(let owner, let index):
                guard let destination = model.entities[owner].fetchedProperties[index].request.entity else {
                    return nil
                }
                current = destination
            }
        }
        return current
    }

    private func location(_ offset: Int) -> SourceLocation {
        model.source.location(line: line, attributeValue: "predicateString", offset: offset)
    }
}
