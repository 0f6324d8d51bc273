import Foundation

/// A column of a values fetch (`ValuesRequest`): an attribute (`ValueColumn`) or an aggregate
/// over the objects of a group (`Aggregate`). `Value` is the Swift type a `ResultRow` gives for
/// it.
public protocol ResultColumn<Root>: Sendable {
    associatedtype Root: ManagedObject
    associatedtype Value
    /// What the column computes, for the runtime.
    var term: ResultTerm { get }
}

extension ResultColumn {
    /// Whether a row's `value` can be given as this column's `Value`.
    func accepts(_ value: Any?) -> Bool {
        if let value { return value is Value }
        return Value.self is any NilMaking.Type
    }

    var valueTypeName: String { "\(Value.self)" }
}

/// What a result column computes: opaque outside the runtime, compared to find a column in a row.
public struct ResultTerm: Hashable, Sendable, CustomStringConvertible {
    enum Function: Hashable, Sendable {
        case value, count, countValues, countDistinct, sum, average, min, max

        /// Whether the function takes values of an attribute of `type`: sums and averages
        /// numbers, minimum and maximum what orders (numbers, text, dates), the rest anything.
        func takes(_ type: ValueType) -> Bool {
            let numeric: Set<ValueType> = [.int16, .int32, .int64, .double, .float, .decimal]
            switch self {
            case .sum, .average: return numeric.contains(type)
            case .min, .max: return numeric.contains(type) || [.string, .date, .url].contains(type)
            case .value, .count, .countValues, .countDistinct: return true
            }
        }
    }

    /// `function` of the attribute in `slot` of the entity at hand (a predicate's aggregate over
    /// a relationship's destinations).
    static func of(_ function: Function, slot: Int) -> ResultTerm {
        ResultTerm(function: function, path: Path(relationship: nil, slot: slot), failure: nil, description: "")
    }

    /// The attribute read: the slot of `Root`'s attribute, or through a to-one relationship of
    /// `Root` the slot of its destination's attribute. `nil` for `count()`.
    struct Path: Hashable, Sendable {
        var relationship: Int?
        var slot: Int
    }

    let function: Function
    let path: Path?
    /// Why the column cannot be computed (a key path that is no stored attribute, a type the
    /// function does not take): a fetch with it throws this.
    let failure: DatabaseError?
    /// A name for messages (`sum(price)`).
    public let description: String

    public static func == (lhs: ResultTerm, rhs: ResultTerm) -> Bool {
        lhs.function == rhs.function && lhs.path == rhs.path && (lhs.failure == nil) == (rhs.failure == nil)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(function)
        hasher.combine(path)
    }

    var isAggregate: Bool { function != .value }

    /// The attribute the path leads to, given the fetched entity.
    func attribute(of entity: EntityDescription) -> AttributeDescription? {
        guard let path else { return nil }
        guard let index = path.relationship else { return entity.attributes[path.slot] }
        return entity.relationships[index].destination?.entityDescription.attributes[path.slot]
    }

    /// A term that fails with `message` when fetched.
    static func invalid(_ function: Function, _ name: String, _ message: String, entity: String) -> ResultTerm {
        ResultTerm(
            function: function, path: nil, failure: DatabaseError(.misuse, message, entity: entity),
            description: name)
    }
}

/// An attribute of the fetched objects as a column of a values fetch: of the object itself
/// (`ValueColumn(\Order.region)`) or of the object a to-one relationship leads to
/// (`ValueColumn(\Order.customer, \Customer.city)`, `nil` where it leads nowhere). In a grouped
/// request a value column is a key of the grouping.
public struct ValueColumn<Root: ManagedObject, Value>: ResultColumn {
    public let term: ResultTerm

    /// The attribute `keyPath` leads to.
    public init(_ keyPath: KeyPath<Root, Value>) {
        term = ResultTerm.attribute(Root.self, keyPath, function: .value)
    }

    /// The attribute `attribute` of the destination of the to-one `relationship`.
    public init<Destination: ManagedObject, Wrapped>(
        _ relationship: KeyPath<Root, Destination?>, _ attribute: KeyPath<Destination, Wrapped>
    ) where Value == Wrapped? {
        term = ResultTerm.related(Root.self, relationship, attribute, function: .value)
    }

    /// The optional attribute `attribute` of the destination of the to-one `relationship`.
    public init<Destination: ManagedObject, Wrapped>(
        _ relationship: KeyPath<Root, Destination?>, _ attribute: KeyPath<Destination, Wrapped?>
    ) where Value == Wrapped? {
        term = ResultTerm.related(Root.self, relationship, attribute, function: .value)
    }
}

/// A value computed over the objects of a group (over all the fetched objects when the request
/// groups by nothing), as SQL's aggregate functions compute it: `nil` values are left out of
/// every aggregate but `count()`.
///
/// ```swift
/// let revenue = Aggregate.sum(\Order.price)
/// let orders = Aggregate<Order, Int>.count()
/// ```
public struct Aggregate<Root: ManagedObject, Value>: ResultColumn {
    public let term: ResultTerm

    init(_ term: ResultTerm) { self.term = term }
}

