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
public struct ObjectPredicate<T: ManagedObject> {
    typealias Condition = PredicateCondition

    let condition: Condition

    init(_ condition: Condition) {
        self.condition = condition
    }

    public static var all: ObjectPredicate { ObjectPredicate(.constant(true)) }
    public static var none: ObjectPredicate { ObjectPredicate(.constant(false)) }

    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { ObjectPredicate(.and([lhs.condition, rhs.condition])) }
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { ObjectPredicate(.or([lhs.condition, rhs.condition])) }
    public static prefix func ! (operand: ObjectPredicate) -> ObjectPredicate { ObjectPredicate(.not(operand.condition)) }

    // MARK: - Typed construction

    /// Objects whose to-one `relationship` leads to an object matching `predicate`
    /// (`\Grade.student` and `\Student.id == id`: Core Data's `student.id == %@`).
    public static func related<D: ManagedObject>(_ relationship: KeyPath<T, D?>, _ predicate: ObjectPredicate<D>) -> ObjectPredicate {
        ObjectPredicate(.toOne(relationship: relationshipIndex(of: relationship), inner: predicate.condition))
    }

    /// Objects with at least one object in to-many `relationship` matching `predicate` (`ANY`).
    public static func any<D: ManagedObject>(_ relationship: KeyPath<T, Set<D>>, _ predicate: ObjectPredicate<D>) -> ObjectPredicate {
        ObjectPredicate(.any(relationship: relationshipIndex(of: relationship), inner: predicate.condition))
    }

    /// Objects with at least one object in ordered to-many `relationship` matching `predicate`.
    public static func any<D: ManagedObject>(_ relationship: KeyPath<T, [D]>, _ predicate: ObjectPredicate<D>) -> ObjectPredicate {
        ObjectPredicate(.any(relationship: relationshipIndex(of: relationship), inner: predicate.condition))
    }

    /// `relationship.@count op count`.
    public static func count<D: ManagedObject>(_ relationship: KeyPath<T, Set<D>>, _ op: ComparisonOperator, _ count: Int) -> ObjectPredicate {
        ObjectPredicate(.count(relationship: relationshipIndex(of: relationship), op: op, value: Int64(count)))
    }

    /// `relationship.@count op count` for an ordered to-many.
    public static func count<D: ManagedObject>(_ relationship: KeyPath<T, [D]>, _ op: ComparisonOperator, _ count: Int) -> ObjectPredicate {
        ObjectPredicate(.count(relationship: relationshipIndex(of: relationship), op: op, value: Int64(count)))
    }

    /// Objects whose to-one `relationship` is (`==`) or is not (`!=`) `object`, by identity.
    public static func identity<D: ManagedObject>(_ relationship: KeyPath<T, D?>, equal: Bool = true, _ object: D?) -> ObjectPredicate {
        ObjectPredicate(.identity(relationship: relationshipIndex(of: relationship), equal: equal, object: object))
    }

    /// Objects whose to-many `relationship` includes `object` (Core Data's `%@ IN tags`).
    public static func contains<D: ManagedObject>(_ relationship: KeyPath<T, Set<D>>, _ object: D) -> ObjectPredicate {
        ObjectPredicate(.member(relationship: relationshipIndex(of: relationship), object: object))
    }

    /// Objects whose ordered to-many `relationship` includes `object`.
    public static func contains<D: ManagedObject>(_ relationship: KeyPath<T, [D]>, _ object: D) -> ObjectPredicate {
        ObjectPredicate(.member(relationship: relationshipIndex(of: relationship), object: object))
    }

    static func relationshipIndex(of keyPath: AnyKeyPath) -> Int {
        guard let index = T.relationshipIndex(for: keyPath) else {
            preconditionFailure("\(keyPath) is not a relationship of \(T.entityDescription.name)")
        }
        return index
    }

    static func slot(of keyPath: AnyKeyPath) -> (Int, AttributeDescription) {
        guard let slot = T.slot(for: keyPath) else {
            preconditionFailure("\(keyPath) is not a stored attribute of \(T.entityDescription.name)")
        }
        return (slot, T.entityDescription.attributes[slot])
    }

    static func stored(_ value: Any?, for attribute: AttributeDescription) -> StoredValue {
        guard let stored = StoredValue.from(value, for: attribute.type) else {
            preconditionFailure("\(String(describing: value)) does not fit \(attribute.name)")
        }
        return stored
    }

    /// `keyPath op value`.
    public static func compare<V>(
        _ keyPath: KeyPath<T, V>, _ op: ComparisonOperator, _ value: V, options: ComparisonOptions = []
    ) -> ObjectPredicate {
        let (slot, attribute) = slot(of: keyPath)
        return ObjectPredicate(.compare(slot: slot, op: op, options: options, value: stored(value, for: attribute)))
    }

    /// `keyPath IN values`.
    public static func keyPath<V>(_ keyPath: KeyPath<T, V>, in values: [V]) -> ObjectPredicate {
        let (slot, attribute) = slot(of: keyPath)
        return ObjectPredicate(.oneOf(slot: slot, values: values.map { stored($0, for: attribute) }))
    }

    public static func beginsWith(_ keyPath: KeyPath<T, String>, _ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> ObjectPredicate {
        compare(keyPath, .beginsWith, prefix, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func beginsWith(_ keyPath: KeyPath<T, String?>, _ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> ObjectPredicate {
        compare(keyPath, .beginsWith, prefix, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func contains(_ keyPath: KeyPath<T, String?>, _ text: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> ObjectPredicate {
        compare(keyPath, .contains, text, options: options(caseInsensitive, diacriticInsensitive))
    }

    public static func endsWith(_ keyPath: KeyPath<T, String?>, _ suffix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> ObjectPredicate {
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
public func == <T: ManagedObject, D: ManagedObject>(lhs: KeyPath<T, D?>, rhs: D?) -> ObjectPredicate<T> { .identity(lhs, equal: true, rhs) }
public func != <T: ManagedObject, D: ManagedObject>(lhs: KeyPath<T, D?>, rhs: D?) -> ObjectPredicate<T> { .identity(lhs, equal: false, rhs) }
public func != <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .notEqual, rhs) }
public func < <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .less, rhs) }
public func <= <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .lessOrEqual, rhs) }
public func > <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .greater, rhs) }
public func >= <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .greaterOrEqual, rhs) }
