import PredicateSyntax

/// Which predicates ModelGenRuntime can run: a fetch request template or fetched property whose
/// predicate it cannot is reported (a warning: Xcode accepts the model) and gets no generated
/// function, so that no generated method always throws. The forms are those the runtime's format
/// converter refuses: functions, arithmetic, casts, indexes, SUBQUERY other than
/// `SUBQUERY(…).@count op n`, two key paths of which one goes through a relationship, and
/// collection operators other than `@count` and `toMany.@sum/@avg/@min/@max.attribute`.
enum RuntimePredicateSupport {
    static func notRun(_ name: String, _ reason: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "predicate-not-run-by-runtime", .warning,
            "the predicate of '\(name)' is not one ModelGenRuntime runs (\(reason)): no function is generated for it")
    }

    static let aggregateOperators: Set<String> = ["@sum", "@avg", "@min", "@max"]

    /// Why the runtime cannot run `predicate` on objects of `entity`, and where (an offset into
    /// the predicate string); `nil` when it can.
    static func refusal(_ predicate: PredicateNode, entity: Int, in model: ObjectModel) -> (
        reason: String, offset: Int
    )? {
        switch predicate {
        case .constant: return nil
        case .not(let inner): return refusal(inner, entity: entity, in: model)
        case .and(let terms), .or(let terms):
            for term in terms {
                if let found = refusal(term, entity: entity, in: model) { return found }
            }
            return nil
        case .comparison(let comparison):
            return refusal(comparison, entity: entity, in: model)
        }
    }

    private static func refusal(_ comparison: Comparison, entity: Int, in model: ObjectModel)
        -> (reason: String, offset: Int)?
    {
        let offset = comparison.offset
        if case .member(.subquery(let collection, _, let inner), ["@count"]) = comparison.lhs {
            guard case .keyPath(.implicit, let components, _) = collection, components.count == 1,
                let destination = toMany(components[0], of: entity, in: model)
            else { return ("SUBQUERY over something other than a to-many relationship", offset) }
            if let found = refusal(inner, entity: destination, in: model) { return found }
            return unsupportedExpression(comparison.rhs).map { ($0, offset) }
        }
        for side in [comparison.lhs, comparison.rhs] {
            if let reason = unsupportedExpression(side) { return (reason, offset) }
        }
        let left = ownPath(comparison.lhs)
        let right = ownPath(comparison.rhs)
        if let left, let right, left.count > 1 || right.count > 1 {
            return ("two key paths compared, one through a relationship", offset)
        }
        for path in [left, right].compactMap({ $0 }) {
            if let reason = unsupportedOperator(path, from: entity, in: model) { return (reason, offset) }
        }
        return nil
    }

    /// Why an expression is no form the runtime evaluates.
    private static func unsupportedExpression(_ expression: Expression) -> String? {
        switch expression {
        case .keyPath, .literal, .variable, .argument: return nil
        case .aggregate(let items): return items.lazy.compactMap(unsupportedExpression).first
        case .function(let name, _): return "the function \(name)()"
        case .arithmetic(let op, _, _): return "arithmetic '\(op.rawValue)'"
        case .negate: return "arithmetic '-'"
        case .index: return "an index into a collection"
        case .subquery, .member: return "SUBQUERY other than SUBQUERY(…).@count"
        case .cast: return "CAST"
        }
    }

    /// The components of a key path from the fetched object (`nil` for a value: a literal, an
    /// argument, a variable's object's keys).
    private static func ownPath(_ expression: Expression) -> [String]? {
        guard case .keyPath(let root, let components, _) = expression else { return nil }
        switch root {
        case .implicit, .self: return components
        case .argument, .variable: return nil
        }
    }

    /// Why a key path's collection operator is not one the runtime takes.
    private static func unsupportedOperator(_ path: [String], from entity: Int, in model: ObjectModel) -> String? {
        guard let position = path.firstIndex(where: { $0.hasPrefix("@") }) else { return nil }
        let name = path[position]
        let isCount = name == "@count"
        guard isCount || aggregateOperators.contains(name) else { return "the collection operator \(name)" }
        guard position > 0, position == path.count - (isCount ? 1 : 2) else {
            return isCount
                ? "@count not at the end of a to-many key path"
                : "\(name) needs a to-many relationship and one attribute"
        }
        var current = entity
        for key in path[..<(position - 1)] {
            guard let ref = model.property(named: key, in: current), let next = model.relationship(ref)?.destination
            else { return nil }
            current = next
        }
        guard let destination = toMany(path[position - 1], of: current, in: model) else {
            return "\(name) after '\(path[position - 1])', which is not a to-many relationship"
        }
        guard !isCount else { return nil }
        let key = path[position + 1]
        guard let ref = model.property(named: key, in: destination), let attribute = model.attribute(ref),
            !attribute.isTransient
        else { return "\(name) of '\(key)', which is not a stored attribute" }
        let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float]
        let ordered = numeric.union([.string, .date, .uri])
        let takes = name == "@sum" || name == "@avg" ? numeric : ordered
        return takes.contains(attribute.type) ? nil : "\(name) of '\(key)', a \(attribute.type.rawValue) attribute"
    }

    /// The destination of `name` when it is a to-many relationship of `entity`.
    private static func toMany(_ name: String, of entity: Int, in model: ObjectModel) -> Int? {
        guard let ref = model.property(named: name, in: entity), let relationship = model.relationship(ref),
            relationship.isToMany
        else { return nil }
        return relationship.destination
    }
}
