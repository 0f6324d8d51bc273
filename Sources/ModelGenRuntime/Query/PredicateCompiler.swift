import Foundation
import PredicateSyntax

/// Predicate → SQL (exact parts) + the rest evaluated in memory.
struct CompiledPredicate<T: ManagedObject> {
    /// A WHERE fragment (without `WHERE`); `1` when nothing is filtered in SQL.
    var sql: String
    var parameters: [StoredValue]
    /// What SQL could not express exactly; objects must also pass it.
    var residue: ObjectPredicate<T>.Condition?

    init(_ condition: ObjectPredicate<T>.Condition) {
        // The conjuncts SQL expresses exactly go to SQL; the others are checked in memory, which
        // keeps the result exact: SQL only narrows by conditions the objects must meet anyway.
        var parts: [String] = []
        var parameters: [StoredValue] = []
        var rest: [ObjectPredicate<T>.Condition] = []
        for term in Self.conjuncts(condition) {
            if let fragment = Self.sql(term, &parameters) {
                parts.append(fragment)
            } else {
                rest.append(term)
            }
        }
        sql = parts.isEmpty ? "1" : parts.map { "(\($0))" }.joined(separator: " AND ")
        self.parameters = parameters
        residue = rest.isEmpty ? nil : .and(rest)
    }

    static func conjuncts(_ condition: ObjectPredicate<T>.Condition) -> [ObjectPredicate<T>.Condition] {
        if case .and(let terms) = condition { return terms.flatMap(conjuncts) }
        return [condition]
    }

    static func column(_ slot: Int) -> String { EntityDescription.quoted(T.entityDescription.attributes[slot].column) }

    /// SQL for `condition` when it is exact, else `nil` (parameters are only appended on success).
    static func sql(_ condition: ObjectPredicate<T>.Condition, _ parameters: inout [StoredValue]) -> String? {
        var added: [StoredValue] = []
        guard let text = fragment(condition, &added) else { return nil }
        parameters += added
        return text
    }

    private static func fragment(_ condition: ObjectPredicate<T>.Condition, _ parameters: inout [StoredValue]) -> String? {
        switch condition {
        case .constant(let value):
            return value ? "1" : "0"
        case .not(let inner):
            return fragment(inner, &parameters).map { "NOT (\($0))" }
        case .and(let terms), .or(let terms):
            var parts: [String] = []
            for term in terms {
                guard let part = fragment(term, &parameters) else { return nil }
                parts.append("(\(part))")
            }
            if parts.isEmpty { return { if case .and = condition { "1" } else { "0" } }() }
            if case .and = condition { return parts.joined(separator: " AND ") }
            return parts.joined(separator: " OR ")
        case .oneOf(let slot, let values):
            let column = column(slot)
            let present = values.filter { $0 != .null }
            var text = present.isEmpty ? "0" : "\(column) IN (" + present.map { _ in "?" }.joined(separator: ", ") + ")"
            parameters += present
            if present.count != values.count { text = "(\(text) OR \(column) IS NULL)" }
            return text
        case .between(let slot, let low, let high):
            parameters += [low, high]
            return "\(column(slot)) BETWEEN ? AND ?"
        case .compare(let slot, let op, let options, let value):
            return comparison(column(slot), op, options, value, &parameters)
        }
    }

    private static func comparison(
        _ column: String, _ op: ComparisonOperator, _ options: ComparisonOptions, _ value: StoredValue,
        _ parameters: inout [StoredValue]
    ) -> String? {
        guard options.isEmpty else { return nil }  // folding rules SQLite does not share: in memory
        switch op {
        case .equal:
            parameters.append(value)
            return "\(column) IS ?"
        case .notEqual:
            parameters.append(value)
            return "\(column) IS NOT ?"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard value != .null else { return "0" }
            parameters.append(value)
            let symbol = ["<": "<", "<=": "<=", ">": ">", ">=": ">="][op.rawValue]!
            return "\(column) \(symbol) ?"
        case .beginsWith, .endsWith, .contains:
            guard case .text(let text) = value else { return "0" }
            if text.isEmpty { return "\(column) IS NOT NULL" }
            parameters += op == .contains ? [value] : [value, value]
            switch op {
            case .beginsWith: return "substr(\(column), 1, length(?)) = ?"
            case .endsWith: return "substr(\(column), -length(?)) = ?"
            default: return "instr(\(column), ?) > 0"
            }
        case .like, .matches, .in, .between:
            return nil
        }
    }
}

