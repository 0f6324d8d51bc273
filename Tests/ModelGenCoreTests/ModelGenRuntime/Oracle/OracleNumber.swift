import Foundation

/// A number of any numeric Swift type, compared with a numeric attribute of any type as the
/// runtime's documentation says a user reads it (Predicates.md): an integer attribute by exact
/// value, a Decimal attribute with a Double as the decimal number the Double prints as, a Float
/// attribute with the operand as a Float, a Double attribute with the operand as a Double.
enum OracleNumber: CustomStringConvertible {
    case int(Int64)
    case double(Double)
    case float(Float)
    case decimal(Decimal)

    static func random(_ random: inout OracleRandom) -> OracleNumber {
        switch random.below(4) {
        case 0: .int(random.pick([-3, -1, 0, 1, 2, 3, 100_000, Int64.max, Int64.min, 1 << 53 + 1]))
        case 1: .double(random.pick([2.5, -1.5, 3.49, 0.1, 0.25, 3, -3, 1e300, -1e300, 1e19, .nan, 1.0 / 3]))
        case 2: .float(random.pick([0.1, 2.5, -1.5, 0.25, 3]))
        default: .decimal(Decimal(string: random.pick(["3.49", "2.5", "-3", "0.1", "1.5", "12345678901234567890.5"]))!)
        }
    }

    var runtimeValue: Any {
        switch self {
        case .int(let number): number
        case .double(let number): number
        case .float(let number): number
        case .decimal(let number): number
        }
    }

    /// The number as a literal of a format string, where the parser reads it as this value.
    var literal: String? {
        switch self {
        case .int(let number) where number > -(1 << 40) && number < 1 << 40: "\(number)"
        case .double(let number) where number.isFinite: "\(number)"
        default: nil
        }
    }

    var description: String {
        switch self {
        case .int(let number): "\(number)"
        case .double(let number): "\(number)"
        case .float(let number): "\(number)f"
        case .decimal(let number): "\(number)d"
        }
    }

    /// `value op self` for an attribute of `kind`.
    func compare(_ value: OracleValue?, _ op: String, _ kind: OracleModel.Kind) -> Bool {
        guard let value else { return op == "!=" }
        if value.isNaN { return op == "!=" }
        if case .double(let number) = self, number.isNaN { return op == "!=" }
        let order: Int
        switch (value, kind) {
        case (.int(let integer), _): order = Self.order(integer, self)
        case (.decimal(let decimal), _): order = Self.order(decimal, asDecimal)
        case (.double(let number), .float): order = Self.order(number, Double(Float(asDouble)))
        case (.double(let number), _): order = Self.order(number, asDouble)
        default: preconditionFailure("\(value) is no number")
        }
        switch op {
        case "==": return order == 0
        case "!=": return order != 0
        case "<": return order < 0
        case "<=": return order <= 0
        case ">": return order > 0
        default: return order >= 0
        }
    }

    private var asDouble: Double {
        switch self {
        case .int(let number): Double(number)
        case .double(let number): number
        case .float(let number): Double(number)
        case .decimal(let number): NSDecimalNumber(decimal: number).doubleValue
        }
    }

    /// The decimal number the operand is as it prints (one beyond every Decimal as ±1e120, beyond
    /// any decimal the oracle stores).
    private var asDecimal: Decimal {
        switch self {
        case .int(let number): Decimal(number)
        case .double(let number) where number.isInfinite || Decimal(string: "\(number)") == nil:
            number < 0 ? Decimal(string: "-1e120")! : Decimal(string: "1e120")!
        case .double(let number): Decimal(string: "\(number)")!
        case .float(let number): Decimal(string: "\(number)")!
        case .decimal(let number): number
        }
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a > b ? 1 : 0 }

    private static func order(_ a: Double, _ b: Double) -> Int { sign(a, b) }

    private static func order(_ a: Decimal, _ b: Decimal) -> Int { sign(a, b) }

    /// An integer against any number, exactly.
    private static func order(_ a: Int64, _ b: OracleNumber) -> Int {
        switch b {
        case .int(let number): return sign(a, number)
        case .decimal(let number): return sign(Decimal(a), number)
        case .float(let number): return order(a, Double(number))
        case .double(let number): return order(a, number)
        }
    }

    /// An integer against a double, exactly (no rounding of the integer to a double).
    private static func order(_ a: Int64, _ b: Double) -> Int {
        if b >= 0x1p63 { return -1 }
        if b < -0x1p63 { return 1 }
        let whole = Int64(b.rounded(.down))
        if a != whole { return sign(a, whole) }
        return b == b.rounded(.down) ? 0 : -1
    }
}

extension OracleModel.Kind {
    var isNumber: Bool { [.int16, .int32, .int64, .double, .float, .decimal].contains(self) }
}
