import PredicateSyntax

extension ObjectPredicate {
    /// Parses an NSPredicate format string and type-checks it against `T`: `%@` (any value),
    /// `%K` (a key), `%d`/`%f` (numbers), `$VARIABLE`s from `variables`.
    /// - Throws: `.predicate` for unreadable text, an unsupported construct, a key that is not a
    ///   property of `T`, an argument that does not fit its key, a MATCHES pattern that is no
    ///   regular expression, or a to-many relationship inside a key path without ANY, ALL, NONE,
    ///   `@count` or an aggregate (the error's `property` names the key).
    public init(format: String, _ arguments: Any?..., variables: [String: Any?] = [:]) throws {
        try self.init(format: format, arguments: arguments, variables: variables)
    }

    /// A format string for a message: long ones cut in the middle (an error must not echo
    /// kilobytes of input).
    static func excerpt(_ format: String) -> String {
        guard format.count > 160 else { return format }
        return "\(format.prefix(100))…(\(format.count - 140) characters)…\(format.suffix(40))"
    }

    public init(format: String, arguments: [Any?], variables: [String: Any?] = [:]) throws {
        let tree: PredicateNode
        do {
            tree = try PredicateParser.parse(format)
        } catch {
            throw DatabaseError(
                .predicate,
                "cannot read predicate '\(Self.excerpt(format))': \(error.message) at offset \(error.offset)")
        }
        var converter = FormatConverter<T>(format: format, arguments: arguments, variables: variables)
        do {
            self.init(try converter.condition(tree))
        } catch {
            // One code for every predicate that cannot be used (an unknown key, an argument of
            // the wrong type, an unsupported construct): what a caller catches.
            var refused = error
            refused.code = .predicate
            throw refused
        }
    }
}

/// Turns a parsed format string into a `Predicate.Condition`, resolving keys and typing values.
struct FormatConverter<T: ManagedObject> {
    let format: String
    let arguments: [Any?]
    let variables: [String: Any?]
    /// The entity keys are of: `T`'s, or inside a SUBQUERY its collection's destination.
    var entity = T.entityDescription
    /// Inside a SUBQUERY, its iteration variable: `$g.points` is the key `points`.
    var iterationVariable: String?

    func fail(_ message: String) -> DatabaseError {
        DatabaseError(.predicate, "\(message) in '\(ObjectPredicate<T>.excerpt(format))'", entity: entity.name)
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
        var op = comparison.op
        var lhs = comparison.lhs
        var rhs = comparison.rhs
        // `SUBQUERY(grades, $g, $g.points > 50).@count > 2`.
        if case .member(.subquery(let collection, let variable, let inner), ["@count"]) = lhs {
            return try subqueryCount(collection, variable, inner, op, try value(rhs))
        }
        // `SELF == %@`, `SELF IN %@`: which objects.
        if Self.isSelf(lhs) || Self.isSelf(rhs) {
            return try selfComparison(op, Self.isSelf(lhs) ? rhs : lhs, selfOnLeft: Self.isSelf(lhs))
        }
        // Each side's key path (`nil` for a value), read once.
        let leftPath = try path(of: lhs)
        let rightPath = try path(of: rhs)
        // `object IN relationship`: membership.
        if op == .in, leftPath == nil, let path = rightPath, !path.isEmpty {
            return try membership(path[...], in: entity, try value(lhs))
        }
        // Two attributes of the object (`end > start`).
        if let left = leftPath, let right = rightPath {
            guard left.count == 1, right.count == 1, let slot = entity.slot(of: left[0]),
                let other = entity.slot(of: right[0]), comparison.quantifier == .none, op != .in, op != .between
            else {
                throw fail("two key paths are compared only as attributes of the same object (`end > start`)")
            }
            return .compareKeys(slot: slot, op: op, options: comparison.options, other: other)
        }
        // Two values (`true == true`, `1 < 2`): decided here, once.
        if leftPath == nil, rightPath == nil, op != .in, op != .between {
            guard let left = Self.literal(try value(lhs)), let right = Self.literal(try value(rhs)) else {
                throw fail("a comparison of two values takes numbers, strings, booleans or nil")
            }
            return .constant(PredicateEvaluator.compare(left, op, comparison.options, right))
        }
        // `value op key` is read as `key op' value`.
        var keyPath = leftPath
        if leftPath == nil, rightPath != nil {
            swap(&lhs, &rhs)
            keyPath = rightPath
            switch op {
            case .less: op = .greater
            case .greater: op = .less
            case .lessOrEqual: op = .greaterOrEqual
            case .greaterOrEqual: op = .lessOrEqual
            case .equal, .notEqual: break
            default: throw fail("'\(op.rawValue)' needs the key on its left")
            }
        }
        guard let path = keyPath, !path.isEmpty else { throw fail("a comparison needs a key") }
        let value = try self.value(rhs)
        return try condition(path[...], in: entity, op, comparison.options, value, comparison.quantifier)
    }