/// In-memory evaluation, with the same semantics as the SQL above (and Foundation's string
/// comparison for the options SQL cannot do).
enum PredicateEvaluator {
    static func matches<T: ManagedObject>(_ condition: ObjectPredicate<T>.Condition, _ object: T) -> Bool {
        switch condition {
        case .constant(let value): return value
        case .not(let inner): return !matches(inner, object)
        case .and(let terms): return terms.allSatisfy { matches($0, object) }
        case .or(let terms): return terms.contains { matches($0, object) }
        case .oneOf(let slot, let values):
            let stored = value(slot, object)
            return values.contains { StoredValue.order($0, stored) == 0 && ($0 == .null) == (stored == .null) }
        case .between(let slot, let low, let high):
            let stored = value(slot, object)
            guard stored != .null else { return false }
            return StoredValue.order(stored, low) >= 0 && StoredValue.order(stored, high) <= 0
        case .compare(let slot, let op, let options, let operand):
            return compare(value(slot, object), op, options, operand)
        }
    }

    static func value<T: ManagedObject>(_ slot: Int, _ object: T) -> StoredValue {
        StoredValue.from(object.value(atSlot: slot), for: T.entityDescription.attributes[slot].type) ?? .null
    }

    static func compare(_ stored: StoredValue, _ op: ComparisonOperator, _ options: ComparisonOptions, _ operand: StoredValue) -> Bool {
        switch op {
        case .equal, .notEqual:
            var equal: Bool
            if case .text(let a) = stored, case .text(let b) = operand, !options.isEmpty {
                equal = a.compare(b, options: foundationOptions(options)) == .orderedSame
            } else {
                equal = (stored == .null) == (operand == .null) && StoredValue.order(stored, operand) == 0
            }
            if op == .notEqual { equal.toggle() }
            return equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard stored != .null, operand != .null else { return false }
            let order = StoredValue.order(stored, operand)
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .text(let text) = stored, case .text(let pattern) = operand else { return false }
            var flags = foundationOptions(options)
            switch op {
            case .beginsWith:
                if pattern.isEmpty { return true }
                flags.insert(.anchored)
                return text.range(of: pattern, options: flags) != nil
            case .endsWith:
                if pattern.isEmpty { return true }
                flags.formUnion([.anchored, .backwards])
                return text.range(of: pattern, options: flags) != nil
            case .contains:
                return pattern.isEmpty || text.range(of: pattern, options: flags) != nil
            case .like:
                return like(text, pattern, flags)
            default:
                return full(text, regex: pattern, flags)
            }
        case .in, .between:
            return false
        }
    }

    static func foundationOptions(_ options: ComparisonOptions) -> String.CompareOptions {
        var flags: String.CompareOptions = []
        if options.contains(.caseInsensitive) { flags.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { flags.insert(.diacriticInsensitive) }
        return flags
    }

    /// LIKE: `*` any run, `?` one character, `\` escapes; matched as a whole.
    static func like(_ text: String, _ pattern: String, _ flags: String.CompareOptions) -> Bool {
        var regex = ""
        var escaped = false
        for character in pattern {
            if escaped {
                regex += NSRegularExpression.escapedPattern(for: String(character))
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "*" {
                regex += ".*"
            } else if character == "?" {
                regex += "."
            } else {
                regex += NSRegularExpression.escapedPattern(for: String(character))
            }
        }
        return full(text, regex: regex, flags)
    }

    /// MATCHES: the whole string matches the regular expression.
    static func full(_ text: String, regex pattern: String, _ flags: String.CompareOptions) -> Bool {
        var subject = text
        var expression = pattern
        if flags.contains(.diacriticInsensitive) {
            subject = subject.folding(options: .diacriticInsensitive, locale: nil)
            expression = expression.folding(options: .diacriticInsensitive, locale: nil)
        }
        let options: NSRegularExpression.Options = flags.contains(.caseInsensitive) ? [.caseInsensitive, .dotMatchesLineSeparators] : [.dotMatchesLineSeparators]
        guard let regex = try? NSRegularExpression(pattern: "^(?:" + expression + ")$", options: options) else { return false }
        return regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }
}
