import Foundation

/// A value as SQLite stores it: what predicates bind and compare.
enum StoredValue: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    /// A `Decimal`, stored as its text (exact); compared by value, in memory only.
    case decimal(Decimal)

    /// The stored form of `value` for an attribute of `type`; `nil` when `value` does not fit the
    /// type. A `RawRepresentable` value (a typed attribute's, in a predicate) is its raw value.
    static func from(_ value: Any?, for type: ValueType) -> StoredValue? {
        if let stored = plain(value, for: type) { return stored }
        guard let raw = value as? any RawRepresentable else { return nil }
        return plain(raw.rawValue, for: type)
    }

    private static func plain(_ value: Any?, for type: ValueType) -> StoredValue? {
        guard let value else { return .null }
        if let optional = value as? any OptionalProtocol {
            return optional.isNil ? .null : from(optional.wrapped, for: type)
        }
        switch type {
        case .int16, .int32, .int64:
            if let number = value as? any BinaryInteger { return Int64(exactly: number).map(StoredValue.integer) }
            if let number = value as? Double { return .real(number) }
            if let number = value as? Float { return .real(Double(number)) }
            if let flag = value as? Bool { return .integer(flag ? 1 : 0) }
            return nil
        case .decimal:
            if let number = value as? Decimal { return .decimal(number) }
            if let number = value as? any BinaryInteger, let integer = Int64(exactly: number) {
                return .decimal(Decimal(integer))
            }
            if let number = value as? Double, number.isFinite { return .decimal(Decimal(number)) }
            return nil
        case .double, .float:
            if let number = value as? Double { return .real(number) }
            if let number = value as? Float { return .real(Double(number)) }
            if let number = value as? Decimal { return .real(NSDecimalNumber(decimal: number).doubleValue) }
            if let number = value as? any BinaryInteger { return .real(Double(number)) }
            return nil
        case .bool:
            if let flag = value as? Bool { return .integer(flag ? 1 : 0) }
            if let number = value as? any BinaryInteger, let integer = Int64(exactly: number),
                integer == 0 || integer == 1
            {
                return .integer(integer)
            }
            return nil
        case .string:
            return (value as? String).map(StoredValue.text)
        case .url:
            if let url = value as? URL { return .text(url.absoluteString) }
            return (value as? String).map(StoredValue.text)
        case .date:
            return (value as? Date).map { .real($0.timeIntervalSinceReferenceDate) }
        case .uuid:
            guard let uuid = value as? UUID else { return nil }
            return .blob(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case .data:
            return (value as? Data).map { .blob([UInt8]($0)) }
        }
    }

    /// Binds the value; `type` is the attribute's, where the value is compared with one.
    func bind(to statement: Statement, at index: Int32, as type: ValueType? = nil) {
        switch self {
        case .null: statement.bindNull(index)
        case .integer(let number) where type == .bool: statement.bind(number != 0, at: index)
        case .real(let seconds) where type == .date: statement.bindDate(seconds, at: index)
        case .blob(let bytes) where type == .uuid: statement.bindUUID(bytes, at: index)
        case .integer(let number): statement.bind(number, at: index)
        case .real(let number): statement.bind(number, at: index)
        case .text(let text): statement.bind(text, at: index)
        case .blob(let bytes): statement.bind(bytes, at: index)
        case .decimal(let number): number.bind(statement, index)
        }
    }

    /// SQLite's ordering: NULL < numbers < text < blob; numbers by value, text and blobs by bytes.
    static func order(_ lhs: StoredValue, _ rhs: StoredValue, caseInsensitive: Bool = false) -> Int {
        func rank(_ value: StoredValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real, .decimal: 1
            case .text: 2
            case .blob: 3
            }
        }
        // NaN (never stored: a save refuses it) orders before every other number, so that
        // sorting unsaved objects stays a total order.
        if lhs.isNaN || rhs.isNaN {
            return lhs.isNaN && rhs.isNaN
                ? 0 : lhs.isNaN && rank(rhs) == 1 ? -1 : rhs.isNaN && rank(lhs) == 1 ? 1 : rank(lhs) - rank(rhs)
        }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.integer, .real), (.real, .integer), (.real, .real):
            let a = lhs.number!
            let b = rhs.number!
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.text(let a), .text(let b)):
            let x = caseInsensitive ? Self.asciiLowercased(a) : Array(a.utf8)
            let y = caseInsensitive ? Self.asciiLowercased(b) : Array(b.utf8)
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (.decimal(let a), .decimal(let b)):
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.decimal(let a), .integer), (.decimal(let a), .real):
            let b = Decimal(rhs.number!)
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.integer, .decimal(let b)), (.real, .decimal(let b)):
            let a = Decimal(lhs.number!)
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.blob(let a), .blob(let b)):
            return a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
        default:
            return rank(lhs) - rank(rhs)
        }
    }

    var isNaN: Bool {
        if case .real(let number) = self { number.isNaN } else { false }
    }

    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        default: nil
        }
    }

    /// SQLite's NOCASE folding: ASCII letters only.
    static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }
}

/// Lets `StoredValue.from` see through optionals passed as `Any`.
protocol OptionalProtocol {
    var isNil: Bool { get }
    var wrapped: Any { get }
}

/// `value` with any optional wrapping taken off (`nil` for `nil` and for an empty optional).
func unwrappedValue(_ value: Any?) -> Any? {
    value.flatMap { ($0 as? any OptionalProtocol).map { $0.isNil ? nil : $0.wrapped } ?? $0 }
}

extension Optional: OptionalProtocol {
    var isNil: Bool { self == nil }
    var wrapped: Any {
        switch self {
        case .some(let value): value
        case .none: preconditionFailure("wrapped of nil")
        }
    }
}
