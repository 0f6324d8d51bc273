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
    indirect enum Condition {
        case constant(Bool)
        case not(Condition)
        case and([Condition])
        case or([Condition])
        case compare(slot: Int, op: ComparisonOperator, options: ComparisonOptions, value: StoredValue)
        case oneOf(slot: Int, values: [StoredValue])
        case between(slot: Int, low: StoredValue, high: StoredValue)
    }

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
public func != <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .notEqual, rhs) }
public func < <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .less, rhs) }
public func <= <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .lessOrEqual, rhs) }
public func > <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .greater, rhs) }
public func >= <T: ManagedObject, V>(lhs: KeyPath<T, V>, rhs: V) -> ObjectPredicate<T> { .compare(lhs, .greaterOrEqual, rhs) }
