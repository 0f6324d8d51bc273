import Foundation
import PredicateSyntax

/// The values of values fetches computed in memory, over objects (what a context with unsaved
/// changes answers), and the conversions between stored values and the Swift values of rows.
enum ResultValues {
    /// `value` as a `V`: the runtime made it of the column's own type, so only `nil` for an
    /// optional `V` needs making.
    static func cast<V>(_ value: Any?, to type: V.Type) -> V {
        if let value, let typed = value as? V { return typed }
        if let none = (V.self as? any NilMaking.Type)?.makeNil() as? V { return none }
        preconditionFailure("a values fetch made \(String(describing: value)) for a column of type \(V.self)")
    }

    // MARK: - Over objects

    /// The stored value `term` reads from `object` (`.null` past a to-one that leads nowhere).
    static func stored(_ term: ResultTerm, of object: ManagedObject) throws(DatabaseError) -> StoredValue {
        guard let path = term.path else { return .null }
        var source: ManagedObject = object
        if let relationship = path.relationship {
            guard let destination = try object.loadedToOne(relationship) else { return .null }
            source = destination
        }
        return PredicateEvaluator.value(path.slot, source)
    }

    /// The aggregate `term` of `values` (the stored values of its attribute, one per object).
    static func aggregate(_ term: ResultTerm, _ values: [StoredValue], type: ValueType?) throws(DatabaseError)
        -> StoredValue
    {
        let present = values.filter { $0 != .null }
        switch term.function {
        case .value: return values.first ?? .null
        case .count: return .integer(Int64(values.count))
        case .countValues: return .integer(Int64(present.count))
        case .countDistinct: return .integer(Int64(Set(present.map { ExactValues([$0]) }).count))
        case .min, .max:
            let wantsLess = term.function == .min
            return present.reduce(nil as StoredValue?) { best, value in
                guard let best else { return value }
                let order = StoredValue.order(value, best)
                return (wantsLess ? order < 0 : order > 0) ? value : best
            } ?? .null
        case .sum:
            if type == .decimal { return .decimal(present.reduce(Decimal(0)) { $0 + decimal($1) }) }
            if type == .double || type == .float { return .real(present.reduce(0) { $0 + ($1.number ?? 0) }) }
            var total: Int64 = 0
            for case .integer(let number) in present {
                let (sum, overflow) = total.addingReportingOverflow(number)
                if overflow { throw DatabaseError(.conversion, "\(term) overflows a 64-bit integer") }
                total = sum
            }
            return .integer(total)
        case .average:
            guard !present.isEmpty else { return .null }
            if type == .decimal {
                let mean = present.reduce(Decimal(0)) { $0 + decimal($1) } / Decimal(present.count)
                return .real(NSDecimalNumber(decimal: mean).doubleValue)
            }
            return .real(present.reduce(0) { $0 + ($1.number ?? 0) } / Double(present.count))
        }
    }

    private static func decimal(_ value: StoredValue) -> Decimal {
        switch value {
        case .decimal(let number): number
        case .integer(let number): Decimal(number)
        case .real(let number): Decimal(number)
        default: 0
        }
    }

    /// Groups `objects` by the keys' values and computes each group's row (keys then values),
    /// keeps the groups `having` holds of, in ascending order of their keys.
    static func grouped<T: ManagedObject>(
        _ objects: [T], _ plan: ValuesPlan, having: AggregateCondition<T>?, entity: EntityDescription
    ) throws(DatabaseError) -> [[StoredValue]] {
        var groups: [ExactValues: [T]] = [:]
        var order: [ExactValues] = []
        if plan.keys.isEmpty { order.append(ExactValues([])) }
        for object in objects {
            var key: [StoredValue] = []
            for term in plan.keys { key.append(try stored(term, of: object)) }
            let exact = ExactValues(key)
            if groups[exact] == nil, !plan.keys.isEmpty { order.append(exact) }
            groups[exact, default: []].append(object)
        }
        order.sort { lhs, rhs in
            for (a, b) in zip(lhs.values, rhs.values) {
                let comparison = StoredValue.order(a, b)
                if comparison != 0 { return comparison < 0 }
            }
            return false
        }
        var rows: [[StoredValue]] = []
        for key in order {
            let members = groups[key] ?? []
            var computed: [ResultTerm: StoredValue] = [:]
            func value(_ term: ResultTerm) throws(DatabaseError) -> StoredValue {
                if let known = computed[term] { return known }
                if let position = plan.keys.firstIndex(of: term) { return key.values[position] }
                var values: [StoredValue] = []
                for member in members { values.append(try stored(term, of: member)) }
                let result = try aggregate(term, values, type: term.attribute(of: entity)?.type)
                computed[term] = result
                return result
            }
            if let having, !(try holds(having.node, value, entity)) { continue }
            var row = key.values
            for term in plan.values { row.append(try value(term)) }
            rows.append(row)
        }
        return rows
    }

