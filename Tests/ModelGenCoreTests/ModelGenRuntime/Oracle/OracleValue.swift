import Foundation

/// A value of an attribute as the oracle keeps it: one case per attribute kind, compared by its
/// own rules (not by the runtime's stored form).
enum OracleValue: Hashable, CustomStringConvertible {
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case bool(Bool)
    /// Seconds since the reference date.
    case date(Double)
    case data([UInt8])
    case uuid(UUID)
    case url(String)

    // The pools are small so that predicates find equal values, and hold the hard cases: case
    // and diacritics, LIKE and regex metacharacters, signed zero, extremes, long decimals.
    static let strings = [
        "tea", "Tea", "TEA", "téa", "TÉA", "coffee", "Coffee time", "", "a*b", "a?b", "100%", "a_b", "l'eau", "x\"y",
        "tea time", "Ünïcode", "ünïcode", "zebra", "Zebra", "naïve",
    ]
    static let doubles: [Double] = [-1.5, 0, -0.0, 0.25, 2.5, 1e300, -1e-300, 3, 1 / 3, .nan, .infinity]
    static let decimals: [String] = [
        "1.5", "12345678901234567890.123456789", "-3", "0.1", "0.10000000000000000001", "99999999999999999999", "0",
    ]
    static let dates: [Double] = [0, 1e9, -86_400.5, 7e8, 7e8 + 0.001]
    static let uuids = [
        UUID(uuidString: "00000000-0000-4000-8000-000000000001")!,
        UUID(uuidString: "F0000000-0000-4000-8000-0000000000FF")!,
        UUID(uuidString: "7A5B0C1D-2E3F-4A5B-8C6D-7E8F9A0B1C2D")!,
    ]
    static let urls = [
        "https://example.com/a", "https://example.com/b?q=1", "file:///tmp/x", "mailto:someone@example.com",
    ]

    static func random(_ kind: OracleModel.Kind, _ random: inout OracleRandom) -> OracleValue {
        switch kind {
        case .int16:
            return .int(
                random.chance(10) ? random.pick([Int64(Int16.max), Int64(Int16.min)]) : Int64(random.below(9)) - 3)
        case .int32:
            return .int(
                random.chance(10) ? random.pick([Int64(Int32.max), Int64(Int32.min)]) : Int64(random.below(9)) - 3)
        case .int64:
            return .int(
                random.chance(10) ? random.pick([Int64.max, Int64.min, 1 << 53 + 1]) : Int64(random.below(9)) - 3)
        case .double: return .double(random.pick(doubles))
        // Values a Float holds exactly, so that the oracle's Double is the Float's value.
        case .float: return .double(random.pick([-1.5, 0, 0.25, 2.5, 3, 0x1p100, 1.0 / 1024]))
        case .decimal: return .decimal(Decimal(string: random.pick(decimals))!)
        case .string: return .string(random.pick(strings))
        case .bool: return .bool(random.chance(50))
        case .date: return .date(random.pick(dates))
        case .data: return .data(random.pick([[], [0], [1, 2, 3], [0xFF, 0], Array("tea".utf8)]))
        case .uuid: return .uuid(random.pick(uuids))
        case .url: return .url(random.pick(urls))
        }
    }

    /// The value as `defaultValueString` writes it.
    var xmlDefault: String {
        switch self {
        case .int(let number): "\(number)"
        case .double(let number):
            number == number.rounded() && abs(number) < 1e15 && number.sign == .plus ? "\(Int64(number))" : "\(number)"
        case .decimal(let number): "\(number)"
        case .string(let text):
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;")
        case .bool(let flag): flag ? "YES" : "NO"
        default: ""
        }
    }