extension Aggregate where Value == Int {
    /// How many objects.
    public static func count() -> Aggregate {
        Aggregate(ResultTerm(function: .count, path: nil, failure: nil, description: "count()"))
    }

    /// How many objects have a value (not `nil`) for the attribute.
    public static func count<V>(_ keyPath: KeyPath<Root, V>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .countValues))
    }

    /// How many different values (`nil` left out) the attribute has.
    public static func count<V>(distinct keyPath: KeyPath<Root, V>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .countDistinct))
    }

    /// The sum of an integer attribute (0 for no values); a sum beyond `Int` throws.
    public static func sum<V: BinaryInteger>(_ keyPath: KeyPath<Root, V>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .sum))
    }

    /// The sum of an optional integer attribute (0 for no values).
    public static func sum<V: BinaryInteger>(_ keyPath: KeyPath<Root, V?>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .sum))
    }
}

extension Aggregate where Value == Double {
    /// The sum of a floating-point attribute (0 for no values).
    public static func sum<V: BinaryFloatingPoint>(_ keyPath: KeyPath<Root, V>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .sum))
    }

    /// The sum of an optional floating-point attribute (0 for no values).
    public static func sum<V: BinaryFloatingPoint>(_ keyPath: KeyPath<Root, V?>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .sum))
    }
}

extension Aggregate where Value == Decimal {
    /// The exact sum of a decimal attribute (0 for no values).
    public static func sum(_ keyPath: KeyPath<Root, Decimal>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .sum))
    }

    /// The exact sum of an optional decimal attribute (0 for no values).
    public static func sum(_ keyPath: KeyPath<Root, Decimal?>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .sum))
    }
}

extension Aggregate where Value == Double? {
    /// The mean of a numeric attribute; `nil` for no values.
    public static func average<V: Numeric>(_ keyPath: KeyPath<Root, V>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .average))
    }

    /// The mean of an optional numeric attribute; `nil` for no values.
    public static func average<V: Numeric>(_ keyPath: KeyPath<Root, V?>) -> Aggregate {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .average))
    }
}

extension Aggregate {
    /// The smallest value of the attribute (strings by their bytes); `nil` for no values.
    public static func min<V: Comparable>(_ keyPath: KeyPath<Root, V>) -> Aggregate where Value == V? {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .min))
    }

    /// The smallest value of the optional attribute; `nil` for no values.
    public static func min<V: Comparable>(_ keyPath: KeyPath<Root, V?>) -> Aggregate where Value == V? {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .min))
    }

    /// The largest value of the attribute (strings by their bytes); `nil` for no values.
    public static func max<V: Comparable>(_ keyPath: KeyPath<Root, V>) -> Aggregate where Value == V? {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .max))
    }

    /// The largest value of the optional attribute; `nil` for no values.
    public static func max<V: Comparable>(_ keyPath: KeyPath<Root, V?>) -> Aggregate where Value == V? {
        Aggregate(ResultTerm.attribute(Root.self, keyPath, function: .max))
    }
}

extension ResultTerm {
    static func attribute<T: ManagedObject>(_ root: T.Type, _ keyPath: AnyKeyPath, function: Function) -> ResultTerm {
        let entity = T.entityDescription
        guard let slot = T.slot(for: keyPath) else {
            return invalid(
                function, "\(function)(\(keyPath))",
                "\(keyPath) is not a stored attribute of \(entity.name): it cannot be a column of a values fetch",
                entity: entity.name)
        }
        return checked(function, Path(relationship: nil, slot: slot), entity.attributes[slot], entity)
    }

    static func related<T: ManagedObject, D: ManagedObject>(
        _ root: T.Type, _ relationship: KeyPath<T, D?>, _ attribute: AnyKeyPath, function: Function
    ) -> ResultTerm {
        let entity = T.entityDescription
        guard let index = T.relationshipIndex(for: relationship), !entity.relationships[index].isToMany,
            let slot = D.slot(for: attribute)
        else {
            return invalid(
                function, "\(function)(\(relationship), \(attribute))",
                "\(relationship) is not a to-one relationship of \(entity.name) to an entity with the stored attribute \(attribute)",
                entity: entity.name)
        }
        let name = entity.relationships[index].name + "." + D.entityDescription.attributes[slot].name
        var term = checked(
            function, Path(relationship: index, slot: slot), D.entityDescription.attributes[slot], entity)
        term = ResultTerm(function: term.function, path: term.path, failure: term.failure, description: name)
        return term
    }

    /// The term, or why `function` cannot take `attribute`'s values.
    private static func checked(
        _ function: Function, _ path: Path, _ attribute: AttributeDescription, _ entity: EntityDescription
    ) -> ResultTerm {
        let name = function == .value ? attribute.name : "\(function)(\(attribute.name))"
        // A sum or average is a number: not of values of the program's own type.
        let isPlain = attribute.conversion == nil || (function != .sum && function != .average)
        guard function.takes(attribute.type), isPlain else {
            return invalid(
                function, name,
                "\(function) cannot be computed over \(entity.name).\(attribute.name) (\(attribute.type))",
                entity: entity.name)
        }
        return ResultTerm(function: function, path: path, failure: nil, description: name)
    }
}
