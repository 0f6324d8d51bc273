import Foundation

/// Checks attribute values against the model's bounds and patterns before a save, as Core Data
/// validates: numbers and dates by value, strings by length (UTF-16 units, as `NSString`), data
/// by size, and a regular expression that must match a string in full.
enum AttributeValidator {
    private static let patterns = PatternCache()

    static func validate(_ object: ManagedObject, _ entity: EntityDescription) throws(DatabaseError) {
        for slot in entity.ruledAttributes {
            guard let value = unwrap(object.storedForm(atSlot: slot, entity)) else { continue }
            try validate(value, entity.attributes[slot], entity)
        }
    }

    /// Checks one stored value (not `nil`) of `attribute` against its bounds and pattern.
    static func validate(_ value: Any, _ attribute: AttributeDescription, _ entity: EntityDescription)
        throws(DatabaseError)
    {
        let measured: Double?
        let what: String
        switch value {
        case let text as String:
            measured = Double(text.utf16.count)
            what = "length"
            if let pattern = attribute.pattern, !patterns.matches(pattern, text) {
                throw DatabaseError(
                    .validation, "\(entity.name).\(attribute.name) does not match the pattern \(pattern)",
                    entity: entity.name,
                    property: attribute.name)
            }
        case let data as Data:
            measured = Double(data.count)
            what = "size"
        case let date as Date:
            measured = date.timeIntervalSinceReferenceDate
            what = "date"
        case let decimal as Decimal:
            measured = NSDecimalNumber(decimal: decimal).doubleValue
            what = "value"
        case let number as any BinaryInteger:
            measured = Double(number)
            what = "value"
        case let number as Double:
            measured = number
            what = "value"
        case let number as Float:
            measured = Double(number)
            what = "value"
        default:
            measured = nil
            what = "value"
        }
        guard let measured else { return }
        if let minimum = attribute.minimum, measured < minimum {
            throw DatabaseError(
                .validation,
                "\(entity.name).\(attribute.name): \(what) \(measured) is below the minimum \(minimum)",
                entity: entity.name, property: attribute.name)
        }
        if let maximum = attribute.maximum, measured > maximum {
            throw DatabaseError(
                .validation,
                "\(entity.name).\(attribute.name): \(what) \(measured) is above the maximum \(maximum)",
                entity: entity.name, property: attribute.name)
        }
    }

    private static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalProtocol { return optional.isNil ? nil : unwrap(optional.wrapped) }
        return value
    }
}

/// Compiled regular expressions by pattern, shared by all contexts.
private final class PatternCache: @unchecked Sendable {
    private let lock = NSLock()
    private var compiled: [String: NSRegularExpression?] = [:]

    func matches(_ pattern: String, _ text: String) -> Bool {
        lock.lock()
        let expression: NSRegularExpression?
        if let known = compiled[pattern] {
            expression = known
        } else {
            expression = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$")
            compiled[pattern] = expression
        }
        lock.unlock()
        // A pattern that does not compile was reported by the compiler; it restricts nothing here.
        guard let expression else { return true }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }
}
