import Foundation
import PredicateSyntax

/// A condition on objects of `T`, built from key paths or parsed from an NSPredicate format
/// string, type-checked against `T`'s entity. Compiled to SQL with bound parameters only; what SQL
/// cannot express exactly (case- or diacritic-insensitive comparisons, MATCHES) is evaluated in
/// memory instead, never approximated.
///
/// ```swift
/// let ships = try ObjectPredicate<Ship>(format: "universe IN %@ AND name BEGINSWITH[c] %@", ["Star Wars"], "e")
/// let typed: ObjectPredicate<Student> = \.lastName == "Smith" && \.points > 50
/// ```
///
/// `Sendable`, so that requests can be made once (a global `let`) and used anywhere. A predicate
/// that names objects (`SELF == %@`, `student == %@`) holds them and reads only their identity:
/// made in one context and used in another, it matches saved objects by their `ObjectID`.
public struct ObjectPredicate<T: ManagedObject>: @unchecked Sendable {
    typealias Condition = PredicateCondition

    let condition: Condition
    /// Why the predicate cannot be evaluated (a key path to a transient attribute or through a
    /// to-many, which a Swift key path cannot rule out at compile time): a fetch or count with it
    /// throws this instead of the process trapping.
    let failure: DatabaseError?

    init(_ condition: Condition, failure: DatabaseError? = nil) {
        self.condition = condition
        self.failure = failure
    }

    private static func invalid(_ message: String, property: String? = nil) -> ObjectPredicate {
        ObjectPredicate(
            .constant(false),
            failure: DatabaseError(.predicate, message, entity: T.entityDescription.name, property: property))
    }