    private static func holds(
        _ node: AggregateCondition<some ManagedObject>.Node, _ value: (ResultTerm) throws(DatabaseError) -> StoredValue,
        _ entity: EntityDescription
    ) throws(DatabaseError) -> Bool {
        switch node {
        case .compare(let term, let op, let operand):
            return PredicateEvaluator.compare(try value(term), op, [], try stored(operand, for: term, entity))
        case .and(let nodes):
            for node in nodes where !(try holds(node, value, entity)) { return false }
            return true
        case .or(let nodes):
            for node in nodes where try holds(node, value, entity) { return true }
            return false
        case .not(let inner):
            return !(try holds(inner, value, entity))
        }
    }

    // MARK: - Conversions

    /// The stored form of a value compared with `term` (a `having` operand).
    static func stored(_ value: Any?, for term: ResultTerm, _ entity: EntityDescription) throws(DatabaseError)
        -> StoredValue
    {
        let attribute = term.attribute(of: entity)
        let type: ValueType =
            switch term.function {
            case .count, .countValues, .countDistinct: .int64
            case .average: .double
            case .sum: [.double, .float].contains(attribute?.type) ? .double : attribute?.type ?? .int64
            case .value, .min, .max: attribute?.type ?? .int64
            }
        var plain = unwrappedValue(value)
        if let conversion = attribute?.conversion, let present = plain, term.function != .sum,
            term.function != .average
        {
            plain = try conversion.stored(present)
        }
        guard let stored = StoredValue.from(plain, for: type) else {
            throw DatabaseError(
                .wrongType, "\(String(describing: plain)) cannot be compared with \(term)", entity: entity.name)
        }
        return stored
    }

    /// The Swift value of a row's column for `term`, from its stored value.
    static func swiftValue(_ stored: StoredValue, for term: ResultTerm, _ entity: EntityDescription)
        throws(DatabaseError) -> Any?
    {
        let attribute = term.attribute(of: entity)
        switch term.function {
        case .count, .countValues, .countDistinct:
            if case .integer(let number) = stored { return Int(number) }
            return 0
        case .average:
            return stored.number
        case .sum:
            switch stored {
            case .integer(let number): return Int(number)
            case .real(let number): return number
            case .decimal(let number): return number
            default: return attribute?.type == .decimal ? Decimal(0) : 0
            }
        case .value, .min, .max:
            guard let attribute, let plain = plainValue(stored, attribute.type) else { return nil }
            guard let conversion = attribute.conversion else { return plain }
            return try conversion.typed(plain)
        }
    }

    /// The value of an attribute of `type` that `stored` holds, as the attribute's plain Swift type.
    static func plainValue(_ stored: StoredValue, _ type: ValueType) -> Any? {
        switch (type, stored) {
        case (_, .null): return nil
        case (.int16, .integer(let number)): return Int16(truncatingIfNeeded: number)
        case (.int32, .integer(let number)): return Int32(truncatingIfNeeded: number)
        case (.int64, .integer(let number)): return number
        case (.bool, .integer(let number)): return number != 0
        case (.double, _): return stored.number
        case (.float, _): return stored.number.map { Float($0) }
        case (.decimal, .decimal(let number)): return number
        case (.decimal, .text(let text)): return Decimal(string: text)
        case (.decimal, _): return stored.number.map { Decimal($0) }
        case (.string, .text(let text)): return text
        case (.url, .text(let text)): return URL(string: text)
        case (.date, _): return stored.number.map { Date(timeIntervalSinceReferenceDate: $0) }
        case (.uuid, .blob(let bytes)) where bytes.count == 16:
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case (.data, .blob(let bytes)): return Data(bytes)
        default: return nil
        }
    }
}

/// Stored values compared as SQL groups them: strings by their bytes (not by Unicode canonical
/// equivalence, as `String`'s `==`), numbers by value.
struct ExactValues: Hashable {
    let values: [StoredValue]

    init(_ values: [StoredValue]) { self.values = values }

    static func == (lhs: ExactValues, rhs: ExactValues) -> Bool {
        lhs.values.count == rhs.values.count
            && zip(lhs.values, rhs.values).allSatisfy { a, b in
                (a == .null) == (b == .null) && StoredValue.order(a, b) == 0
            }
    }

    func hash(into hasher: inout Hasher) {
        for value in values {
            switch value {
            case .null: hasher.combine(0)
            case .integer, .real: hasher.combine(value.number ?? 0)
            case .text(let text): hasher.combine(Array(text.utf8))
            case .blob(let bytes): hasher.combine(bytes)
            case .decimal(let number): hasher.combine(number)
            }
        }
    }
}

/// Lets `ResultValues.cast` make the `nil` of an optional type it knows only as a type parameter.
protocol NilMaking {
    static func makeNil() -> Self
}

extension Optional: NilMaking {
    static func makeNil() -> Self { nil }
}
