import Foundation
import PredicateSyntax

/// Predicate → SQL (exact parts) + the rest evaluated in memory.
struct CompiledPredicate<T: ManagedObject> {
    /// A WHERE fragment (without `WHERE`); `1` when nothing is filtered in SQL.
    var sql: String
    var parameters: [SQLArgument]
    /// What SQL could not express exactly; objects must also pass it.
    var residue: PredicateCondition?

    /// `entity`: the entity the condition is of (`T`'s, unless `T` is a base class standing for it).
    init(_ condition: PredicateCondition, _ dialect: StoreDialect, entity: EntityDescription = T.entityDescription) {
        // The conjuncts SQL expresses exactly go to SQL; the others are checked in memory, which
        // keeps the result exact: SQL only narrows by conditions the objects must meet anyway.
        var parts: [String] = []
        var parameters: [SQLArgument] = []
        var rest: [PredicateCondition] = []
        for term in Self.conjuncts(condition) {
            var added: [SQLArgument] = []
            if let fragment = Self.fragment(term, entity, dialect, &added) {
                parts.append(fragment)
                parameters += added
            } else {
                rest.append(term)
            }
        }
        sql = parts.isEmpty ? dialect.trueCondition : parts.map { "(\($0))" }.joined(separator: " AND ")
        self.parameters = parameters
        residue = rest.isEmpty ? nil : .and(rest)
    }

    static func conjuncts(_ condition: PredicateCondition) -> [PredicateCondition] {
        if case .and(let terms) = condition { return terms.flatMap(conjuncts) }
        return [condition]
    }

    private static func quoted(_ name: String) -> String { EntityDescription.quoted(name) }