    public static var all: ObjectPredicate { ObjectPredicate(.constant(true)) }
    public static var none: ObjectPredicate { ObjectPredicate(.constant(false)) }

    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(.and([lhs.condition, rhs.condition]), failure: lhs.failure ?? rhs.failure)
    }
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(.or([lhs.condition, rhs.condition]), failure: lhs.failure ?? rhs.failure)
    }
    public static prefix func ! (operand: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(.not(operand.condition), failure: operand.failure)
    }

    // MARK: - Typed construction

    /// Objects whose to-one `relationship` leads to an object matching `predicate`
    /// (`\Grade.student` and `\Student.id == id`: Core Data's `student.id == %@`).
    public static func related<D: ManagedObject>(_ relationship: KeyPath<T, D?>, _ predicate: ObjectPredicate<D>)
        -> ObjectPredicate
    {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.toOne(relationship: index, inner: predicate.condition), failure: predicate.failure)
    }

    /// Objects with at least one object in to-many `relationship` matching `predicate` (`ANY`).
    public static func any<D: ManagedObject>(_ relationship: KeyPath<T, Set<D>>, _ predicate: ObjectPredicate<D>)
        -> ObjectPredicate
    {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.any(relationship: index, inner: predicate.condition), failure: predicate.failure)
    }

    /// Objects with at least one object in ordered to-many `relationship` matching `predicate`.
    public static func any<D: ManagedObject>(_ relationship: KeyPath<T, [D]>, _ predicate: ObjectPredicate<D>)
        -> ObjectPredicate
    {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.any(relationship: index, inner: predicate.condition), failure: predicate.failure)
    }

    /// `relationship.@count op count`.
    public static func count<D: ManagedObject>(
        _ relationship: KeyPath<T, Set<D>>, _ op: ComparisonOperator, _ count: Int
    ) -> ObjectPredicate {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.count(relationship: index, op: op, value: Int64(count)))
    }

    /// `relationship.@count op count` for an ordered to-many.
    public static func count<D: ManagedObject>(_ relationship: KeyPath<T, [D]>, _ op: ComparisonOperator, _ count: Int)
        -> ObjectPredicate
    {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.count(relationship: index, op: op, value: Int64(count)))
    }

    /// Objects whose to-one `relationship` is (`==`) or is not (`!=`) `object`, by identity.
    public static func identity<D: ManagedObject>(_ relationship: KeyPath<T, D?>, equal: Bool = true, _ object: D?)
        -> ObjectPredicate
    {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.identity(relationship: index, equal: equal, object: object))
    }

    /// Objects whose to-many `relationship` includes `object` (Core Data's `%@ IN tags`).
    public static func contains<D: ManagedObject>(_ relationship: KeyPath<T, Set<D>>, _ object: D) -> ObjectPredicate {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.member(relationship: index, object: object))
    }

    /// Objects whose ordered to-many `relationship` includes `object`.
    public static func contains<D: ManagedObject>(_ relationship: KeyPath<T, [D]>, _ object: D) -> ObjectPredicate {
        guard let index = relationshipIndex(of: relationship) else { return notARelationship(relationship) }
        return ObjectPredicate(.member(relationship: index, object: object))
    }

    static func relationshipIndex(of keyPath: AnyKeyPath) -> Int? { T.relationshipIndex(for: keyPath) }

    private static func notARelationship(_ keyPath: AnyKeyPath) -> ObjectPredicate {
        invalid("\(keyPath) is not a relationship of \(T.entityDescription.name)")
    }

    /// `keyPath op value`.
    public static func compare<V>(
        _ keyPath: KeyPath<T, V>, _ op: ComparisonOperator, _ value: V, options: ComparisonOptions = []
    ) -> ObjectPredicate {
        guard let slot = T.slot(for: keyPath) else { return notStored(keyPath) }
        let attribute = T.entityDescription.attributes[slot]
        guard let stored = StoredValue.from(value, for: attribute.type) else { return doesNotFit(value, attribute) }
        return ObjectPredicate(.compare(slot: slot, op: op, options: options, value: stored))
    }

    /// `keyPath IN values`.
    public static func keyPath<V>(_ keyPath: KeyPath<T, V>, in values: [V]) -> ObjectPredicate {
        guard let slot = T.slot(for: keyPath) else { return notStored(keyPath) }
        let attribute = T.entityDescription.attributes[slot]
        var stored: [StoredValue] = []
        for value in values {
            guard let one = StoredValue.from(value, for: attribute.type) else { return doesNotFit(value, attribute) }
            stored.append(one)
        }
        return ObjectPredicate(.oneOf(slot: slot, values: stored, options: []))
    }

    /// A key path a fetch cannot use: a transient attribute, a to-many or a key path through a
    /// relationship (`.related`, `.any`, `.count` and `.contains` express those).
    private static func notStored(_ keyPath: AnyKeyPath) -> ObjectPredicate {
        invalid(
            "\(keyPath) is not a stored attribute of \(T.entityDescription.name): transient attributes are not in the store, and relationships are compared with .related, .any, .count or .contains"
        )
    }

    private static func doesNotFit(_ value: Any?, _ attribute: AttributeDescription) -> ObjectPredicate {
        invalid(
            "\(String(describing: value)) does not fit \(attribute.name) (\(attribute.type))", property: attribute.name)
    }

    public static func beginsWith(
        _ keyPath: KeyPath<T, String>, _ prefix: String, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) -> ObjectPredicate {
        compare(keyPath, .beginsWith, prefix, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func beginsWith(
        _ keyPath: KeyPath<T, String?>, _ prefix: String, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) -> ObjectPredicate {
        compare(keyPath, .beginsWith, prefix, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func contains(
        _ keyPath: KeyPath<T, String>, _ text: String, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) -> ObjectPredicate {
        compare(keyPath, .contains, text, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func contains(
        _ keyPath: KeyPath<T, String?>, _ text: String, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) -> ObjectPredicate {
        compare(keyPath, .contains, text, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func endsWith(
        _ keyPath: KeyPath<T, String>, _ suffix: String, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) -> ObjectPredicate {
        compare(keyPath, .endsWith, suffix, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func endsWith(
        _ keyPath: KeyPath<T, String?>, _ suffix: String, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false
    ) -> ObjectPredicate {
        compare(keyPath, .endsWith, suffix, options: options(caseInsensitive, diacriticInsensitive))
    }

    private static func options(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> ComparisonOptions {
        var options: ComparisonOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return options
    }
}

public func == <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .equal, rhs) }
public func == <T: ManagedObject, D: ManagedObject>(lhs: KeyPath<T, D?>, rhs: D?) -> ObjectPredicate<T> {
    .identity(lhs, equal: true, rhs)
}
public func != <T: ManagedObject, D: ManagedObject>(lhs: KeyPath<T, D?>, rhs: D?) -> ObjectPredicate<T> {
    .identity(lhs, equal: false, rhs)
}
public func != <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .notEqual, rhs) }
public func < <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .less, rhs) }
public func <= <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> {
    .compare(lhs, .lessOrEqual, rhs)
}
public func > <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .greater, rhs) }
public func >= <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> {
    .compare(lhs, .greaterOrEqual, rhs)
}