    /// The condition `path op value` on objects of `entity`, following relationships: a to-one
    /// leads on, a to-many is `ANY` (or `ALL`/`NONE`), `@count` counts, a relationship compared
    /// with an object (or nil) compares identity.
    private func condition(
        _ path: ArraySlice<String>, in entity: EntityDescription, _ op: ComparisonOperator,
        _ options: ComparisonOptions, _ value: Any?,
        _ quantifier: Quantifier
    ) throws(DatabaseError) -> ObjectPredicate<T>.Condition {
        let name = path.first!
        let rest = path.dropFirst()
        if let index = entity.relationshipIndex(of: name) {
            let relationship = entity.relationships[index]
            if rest.first == "@count" {
                guard rest.count == 1, relationship.isToMany else { throw fail("@count needs a to-many relationship") }
                guard let count = Self.integer(value) else { throw fail("@count compares with a number") }
                return .count(relationship: index, op: op, value: count)
            }
            if let function = Self.aggregateFunctions[rest.first ?? ""] {
                return try aggregate(function, of: index, rest.dropFirst(), in: entity, op, value)
            }
            if rest.isEmpty, relationship.isToMany, op == .equal, quantifier == .any || quantifier == .noneOf {
                // `ANY tags == %@` / `NONE tags == %@`: membership.
                let member = try membership([name][...], in: entity, value)
                return quantifier == .noneOf ? .not(member) : member
            }
            if rest.isEmpty {
                guard !relationship.isToMany, op == .equal || op == .notEqual else {
                    throw DatabaseError(
                        .predicate,
                        "'\(name)' is a relationship; compare a to-one with an object or nil, or name a key after it",
                        entity: entity.name, property: name)
                }
                let object: ManagedObject?
                if value == nil || ((value as? any OptionalProtocol)?.isNil ?? false) {
                    object = nil
                } else if let given = value as? ManagedObject {
                    object = given
                } else {
                    throw DatabaseError(
                        .wrongType, "'\(name)' compares with an object", entity: entity.name, property: name)
                }
                return .identity(relationship: index, equal: op == .equal, object: object)
            }
            guard let destination = relationship.destination?.entityDescription else {
                throw fail("the destination of '\(name)' is unknown")
            }
            if !relationship.isToMany {
                return .toOne(
                    relationship: index, inner: try condition(rest, in: destination, op, options, value, quantifier))
            }
            // A to-many inside a key path needs a quantifier (or @count, an aggregate, SUBQUERY):
            // `items.name == 'x'` is refused, as Core Data refuses it ("to-many key not allowed
            // here"), instead of being read as ANY.
            guard quantifier != .none else {
                throw DatabaseError(
                    .predicate,
                    "'\(name)' is a to-many relationship: compare its objects with ANY, ALL or NONE, or use @count, an aggregate (@sum, @avg, @min, @max) or SUBQUERY",
                    entity: entity.name, property: name)
            }
            let inner = try condition(rest, in: destination, op, options, value, .none)
            switch quantifier {
            case .none, .any: return .any(relationship: index, inner: inner)
            case .all: return .not(.any(relationship: index, inner: .not(inner)))
            case .noneOf: return .not(.any(relationship: index, inner: inner))
            }
        }
        guard rest.isEmpty else {
            throw DatabaseError(
                .unknownKey, "\(entity.name) has no relationship '\(name)'", entity: entity.name, property: name)
        }
        guard let slot = entity.slot(of: name) else {
            throw DatabaseError(
                .unknownKey, "\(entity.name) has no attribute '\(name)'", entity: entity.name, property: name)
        }
        guard quantifier == .none else { throw fail("ANY/ALL/NONE need a to-many relationship") }
        let attribute = entity.attributes[slot]
        switch op {
        case .in:
            guard let collection = value as? any Collection else { throw fail("IN needs a collection") }
            var values: [StoredValue] = []
            for item in collection {
                // A fraction equals no integer.
                if NumericOperand.fraction(item, for: attribute.type) != nil { continue }
                values.append(try stored(item, attribute, entity))
            }
            return .oneOf(slot: slot, values: values, options: options)
        case .between:
            guard let bounds = value as? [Any?], bounds.count == 2 else { throw fail("BETWEEN needs two bounds") }
            // Fractional bounds of an integer attribute: the integers between them.
            if let (_, ceiling) = NumericOperand.fraction(bounds[0], for: attribute.type) {
                let low = NumericOperand.condition(slot: slot, .greaterOrEqual, floor: ceiling, ceiling: ceiling)!
                let high = try condition(path, in: entity, .lessOrEqual, options, bounds[1], quantifier)
                return .and([low, high])
            }
            if let (floor, _) = NumericOperand.fraction(bounds[1], for: attribute.type) {
                let low = try condition(path, in: entity, .greaterOrEqual, options, bounds[0], quantifier)
                return .and([low, NumericOperand.condition(slot: slot, .lessOrEqual, floor: floor, ceiling: floor)!])
            }
            return .between(
                slot: slot, low: try stored(bounds[0], attribute, entity),
                high: try stored(bounds[1], attribute, entity))
        default:
            if op.isStringOperator, attribute.type != .string && attribute.type != .url {
                throw fail("\(op.rawValue) needs a string attribute; '\(name)' is not one")
            }
            if let (floor, ceiling) = NumericOperand.fraction(value, for: attribute.type),
                let condition = NumericOperand.condition(slot: slot, op, floor: floor, ceiling: ceiling)
            {
                return condition
            }
            let operand = try stored(value, attribute, entity)
            if op == .matches, case .text(let pattern) = operand { try checkRegularExpression(pattern) }
            return .compare(slot: slot, op: op, options: options, value: operand)
        }
    }