    /// SQL for `condition` on `entity`'s table when it is exact, else `nil`.
    private static func fragment(
        _ condition: PredicateCondition, _ entity: EntityDescription, _ dialect: StoreDialect,
        _ parameters: inout [SQLArgument]
    ) -> String? {
        func column(_ slot: Int) -> String { quoted(entity.attributes[slot].column) }
        func type(_ slot: Int) -> ValueType { entity.attributes[slot].type }
        /// The column as it compares by order: text by bytes.
        func ordered(_ slot: Int) -> String {
            type(slot) == .string || type(slot) == .url ? dialect.byteOrderedText(column(slot)) : column(slot)
        }
        // Decimals are stored as text, whose SQL order is not their numeric order: in memory.
        func isDecimal(_ slot: Int) -> Bool { entity.attributes[slot].type == .decimal }
        switch condition {
        case .constant(let value):
            return value ? dialect.trueCondition : dialect.falseCondition
        case .not(let inner):
            // Two-valued, as in memory: a comparison with NULL is false, so its negation is true
            // (SQL's NULL would make `NOT (x < 3)` exclude a row whose x is NULL).
            return fragment(inner, entity, dialect, &parameters).map { "NOT " + dialect.nullAsFalse($0) }
        case .and(let terms), .or(let terms):
            var parts: [String] = []
            for term in terms {
                guard let part = fragment(term, entity, dialect, &parameters) else { return nil }
                parts.append("(\(part))")
            }
            if parts.isEmpty {
                return { if case .and = condition { dialect.trueCondition } else { dialect.falseCondition } }()
            }
            if case .and = condition { return parts.joined(separator: " AND ") }
            return parts.joined(separator: " OR ")
        case .oneOf(let slot, _, _) where isDecimal(slot), .between(let slot, _, _) where isDecimal(slot),
            .compare(let slot, _, _, _) where isDecimal(slot):
            return nil
        // Folding rules SQL does not share: in memory.
        case .oneOf(_, _, let options) where !options.isEmpty:
            return nil
        case .oneOf(_, let values, _) where !values.allSatisfy(dialect.canBind):
            return nil
        case .between(_, let low, let high) where !dialect.canBind(low) || !dialect.canBind(high):
            return nil
        case .compare(_, _, _, let value) where !dialect.canBind(value):
            return nil
        case .oneOf(let slot, let values, _):
            let column = column(slot)
            let present = values.filter { $0 != .null }
            var text =
                present.isEmpty
                ? dialect.falseCondition : "\(column) IN (" + present.map { _ in "?" }.joined(separator: ", ") + ")"
            parameters += present.map { SQLArgument($0, type(slot)) }
            if present.count != values.count { text = "(\(text) OR \(column) IS NULL)" }
            return text
        case .between(let slot, let low, let high):
            parameters += [SQLArgument(low, type(slot)), SQLArgument(high, type(slot))]
            return "\(ordered(slot)) BETWEEN ? AND ?"
        case .compare(let slot, let op, let options, let value):
            return comparison(column(slot), ordered(slot), type(slot), op, options, value, dialect, &parameters)
        case .compareKeys(let slot, let op, let options, let other):
            // In SQL when both columns hold one type that SQL orders as the runtime does, without
            // options; text by bytes on both sides.
            guard type(slot) == type(other), !isDecimal(slot), options.isEmpty, let symbol = symbol(op) else {
                return nil
            }
            switch op {
            case .equal: return "\(column(slot)) \(dialect.isNotDistinct) \(column(other))"
            case .notEqual: return "\(column(slot)) \(dialect.isDistinct) \(column(other))"
            default: return "\(ordered(slot)) \(symbol) \(ordered(other))"
            }
        case .isOneOf(let objects, let equal):
            // Unsaved objects have no row: in memory.
            guard objects.allSatisfy({ !$0.objectID.isTemporary && $0.context != nil }) else { return nil }
            let rows = objects.filter { entity.includes($0.objectID.entityID) }.map(\.objectID.rowID)
            guard !rows.isEmpty else { return equal ? dialect.falseCondition : dialect.trueCondition }
            parameters += rows.map(SQLArgument.key)
            return "\"_pk\" \(equal ? "" : "NOT ")IN (" + rows.map { _ in "?" }.joined(separator: ", ") + ")"
        case .toOne(let index, let inner), .any(let index, let inner):
            let relationship = entity.relationships[index]
            guard let destination = relationship.destination?.entityDescription,
                let innerSQL = fragment(inner, destination, dialect, &parameters)
            else { return nil }
            let table = quoted(destination.table)
            // A to-one that leads nowhere matches when the inner condition holds of nothing.
            let orNowhere: Bool = if case .toOne = condition { inner.holdsOfNothing } else { false }
            switch relationship.storage {
            case .foreignKey(let key):
                let test = "\(quoted(key)) IN (SELECT \"_pk\" FROM \(table) WHERE \(innerSQL))"
                return orNowhere ? "(\(quoted(key)) IS NULL OR \(test))" : "(\(quoted(key)) IS NOT NULL AND \(test))"
            case .inverseForeignKey(let key, _):
                let test =
                    "\"_pk\" IN (SELECT \(quoted(key)) FROM \(table) WHERE \(quoted(key)) IS NOT NULL AND (\(innerSQL)))"
                guard orNowhere else { return test }
                return
                    "(\"_pk\" NOT IN (SELECT \(quoted(key)) FROM \(table) WHERE \(quoted(key)) IS NOT NULL) OR \(test))"
            case .joinTable(let join, let source, let target, _):
                let test =
                    "\"_pk\" IN (SELECT \(quoted(source)) FROM \(quoted(join)) WHERE \(quoted(target)) IN (SELECT \"_pk\" FROM \(table) WHERE \(innerSQL)))"
                return orNowhere ? "(\"_pk\" NOT IN (SELECT \(quoted(source)) FROM \(quoted(join))) OR \(test))" : test
            }
        case .count(let index, let op, let value):
            let relationship = entity.relationships[index]
            guard let destination = relationship.destination?.entityDescription, let symbol = symbol(op) else {
                return nil
            }
            let outer = quoted(entity.table) + ".\"_pk\""
            let counted: String
            switch relationship.storage {
            case .foreignKey(let key):
                counted = "(CASE WHEN \(quoted(key)) IS NULL THEN 0 ELSE 1 END)"
            case .inverseForeignKey(let key, _):
                counted =
                    "(SELECT count(*) FROM \(quoted(destination.table)) AS \"_d\" WHERE \"_d\".\(quoted(key)) = \(outer))"
            case .joinTable(let join, let source, _, _):
                counted = "(SELECT count(*) FROM \(quoted(join)) AS \"_j\" WHERE \"_j\".\(quoted(source)) = \(outer))"
            }
            parameters.append(.key(value))
            return "\(counted) \(symbol) ?"
        case .countWhere(let index, let inner, let op, let value):
            // The matching destinations are counted by row: `_pk IN` the inner condition's rows, so
            // the inner SQL reads its own table as it does anywhere else.
            let relationship = entity.relationships[index]
            guard let destination = relationship.destination?.entityDescription, let symbol = symbol(op),
                let innerSQL = fragment(inner, destination, dialect, &parameters)
            else { return nil }
            let outer = quoted(entity.table) + ".\"_pk\""
            let matching = "SELECT \"_pk\" FROM \(quoted(destination.table)) WHERE \(innerSQL)"
            let counted: String
            switch relationship.storage {
            case .foreignKey:
                return nil
            case .inverseForeignKey(let key, _):
                counted =
                    "(SELECT count(*) FROM \(quoted(destination.table)) AS \"_d\" WHERE \"_d\".\(quoted(key)) = \(outer) AND \"_d\".\"_pk\" IN (\(matching)))"
            case .joinTable(let join, let source, let target, _):
                counted =
                    "(SELECT count(*) FROM \(quoted(join)) AS \"_j\" WHERE \"_j\".\(quoted(source)) = \(outer) AND \"_j\".\(quoted(target)) IN (\(matching)))"
            }
            parameters.append(.key(value))
            return "\(counted) \(symbol) ?"
        case .aggregate(let index, let function, let slot, let op, let value):
            return aggregateFragment(
                entity.relationships[index], function, slot, op, value, entity, dialect, &parameters)
        case .identity(let index, let equal, let object):
            guard case .foreignKey(let key) = entity.relationships[index].storage else { return nil }
            guard let object else { return "\(quoted(key)) IS \(equal ? "" : "NOT ")NULL" }
            guard !object.objectID.isTemporary, object.context != nil else { return nil }
            parameters.append(.key(object.objectID.rowID))
            return "\(quoted(key)) \(equal ? dialect.isNotDistinct : dialect.isDistinct) ?"
        case .member(let index, let object):
            // An unsaved object has no row yet: in memory.
            guard !object.objectID.isTemporary, object.context != nil else { return nil }
            let relationship = entity.relationships[index]
            guard let destination = relationship.destination?.entityDescription,
                destination.includes(object.objectID.entityID)
            else {
                return dialect.falseCondition
            }
            parameters.append(.key(object.objectID.rowID))
            switch relationship.storage {
            case .foreignKey(let key):
                return "\(quoted(key)) \(dialect.isNotDistinct) ?"
            case .inverseForeignKey(let key, _):
                return "\"_pk\" IN (SELECT \(quoted(key)) FROM \(quoted(destination.table)) WHERE \"_pk\" = ?)"
            case .joinTable(let join, let source, let target, _):
                return "\"_pk\" IN (SELECT \(quoted(source)) FROM \(quoted(join)) WHERE \(quoted(target)) = ?)"
            }
        }
    }

