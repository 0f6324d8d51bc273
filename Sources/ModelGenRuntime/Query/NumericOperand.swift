import Foundation
import PredicateSyntax

/// A number compared with a numeric attribute of another type, read as the user reads it
/// (`price == 3.49` on a Decimal, `quantity < 2.5` on an integer): never through a binary
/// approximation the user did not write.
///
/// - A Double or Float against a Decimal attribute is the decimal number it prints as (`3.49`,
///   not `3.4900000000000002`).
/// - Any number against a Float attribute is the nearest Float, as assigning it would store it.
/// - A number against an integer attribute compares by value: an integral one is that integer,
///   a fractional (or out-of-range) one makes `==` false, `!=` true, `x < 2.5` into `x <= 2` and
///   `x > 2.5` into `x >= 3`.
enum NumericOperand {
    /// The operand in the attribute's own stored form (`nil` when it needs no conversion).
    static func converted(_ value: Any?, for type: ValueType) -> StoredValue? {
        guard let value = unwrappedValue(value), !(value is Bool) else { return nil }
        switch type {
        case .decimal:
            // NaN equals nothing and orders with nothing, as against any number.
            if let number = binary(value), number.isNaN { return .real(.nan) }
            if let number = value as? Double, number.isFinite {
                return Decimal(string: "\(number)").map { .decimal($0) }
            }
            if let number = value as? Float, number.isFinite {
                return Decimal(string: "\(number)").map { .decimal($0) }
            }
            return nil
        case .float:
            if let number = value as? Double, !number.isNaN { return .real(Double(Float(number))) }
            if let number = value as? Decimal {
                return .real(Double(Float(NSDecimalNumber(decimal: number).doubleValue)))
            }
            if let number = value as? any BinaryInteger { return .real(Double(Float(number))) }
            return nil
        case .int16, .int32, .int64:
            return integral(value).map(StoredValue.integer)
        default:
            return nil
        }
    }

    /// A number that is no integer of the attribute's range, against an integer attribute:
    /// its floor and ceiling (`.below`/`.above` beyond Int64's range), or `nil` when the value is
    /// not such a number (an integer, NaN, or no number). Against a Decimal attribute, a binary
    /// number beyond every Decimal is `.above` or `.below`.
    static func fraction(_ value: Any?, for type: ValueType) -> (floor: Bound, ceiling: Bound)? {
        if type == .decimal, let number = unwrappedValue(value).flatMap(Self.binary), !number.isNaN,
            number.isInfinite || Decimal(string: "\(number)") == nil
        {
            // Beyond every Decimal (1e300, infinity): above or below all of them.
            let side: Bound = number < 0 ? .below : .above
            return (side, side)
        }
        guard type == .int16 || type == .int32 || type == .int64, let value = unwrappedValue(value),
            integral(value) == nil
        else { return nil }
        if let number = value as? Float { return fraction(Double(number)) }
        if let number = value as? Double { return fraction(number) }
        if let number = value as? Decimal {
            guard !number.isNaN else { return nil }
            return (bound(rounded(number, .down)), bound(rounded(number, .up)))
        }
        return nil
    }

    /// An integer bound: within Int64, or past one of its ends.
    enum Bound {
        case below
        case value(Int64)
        case above
    }

    private static func binary(_ value: Any) -> Double? {
        if let number = value as? Double { return number }
        return (value as? Float).map(Double.init)
    }

    /// `slot op value` for an integer attribute and a fractional or out-of-range `value` (or a
    /// Decimal attribute and a number beyond every Decimal).
    static func condition(slot: Int, _ op: ComparisonOperator, floor: Bound, ceiling: Bound) -> PredicateCondition? {
        switch op {
        case .equal: return .constant(false)
        case .notEqual: return .constant(true)
        case .less, .lessOrEqual:
            switch floor {
            case .below: return .constant(false)
            case .value(let number): return .compare(slot: slot, op: .lessOrEqual, options: [], value: .integer(number))
            case .above: return .not(.compare(slot: slot, op: .equal, options: [], value: .null))
            }
        case .greater, .greaterOrEqual:
            switch ceiling {
            case .below: return .not(.compare(slot: slot, op: .equal, options: [], value: .null))
            case .value(let number):
                return .compare(slot: slot, op: .greaterOrEqual, options: [], value: .integer(number))
            case .above: return .constant(false)
            }
        default: return nil
        }
    }

    /// The integer `value` is exactly, when it is an integral number within Int64.
    private static func integral(_ value: Any) -> Int64? {
        if let number = value as? any BinaryInteger { return Int64(exactly: number) }
        if let number = value as? Double { return Int64(exactly: number) }
        if let number = value as? Float { return Int64(exactly: number) }
        if let number = value as? Decimal, !number.isNaN, rounded(number, .down) == number,
            number >= Decimal(Int64.min), number <= Decimal(Int64.max)
        {
            return Int64(NSDecimalNumber(decimal: number).stringValue)
        }
        return nil
    }

    private static func fraction(_ number: Double) -> (floor: Bound, ceiling: Bound)? {
        guard !number.isNaN else { return nil }
        return (bound(number.rounded(.down)), bound(number.rounded(.up)))
    }

    private static func bound(_ number: Double) -> Bound {
        if let exact = Int64(exactly: number) { return .value(exact) }
        return number < 0 ? .below : .above
    }

    private static func bound(_ number: Decimal) -> Bound {
        if number < Decimal(Int64.min) { return .below }
        if number > Decimal(Int64.max) { return .above }
        return Int64(NSDecimalNumber(decimal: number).stringValue).map(Bound.value) ?? .above
    }

    private static func rounded(_ number: Decimal, _ mode: NSDecimalNumber.RoundingMode) -> Decimal {
        var input = number
        var result = Decimal()
        NSDecimalRound(&result, &input, 0, mode)
        return result
    }
}
