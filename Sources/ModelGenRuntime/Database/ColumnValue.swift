import Foundation

/// A Swift value that generated code reads from and binds to a column: the stored form of each
/// attribute type (integers, `Double`, `Float`, `Bool`, `String`, `Date` as seconds since
/// 2001-01-01, `Data`, `UUID` as 16 bytes, `URL` as text, `Decimal` as text) and optionals of them.
public protocol ColumnValue {
    /// Reads the value in `column` of the current row.
    static func read(_ row: Statement, _ column: Int32) -> Self
    /// Binds the value to parameter `index`.
    func bind(_ statement: Statement, _ index: Int32)
    /// The stored form, for predicates and dynamic access.
    var storedValue: Any? { get }
}

extension ColumnValue {
    public var storedValue: Any? { self }
}

/// The reads and binds of the plain types are inlinable, so generated code's `row.read(column + n)`
/// compiles to the SQLite call itself.
extension Statement {
    /// The value in `column` of the current row, as the type the caller expects.
    @inlinable
    public func read<Value: ColumnValue>(_ column: Int32) -> Value { Value.read(self, column) }

    /// Binds `value` to parameter `index`.
    @inlinable
    public func bind<Value: ColumnValue>(_ value: Value, at index: Int32) { value.bind(self, index) }
}

extension Int16: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Int16 {
        Int16(truncatingIfNeeded: row.int64(column))
    }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(Int64(self), at: index) }
}

extension Int32: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Int32 {
        Int32(truncatingIfNeeded: row.int64(column))
    }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(Int64(self), at: index) }
}

extension Int64: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Int64 { row.int64(column) }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(self, at: index) }
}

/// `Int`, stored as a 64-bit integer: the raw value type of many enums on integer attributes.
extension Int: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Int {
        Int(truncatingIfNeeded: row.int64(column))
    }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(Int64(self), at: index) }
}

extension Double: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Double { row.double(column) }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(self, at: index) }
}

extension Float: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Float { Float(row.double(column)) }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(Double(self), at: index) }
}

extension Bool: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Bool { row.int64(column) != 0 }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(self, at: index) }
}

extension String: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> String { row.string(column) }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) { statement.bind(self, at: index) }
}

extension Date: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Date {
        Date(timeIntervalSinceReferenceDate: row.date(column))
    }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) {
        statement.bindDate(timeIntervalSinceReferenceDate, at: index)
    }
}

extension Data: ColumnValue {
    public static func read(_ row: Statement, _ column: Int32) -> Data { Data(row.bytes(column)) }
    public func bind(_ statement: Statement, _ index: Int32) { statement.bind(self, at: index) }
}

extension UUID: ColumnValue {
    public static func read(_ row: Statement, _ column: Int32) -> UUID {
        let bytes = row.bytes(column)
        guard bytes.count == 16 else { return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
    public func bind(_ statement: Statement, _ index: Int32) {
        statement.bindUUID(withUnsafeBytes(of: uuid) { Array($0) }, at: index)
    }
}

extension URL: ColumnValue {
    public static func read(_ row: Statement, _ column: Int32) -> URL {
        URL(string: row.string(column)) ?? URL(fileURLWithPath: "/")
    }
    public func bind(_ statement: Statement, _ index: Int32) { statement.bind(absoluteString, at: index) }
}

extension Decimal: ColumnValue {
    public static func read(_ row: Statement, _ column: Int32) -> Decimal {
        let text = row.string(column)
        if let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { return value }
        // Foundation writes NaN as "NaN" (Core Data stores keep it so) but does not parse it back.
        return text == "NaN" ? .nan : 0
    }
    public func bind(_ statement: Statement, _ index: Int32) {
        statement.bindDecimal(
            NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX")), at: index)
    }
}

extension Optional: ColumnValue where Wrapped: ColumnValue {
    @inlinable public static func read(_ row: Statement, _ column: Int32) -> Wrapped? {
        row.isNull(column) ? nil : Wrapped.read(row, column)
    }
    @inlinable public func bind(_ statement: Statement, _ index: Int32) {
        if let self { self.bind(statement, index) } else { statement.bindNull(index) }
    }
    public var storedValue: Any? { self.map { $0 as Any } }
}