    static func symbol(_ op: ComparisonOperator) -> String? {
        switch op {
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        default: nil
        }
    }

    /// `column` compared with `value`; `ordered` is the column as it orders (text by bytes).
    private static func comparison(
        _ column: String, _ ordered: String, _ type: ValueType, _ op: ComparisonOperator, _ options: ComparisonOptions,
        _ value: StoredValue, _ dialect: StoreDialect, _ parameters: inout [SQLArgument]
    ) -> String? {
        guard options.isEmpty else { return nil }  // folding rules SQL does not share: in memory
        // NaN equals nothing and orders with nothing (bound, SQLite would read it as NULL).
        if case .real(let number) = value, number.isNaN {
            return op == .notEqual ? dialect.trueCondition : dialect.falseCondition
        }
        switch op {
        case .equal:
            parameters.append(SQLArgument(value, type))
            return "\(column) \(dialect.isNotDistinct) ?"
        case .notEqual:
            parameters.append(SQLArgument(value, type))
            return "\(column) \(dialect.isDistinct) ?"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard value != .null else { return dialect.falseCondition }
            parameters.append(SQLArgument(value, type))
            let symbol = ["<": "<", "<=": "<=", ">": ">", ">=": ">="][op.rawValue]!
            return "\(ordered) \(symbol) ?"
        case .beginsWith, .endsWith, .contains:
            guard case .text(let text) = value else { return dialect.falseCondition }
            if text.isEmpty { return "\(column) IS NOT NULL" }
            let match: StoreDialect.TextMatch =
                op == .beginsWith ? .prefix : op == .endsWith ? .suffix : .substring
            let fragment = dialect.textMatch(match, column: column, text: text)
            parameters += fragment.arguments
            return fragment.sql
        case .like, .matches, .in, .between:
            return nil
        }
    }
}