    /// Refuses a MATCHES pattern that is no regular expression (ICU's syntax, as NSPredicate's),
    /// instead of matching nothing.
    private func checkRegularExpression(_ pattern: String) throws(DatabaseError) {
        guard PredicateEvaluator.isRegularExpression(pattern) else {
            throw fail("MATCHES needs a regular expression; '\(pattern)' is not one")
        }
    }

    /// `value IN path`, where `path` ends in a relationship and `value` is an object.
    private func membership(_ path: ArraySlice<String>, in entity: EntityDescription, _ value: Any?)
        throws(DatabaseError) -> ObjectPredicate<T>.Condition
    {
        let name = path.first!
        guard let index = entity.relationshipIndex(of: name) else {
            throw DatabaseError(
                .unknownKey, "\(entity.name) has no relationship '\(name)'", entity: entity.name, property: name)
        }
        let relationship = entity.relationships[index]
        if path.count > 1 {
            guard !relationship.isToMany, let destination = relationship.destination?.entityDescription else {
                throw fail("'IN' follows to-one relationships only before the last key")
            }
            return .toOne(relationship: index, inner: try membership(path.dropFirst(), in: destination, value))
        }
        guard let object = value as? ManagedObject else {
            throw DatabaseError(
                .wrongType, "'\(name)' is a relationship: what is IN it is an object", entity: entity.name,
                property: name)
        }
        return .member(relationship: index, object: object)
    }

    static var aggregateFunctions: [String: ResultTerm.Function] {
        ["@sum": .sum, "@avg": .average, "@min": .min, "@max": .max]
    }

    /// `relationship.@sum.attribute op value` (and `@avg`, `@min`, `@max`): an aggregate of an
    /// attribute of the to-many relationship's objects.
    private func aggregate(
        _ function: ResultTerm.Function, of index: Int, _ rest: ArraySlice<String>, in entity: EntityDescription,
        _ op: ComparisonOperator, _ value: Any?
    ) throws(DatabaseError) -> ObjectPredicate<T>.Condition {
        let relationship = entity.relationships[index]
        guard relationship.isToMany, rest.count == 1, let destination = relationship.destination?.entityDescription
        else {
            throw fail("@sum, @avg, @min and @max need a to-many relationship and one attribute after them")
        }
        guard let slot = destination.slot(of: rest[rest.startIndex]) else {
            throw DatabaseError(
                .unknownKey, "\(destination.name) has no attribute '\(rest[rest.startIndex])'",
                entity: destination.name,
                property: rest[rest.startIndex])
        }
        let attribute = destination.attributes[slot]
        guard function.takes(attribute.type),
            [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op)
        else {
            throw fail(
                "\(function) of '\(attribute.name)' (\(attribute.type)) cannot be compared with '\(op.rawValue)'")
        }
        let term = ResultTerm.of(function, slot: slot)
        return .aggregate(
            relationship: index, function: function, slot: slot, op: op,
            value: try ResultValues.stored(value, for: term, destination))
    }