    /// The Swift value generated code and `setValue(_:forKey:)` take for an attribute of `kind`.
    func runtimeValue(_ kind: OracleModel.Kind) -> Any {
        switch (self, kind) {
        case (.int(let number), .int16): return Int16(number)
        case (.int(let number), .int32): return Int32(number)
        case (.int(let number), _): return number
        case (.double(let number), .float): return Float(number)
        case (.double(let number), _): return number
        case (.decimal(let number), _): return number
        case (.string(let text), _): return text
        case (.bool(let flag), _): return flag
        case (.date(let seconds), _): return Date(timeIntervalSinceReferenceDate: seconds)
        case (.data(let bytes), _): return Data(bytes)
        case (.uuid(let uuid), _): return uuid
        case (.url(let text), _): return URL(string: text)!
        }
    }

    /// The oracle's value of what the runtime returned for an attribute of `kind`; `nil` when the
    /// runtime's value is not of the kind's Swift type.
    static func from(runtime value: Any, _ kind: OracleModel.Kind) -> OracleValue? {
        switch kind {
        case .int16: (value as? Int16).map { .int(Int64($0)) }
        case .int32: (value as? Int32).map { .int(Int64($0)) }
        case .int64: (value as? Int64).map { .int($0) }
        case .double: (value as? Double).map { .double($0) }
        case .float: (value as? Float).map { .double(Double($0)) }
        case .decimal: (value as? Decimal).map { .decimal($0) }
        case .string: (value as? String).map { .string($0) }
        case .bool: (value as? Bool).map { .bool($0) }
        case .date: (value as? Date).map { .date($0.timeIntervalSinceReferenceDate) }
        case .data: (value as? Data).map { .data(Array($0)) }
        case .uuid: (value as? UUID).map { .uuid($0) }
        case .url: (value as? URL).map { .url($0.absoluteString) }
        }
    }

    var isNaN: Bool {
        if case .double(let number) = self { number.isNaN } else { false }
    }

    /// A number SQLite cannot give back as it is: the runtime refuses to save it.
    var isUnstorable: Bool {
        guard case .double(let number) = self else { return false }
        return number.isNaN || (number == 0 && number.sign == .minus)
    }

    /// Identical, bit for bit where it matters: what a store must give back (`-0.0` is not `0`).
    func isIdentical(to other: OracleValue) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)): a.bitPattern == b.bitPattern
        default: self == other
        }
    }

    // MARK: - Predicate semantics (NSPredicate's, written out independently of the runtime)

    /// `==` of two non-nil values of one kind (numbers by value: `-0.0 == 0`).
    static func equal(_ a: OracleValue, _ b: OracleValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): x == y
        default: a == b
        }
    }

    /// The order of two non-nil values of one ordered kind: strings by their UTF-8 bytes.
    static func order(_ a: OracleValue, _ b: OracleValue, caseInsensitive: Bool = false) -> Int {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
        switch (a, b) {
        case (.int(let x), .int(let y)): return sign(x, y)
        case (.double(let x), .double(let y)) where x.isNaN || y.isNaN: return x.isNaN && y.isNaN ? 0 : x.isNaN ? -1 : 1
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): return sign(x, y)
        case (.decimal(let x), .decimal(let y)): return sign(x, y)
        case (.bool(let x), .bool(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.string(let x), .string(let y)):
            let left = caseInsensitive ? asciiLowercased(x) : Array(x.utf8)
            let right = caseInsensitive ? asciiLowercased(y) : Array(y.utf8)
            return left == right ? 0 : (left.lexicographicallyPrecedes(right) ? -1 : 1)
        default: preconditionFailure("no order between \(a) and \(b)")
        }
    }

    static func asciiLowercased(_ text: String) -> [UInt8] { text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 } }

    var text: String? {
        switch self {
        case .string(let text), .url(let text): text
        default: nil
        }
    }

    var description: String {
        switch self {
        case .int(let number): "\(number)"
        case .double(let number): "\(number)"
        case .decimal(let number): "\(number)d"
        case .string(let text): "\"\(text)\""
        case .bool(let flag): "\(flag)"
        case .date(let seconds): "date(\(seconds))"
        case .data(let bytes): "data\(bytes)"
        case .uuid(let uuid): "uuid(\(uuid.uuidString.prefix(8)))"
        case .url(let text): "url(\(text))"
        }
    }
}
