import PredicateSyntax

extension ObjectPredicate {
    /// Parses an NSPredicate format string and type-checks it against `T`: `%@` (any value),
    /// `%K` (a key), `%d`/`%f` (numbers), `$VARIABLE`s from `variables`.
    /// - Throws: `.predicate` for unreadable text or an unsupported construct, `.unknownKey` for a
    ///   key that is not an attribute of `T`, `.wrongType` for an argument that does not fit.
    public init(format: String, _ arguments: Any?..., variables: [String: Any?] = [:]) throws(DatabaseError) {
        try self.init(format: format, arguments: arguments, variables: variables)
    }

    public init(format: String, arguments: [Any?], variables: [String: Any?] = [:]) throws(DatabaseError) {
        let tree: PredicateNode
        do {
            tree = try PredicateParser.parse(format)
        } catch {
            throw DatabaseError(.predicate, "cannot read predicate '\(format)': \(error.message) at offset \(error.offset)")
        }
        var converter = FormatConverter<T>(format: format, arguments: arguments, variables: variables)
        self.init(try converter.condition(tree))
    }
}

/// Turns a parsed format string into a `Predicate.Condition`, resolving keys and typing values.
struct FormatConverter<T: ManagedObject> {
    let format: String
    let arguments: [Any?]
    let variables: [String: Any?]
    let entity = T.entityDescription

    func fail(_ message: String) -> DatabaseError {
        DatabaseError(.predicate, "\(message) in '\(format)'", entity: entity.name)
    }

    mutating func condition(_ node: PredicateNode) throws(DatabaseError) -> ObjectPredicate<T>.Condition {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try condition(inner))
        case .and(let terms):
            var converted: [ObjectPredicate<T>.Condition] = []
            for term in terms { converted.append(try condition(term)) }
            return .and(converted)
        case .or(let terms):
            var converted: [ObjectPredicate<T>.Condition] = []
            for term in terms { converted.append(try condition(term)) }
            return .or(converted)
        case .comparison(let comparison):
            return try self.comparison(comparison)
        }
    }

    private func comparison(_ comparison: Comparison) throws(DatabaseError) -> ObjectPredicate<T>.Condition {
        guard comparison.quantifier == .none else {
            throw fail("ANY/ALL/NONE need a to-many relationship, which this entity does not have here")
        }
        var op = comparison.op
        var lhs = comparison.lhs
        var rhs = comparison.rhs
        // `value op key` is read as `key op' value`.
        if try key(of: lhs) == nil, try key(of: rhs) != nil {
            swap(&lhs, &rhs)
            switch op {
            case .less: op = .greater
            case .greater: op = .less
            case .lessOrEqual: op = .greaterOrEqual
            case .greaterOrEqual: op = .lessOrEqual
            case .equal, .notEqual: break
            default: throw fail("'\(op.rawValue)' needs the key on its left")
            }
        }
        guard let name = try key(of: lhs) else { throw fail("a comparison needs a key") }
        guard let slot = entity.slot(of: name) else {
            throw DatabaseError(.unknownKey, "\(entity.name) has no attribute '\(name)'", entity: entity.name, property: name)
        }
        let attribute = entity.attributes[slot]
        let value = try self.value(rhs)
        switch op {
        case .in:
            guard let collection = value as? any Collection else { throw fail("IN needs a collection") }
            var values: [StoredValue] = []
            for item in collection { values.append(try stored(item, attribute)) }
            return .oneOf(slot: slot, values: values)
        case .between:
            guard let bounds = value as? [Any?], bounds.count == 2 else { throw fail("BETWEEN needs two bounds") }
            return .between(slot: slot, low: try stored(bounds[0], attribute), high: try stored(bounds[1], attribute))
        default:
            if op.isStringOperator, attribute.type != .string && attribute.type != .url {
                throw DatabaseError(
                    .wrongType, "\(op.rawValue) needs a string attribute; '\(name)' is not one", entity: entity.name,
                    property: name)
            }
            return .compare(slot: slot, op: op, options: comparison.options, value: try stored(value, attribute))
        }
    }

    private func stored(_ value: Any?, _ attribute: AttributeDescription) throws(DatabaseError) -> StoredValue {
        guard let stored = StoredValue.from(value, for: attribute.type) else {
            throw DatabaseError(
                .wrongType, "\(String(describing: value ?? "nil")) does not fit '\(attribute.name)' (\(attribute.type))",
                entity: entity.name, property: attribute.name)
        }
        return stored
    }

    /// The attribute name an expression denotes, or `nil` when it is a value.
    private func key(of expression: Expression) throws(DatabaseError) -> String? {
        guard case .keyPath(let root, let components, _) = expression else { return nil }
        var path = components
        switch root {
        case .implicit: break
        case .self where components.isEmpty: throw fail("SELF comparisons are not supported")
        case .self: break
        case .variable: return nil
        case .argument(let index):
            guard index < arguments.count, let key = arguments[index] as? String else { throw fail("%K needs a key string") }
            path = key.split(separator: ".").map(String.init) + components
        }
        guard path.count == 1 else { throw fail("key path '\(path.joined(separator: "."))' goes through a relationship, which is not supported yet") }
        return path[0]
    }

    private func value(_ expression: Expression) throws(DatabaseError) -> Any? {
        switch expression {
        case .literal(let literal):
            switch literal {
            case .null: return nil
            case .bool(let flag): return flag
            case .integer(let number): return number
            case .double(let number): return number
            case .string(let text): return text
            }
        case .argument(let index, _):
            guard index < arguments.count else { throw fail("missing argument \(index + 1)") }
            return arguments[index]
        case .variable(let name, _):
            guard let value = variables[name] else { throw fail("no value for $\(name)") }
            return value
        case .keyPath(.variable(let name), let components, _) where components.isEmpty:
            guard let value = variables[name] else { throw fail("no value for $\(name)") }
            return value
        case .aggregate(let items):
            var values: [Any?] = []
            for item in items { values.append(try value(item)) }
            return values
        default:
            throw fail("'\(expression)' is not supported as a value")
        }
    }
}