    /// `SUBQUERY(collection, $variable, inner).@count op value`, where the collection is a to-many
    /// relationship of the entity and `inner` reads the destination's keys through `$variable`.
    private func subqueryCount(
        _ collection: Expression, _ variable: String, _ inner: PredicateNode, _ op: ComparisonOperator, _ value: Any?
    ) throws(DatabaseError) -> ObjectPredicate<T>.Condition {
        guard let path = try path(of: collection), path.count == 1, let index = entity.relationshipIndex(of: path[0]),
            entity.relationships[index].isToMany,
            let destination = entity.relationships[index].destination?.entityDescription
        else { throw fail("SUBQUERY reads a to-many relationship of the object") }
        guard let count = Self.integer(value) else { throw fail("SUBQUERY(…).@count compares with a number") }
        var converter = self
        converter.entity = destination
        converter.iterationVariable = variable
        return .countWhere(relationship: index, inner: try converter.condition(inner), op: op, value: count)
    }

    private static func isSelf(_ expression: Expression) -> Bool {
        if case .keyPath(.self, let components, _) = expression, components.isEmpty { return true }
        return false
    }

    /// `SELF op value`: the object is (or is not) the one, or one of the ones, `value` holds.
    private func selfComparison(_ op: ComparisonOperator, _ other: Expression, selfOnLeft: Bool)
        throws(DatabaseError) -> ObjectPredicate<T>.Condition
    {
        let value = try self.value(other)
        switch op {
        case .equal, .notEqual:
            guard let value else { return .constant(op == .notEqual) }
            guard let object = value as? ManagedObject else { throw fail("SELF compares with an object") }
            return .isOneOf(objects: [object], equal: op == .equal)
        case .in where selfOnLeft:
            let items: [Any?]
            if let array = value as? [Any?] {
                items = array
            } else if let collection = value as? any Collection {
                items = collection.map { $0 }
            } else {
                throw fail("SELF IN needs a collection of objects")
            }
            var objects: [ManagedObject] = []
            for item in items {
                guard let object = item as? ManagedObject else { throw fail("SELF IN needs a collection of objects") }
                objects.append(object)
            }
            return .isOneOf(objects: objects, equal: true)
        default:
            throw fail("SELF takes ==, != or IN")
        }
    }

    /// A value compared with another value, as stored: booleans as 0 and 1, as attributes store them.
    private static func literal(_ value: Any?) -> StoredValue? {
        switch value {
        case nil: .null
        case let flag as Bool: .integer(flag ? 1 : 0)
        case let number as any BinaryInteger: Int64(exactly: number).map(StoredValue.integer)
        case let number as Double: .real(number)
        case let text as String: .text(text)
        default: nil
        }
    }

    private static func integer(_ value: Any?) -> Int64? {
        if let number = value as? any BinaryInteger { return Int64(exactly: number) }
        if let number = value as? Double, number.rounded() == number { return Int64(exactly: number) }
        return nil
    }

    private func stored(_ value: Any?, _ attribute: AttributeDescription, _ entity: EntityDescription)
        throws(DatabaseError) -> StoredValue
    {
        if let converted = NumericOperand.converted(value, for: attribute.type) { return converted }
        guard let stored = StoredValue.from(value, for: attribute.type) else {
            throw DatabaseError(
                .wrongType,
                "\(String(describing: value ?? "nil")) does not fit '\(attribute.name)' (\(attribute.type))",
                entity: entity.name, property: attribute.name)
        }
        return stored
    }

    /// The key path an expression denotes, or `nil` when it is a value.
    private func path(of expression: Expression) throws(DatabaseError) -> [String]? {
        guard case .keyPath(let root, let components, _) = expression else { return nil }
        var path = components
        switch root {
        case .implicit: break
        case .self where components.isEmpty: throw fail("SELF comparisons are not supported")
        case .self: break
        case .variable(let name) where name == iterationVariable && !components.isEmpty: break
        case .variable: return nil
        case .argument(let index):
            guard index < arguments.count, let key = arguments[index] as? String else {
                throw fail("%K needs a key string")
            }
            path = key.split(separator: ".").map(String.init) + components
        }
        return path
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
        case .keyPath(.variable(let name), let components, _):
            // `$FETCH_SOURCE.name`: the keys read from the variable's object, now.
            guard var value = variables[name] else { throw fail("no value for $\(name)") }
            for key in components {
                guard let object = value as? ManagedObject else {
                    throw fail("$\(name).\(components.joined(separator: ".")) needs an object")
                }
                value = try DatabaseError.rethrown { try object.value(forKey: key) }
            }
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