/// A piece of runtime SQL and the values of its parameters (`?`), in order: built together, so
/// they cannot drift apart.
struct SQLFragment {
    var sql: String
    var arguments: [SQLArgument]
}

/// A value bound to a parameter of runtime SQL, with the type of the attribute it is compared
/// with (where there is one): PostgreSQL needs a Boolean as a `boolean`, a date as a
/// `timestamptz`, a UUID as a `uuid`, where SQLite takes their stored forms.
struct SQLArgument {
    var value: StoredValue
    var type: ValueType?

    init(_ value: StoredValue, _ type: ValueType? = nil) {
        self.value = value
        self.type = type
    }

    /// A row number or a count.
    static func key(_ number: Int64) -> SQLArgument { SQLArgument(.integer(number)) }

    func bind(to statement: Statement, at index: Int32) {
        value.bind(to: statement, at: index, as: type)
    }
}

/// In-memory evaluation, with the same semantics as the SQL above (and Foundation's string
/// comparison for the options SQL cannot do).
enum PredicateEvaluator {
    static func matches(_ condition: PredicateCondition, _ object: ManagedObject) -> Bool {
        switch condition {
        case .constant(let value): return value
        case .not(let inner): return !matches(inner, object)
        case .and(let terms): return terms.allSatisfy { matches($0, object) }
        case .or(let terms): return terms.contains { matches($0, object) }
        case .oneOf(let slot, let values, let options):
            let stored = value(slot, object)
            guard !stored.isNaN else { return false }
            if !options.isEmpty, case .text = stored { return values.contains { compare(stored, .equal, options, $0) } }
            return values.contains {
                !$0.isNaN && StoredValue.order($0, stored) == 0 && ($0 == .null) == (stored == .null)
            }
        case .between(let slot, let low, let high):
            let stored = value(slot, object)
            guard stored != .null, !stored.isNaN, !low.isNaN, !high.isNaN else { return false }
            return StoredValue.order(stored, low) >= 0 && StoredValue.order(stored, high) <= 0
        case .compare(let slot, let op, let options, let operand):
            return compare(value(slot, object), op, options, operand)
        case .compareKeys(let slot, let op, let options, let other):
            return compare(value(slot, object), op, options, value(other, object))
        case .isOneOf(let objects, let equal):
            return objects.contains { isSameRow($0, object) } == equal
        case .toOne(let index, let inner):
            guard let destination = (try? object.loadedToOne(index)) ?? nil else { return inner.holdsOfNothing }
            return matches(inner, destination)
        case .any(let index, let inner):
            let relationship = type(of: object).entityDescription.relationships[index]
            if !relationship.isToMany {
                guard let destination = (try? object.loadedToOne(index)) ?? nil else { return false }
                return matches(inner, destination)
            }
            return ((try? object.loadedToMany(index).objects) ?? []).contains { matches(inner, $0) }
        case .countWhere(let index, let inner, let op, let value):
            let matching = ((try? object.loadedToMany(index).objects) ?? []).filter { matches(inner, $0) }
            return compare(.integer(Int64(matching.count)), op, [], .integer(value))
        case .aggregate(let index, let function, let slot, let op, let value):
            let destinations = (try? object.loadedToMany(index).objects) ?? []
            let values = destinations.map { PredicateEvaluator.value(slot, $0) }
            let type = type(of: object).entityDescription.relationships[index].destination?.entityDescription
                .attributes[slot].type
            guard let result = try? ResultValues.aggregate(.of(function, slot: slot), values, type: type) else {
                return false
            }
            return compare(result, op, [], value)
        case .count(let index, let op, let value):
            let relationship = type(of: object).entityDescription.relationships[index]
            let count: Int
            if relationship.isToMany {
                count = (try? object.loadedToMany(index).objects.count) ?? 0
            } else {
                count = ((try? object.loadedToOne(index)) ?? nil) == nil ? 0 : 1
            }
            return compare(.integer(Int64(count)), op, [], .integer(value))
        case .identity(let index, let equal, let expected):
            let actual = (try? object.loadedToOne(index)) ?? nil
            return isSameRow(actual, expected) == equal
        case .member(let index, let expected):
            let relationship = type(of: object).entityDescription.relationships[index]
            if !relationship.isToMany { return isSameRow((try? object.loadedToOne(index)) ?? nil, expected) }
            return ((try? object.loadedToMany(index).objects) ?? []).contains { isSameRow($0, expected) }
        }
    }

    static func value(_ slot: Int, _ object: ManagedObject) -> StoredValue {
        let entity = type(of: object).entityDescription
        return StoredValue.from(object.storedForm(atSlot: slot, entity), for: entity.attributes[slot].type) ?? .null
    }

    static func compare(
        _ stored: StoredValue, _ op: ComparisonOperator, _ options: ComparisonOptions, _ operand: StoredValue
    ) -> Bool {
        if stored.isNaN || operand.isNaN { return op == .notEqual }
        switch op {
        case .equal, .notEqual:
            var equal: Bool
            if case .text(let a) = stored, case .text(let b) = operand, !options.isEmpty {
                equal = folded(a, options) == folded(b, options)
            } else {
                equal = (stored == .null) == (operand == .null) && StoredValue.order(stored, operand) == 0
            }
            if op == .notEqual { equal.toggle() }
            return equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard stored != .null, operand != .null else { return false }
            let order: Int
            if case .text(let a) = stored, case .text(let b) = operand, !options.isEmpty {
                // `<[c]`: the folded texts by their bytes, as text orders without options.
                let (x, y) = (folded(a, options), folded(b, options))
                order = x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
            } else {
                order = StoredValue.order(stored, operand)
            }
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

    /// `text` as `[c]` and `[d]` compare it: case-folded and without diacritics (Foundation's
    /// folding, so `ß` is `ss` under `[c]`), as UTF-8 bytes.
    static func folded(_ text: String, _ options: ComparisonOptions) -> [UInt8] {
        let flags = foundationOptions(options)
        return Array((flags.isEmpty ? text : text.folding(options: flags, locale: nil)).utf8)
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

    /// Whether MATCHES can use `pattern` (ICU's syntax, as NSPredicate's).
    static func isRegularExpression(_ pattern: String) -> Bool {
        (try? NSRegularExpression(pattern: "^(?:" + pattern + ")$")) != nil
    }

    /// MATCHES: the whole string matches the regular expression.
    static func full(_ text: String, regex pattern: String, _ flags: String.CompareOptions) -> Bool {
        var subject = text
        var expression = pattern
        if flags.contains(.diacriticInsensitive) {
            subject = subject.folding(options: .diacriticInsensitive, locale: nil)
            expression = expression.folding(options: .diacriticInsensitive, locale: nil)
        }
        let options: NSRegularExpression.Options =
            flags.contains(.caseInsensitive)
            ? [.caseInsensitive, .dotMatchesLineSeparators] : [.dotMatchesLineSeparators]
        guard let regex = try? NSRegularExpression(pattern: "^(?:" + expression + ")$", options: options) else {
            return false
        }
        return regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }
}
