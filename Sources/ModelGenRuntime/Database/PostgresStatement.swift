import CLibPQ
import Foundation

/// A statement on PostgreSQL: parameters bound in binary form with their types, prepared on the
/// server the first time it runs with a given list of parameter types, results read in binary.
///
/// Runtime SQL writes parameters as `?`; they are numbered `$1`, `$2`, … here.
@usableFromInline
final class PostgresStatement {
    private unowned let connection: PostgresConnection
    let text: String
    let parameterCount: Int
    private var values: [[UInt8]?]
    private var types: [Oid]
    private var formats: [Int32]
    /// Server-side names of this statement, by parameter types, for the connection's `generation`.
    private var names: [[Oid]: String] = [:]
    private var generation: Int
    private var result: OpaquePointer?
    private var executed = false
    private var row: Int32 = -1
    private var rowCount: Int32 = 0

    init(connection: PostgresConnection, sql: String) {
        self.connection = connection
        (text, parameterCount) = Self.numberingParameters(sql)
        values = Array(repeating: nil, count: parameterCount)
        types = Array(repeating: 0, count: parameterCount)
        formats = Array(repeating: 1, count: parameterCount)
        generation = connection.generation
    }

    deinit { PQclear(result) }

    /// `sql` with each `?` outside quotes replaced by `$1`, `$2`, …, and how many there are.
    static func numberingParameters(_ sql: String) -> (String, Int) {
        var output = ""
        var count = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                output.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                output.append(character)
            } else if character == "?" {
                count += 1
                output += "$\(count)"
            } else {
                output.append(character)
            }
        }
        return (output, count)
    }

    // MARK: - Binding (1-based, as on SQLite)

    private func set(_ index: Int32, _ bytes: [UInt8]?, _ type: Oid, format: Int32 = 1) {
        let slot = Int(index) - 1
        guard slot >= 0, slot < parameterCount else { return }
        values[slot] = bytes
        types[slot] = type
        formats[slot] = format
    }

    func bindNull(_ index: Int32) { set(index, nil, 0) }
    func bind(_ value: Int64, at index: Int32) {
        set(index, Self.bigEndian(UInt64(bitPattern: value)), PostgresType.int8)
    }
    func bind(_ value: Double, at index: Int32) { set(index, Self.bigEndian(value.bitPattern), PostgresType.float8) }
    func bind(_ value: Bool, at index: Int32) { set(index, [value ? 1 : 0], PostgresType.bool) }
    func bind(_ value: String, at index: Int32) { set(index, Array(value.utf8), PostgresType.text) }
    func bind(_ value: [UInt8], at index: Int32) { set(index, value, PostgresType.bytea) }
    func bindUUID(_ value: [UInt8], at index: Int32) { set(index, value, PostgresType.uuid) }
    /// A `Decimal`'s text, sent as text so that the server parses it into `numeric` exactly.
    func bindDecimal(_ text: String, at index: Int32) { set(index, Array(text.utf8), PostgresType.numeric, format: 0) }

    /// Seconds since 2001-01-01 as `timestamptz` (microseconds since 2000-01-01): the server keeps
    /// microseconds, so a date is stored rounded to the nearest one.
    /// The 2001 epoch is moved to 2000 in whole microseconds, so a date with whole microseconds
    /// reads back as the same `Double`.
    func bindDate(_ seconds: Double, at index: Int32) {
        let micros = (seconds * 1_000_000).rounded()
        let value: Int64 =
            micros.isNaN
            ? 0
            : micros >= 9e18 ? .max : micros <= -9e18 ? .min : Int64(micros) + PostgresType.microsecondsFrom2000To2001
        set(index, Self.bigEndian(UInt64(bitPattern: value)), PostgresType.timestamptz)
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    // MARK: - Running

    func reset() {
        clearResult()
        for index in values.indices {
            values[index] = nil
            types[index] = 0
            formats[index] = 1
        }
    }

    func clearResult() {
        PQclear(result)
        result = nil
        executed = false
        row = -1
        rowCount = 0
    }

    func step() throws(DatabaseError) -> Bool {
        if !executed { try execute() }
        guard row < rowCount else { return false }
        row += 1
        return row < rowCount
    }

    /// The server-side name of this statement for the parameter types bound now (prepared the
    /// first time they are used).
    private func preparedName() throws(DatabaseError) -> String {
        if generation != connection.generation {
            names.removeAll()
            generation = connection.generation
        }
        if let known = names[types] { return known }
        let name = try connection.prepare(text, types: types)
        names[types] = name
        return name
    }

    /// The bound values in one buffer, each followed by a NUL (text-format values are C strings).
    private func packedValues() -> (buffer: [UInt8], offsets: [Int?], lengths: [Int32]) {
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        offsets.reserveCapacity(parameterCount)
        lengths.reserveCapacity(parameterCount)
        for value in values {
            offsets.append(value == nil ? nil : buffer.count)
            lengths.append(Int32(value?.count ?? 0))
            if let value { buffer += value }
            buffer.append(0)
        }
        return (buffer, offsets, lengths)
    }

    /// Queues the statement with the values bound now, to run in the connection's next pipeline.
    func enqueue() throws(DatabaseError) {
        let name = try preparedName()
        let packed = packedValues()
        connection.pending.append(
            PostgresCommand(
                name: name, sql: text, buffer: packed.buffer, offsets: packed.offsets, lengths: packed.lengths,
                formats: formats))
    }

    func execute() throws(DatabaseError) {
        clearResult()
        if !connection.pending.isEmpty { try connection.flushPipeline() }
        let name = try preparedName()
        let packed = packedValues()
        let formats = formats
        let outcome = try connection.traced(text) {
            packed.buffer.withUnsafeBufferPointer { bytes in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                let pointers = packed.offsets.map { offset in offset.map { base + $0 } }
                return connection.run(name, values: pointers, lengths: packed.lengths, formats: formats)
            }
        }
        executed = true
        do {
            try connection.check(outcome, sql: text)
        } catch {
            PQclear(outcome)
            throw error
        }
        result = outcome
        if PQresultStatus(outcome) == PGRES_TUPLES_OK {
            rowCount = PQntuples(outcome)
            connection.changes = 0
        } else {
            connection.changes = Int(String(cString: PQcmdTuples(outcome))) ?? 0
        }
    }

    // MARK: - Columns (0-based)

    var columnCount: Int32 { result.map(PQnfields) ?? 0 }

    /// Rows after the current one (known from the first `step` on, which runs the statement).
    var remainingRows: Int { executed ? Int(max(0, rowCount - row - 1)) : 0 }

    @usableFromInline func isNull(_ column: Int32) -> Bool { PQgetisnull(result, row, column) == 1 }

    private func raw(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
        return UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, column)))
    }

    private static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        // Most integers are `bigint`s, `integer`s (and doubles' bit patterns): one load each.
        if bytes.count == 8 { return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self)) }
        if bytes.count == 4 { return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self))) }
        var value: Int64 = 0
        for byte in bytes { value = value << 8 | Int64(byte) }
        // Sign-extend values narrower than 8 bytes.
        let unused = 64 - 8 * bytes.count
        return unused > 0 && unused < 64 ? (value << Int64(unused)) >> Int64(unused) : value
    }

    @usableFromInline func int64(_ column: Int32) -> Int64 {
        guard let bytes = raw(column) else { return 0 }
        switch PQftype(result, column) {
        case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.bool, PostgresType.oid:
            return Self.integer(bytes)
        case PostgresType.float8, PostgresType.float4, PostgresType.numeric, PostgresType.timestamptz,
            PostgresType.timestamp:
            let number = double(column)
            return number.isFinite ? Int64(exactly: number.rounded(.towardZero)) ?? 0 : 0
        default:
            return Int64(String(decoding: bytes, as: UTF8.self)) ?? 0
        }
    }

    @usableFromInline func double(_ column: Int32) -> Double {
        guard let bytes = raw(column) else { return 0 }
        switch PQftype(result, column) {
        case PostgresType.float8: return Double(bitPattern: UInt64(bitPattern: Self.integer(bytes)))
        case PostgresType.float4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: Self.integer(bytes))))
        case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.bool:
            return Double(Self.integer(bytes))
        case PostgresType.numeric: return Double(PostgresType.numericText(bytes)) ?? .nan
        case PostgresType.timestamptz, PostgresType.timestamp: return date(column)
        default: return Double(String(decoding: bytes, as: UTF8.self)) ?? 0
        }
    }

    /// Seconds since 2001-01-01 of a `timestamptz` (or a number of seconds).
    @usableFromInline func date(_ column: Int32) -> Double {
        guard let bytes = raw(column) else { return 0 }
        switch PQftype(result, column) {
        case PostgresType.timestamptz, PostgresType.timestamp:
            let micros = Self.integer(bytes)
            if micros == .max { return .infinity }
            if micros < .min + PostgresType.microsecondsFrom2000To2001 { return -.infinity }
            return Double(micros - PostgresType.microsecondsFrom2000To2001) / 1_000_000
        default:
            return double(column)
        }
    }

    @usableFromInline func string(_ column: Int32) -> String {
        guard let bytes = raw(column) else { return "" }
        if PQftype(result, column) == PostgresType.numeric { return PostgresType.numericText(bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        guard let bytes = raw(column) else { return [] }
        return [UInt8](bytes)
    }
}

/// The built-in types the runtime reads and binds, by OID (fixed in PostgreSQL's catalog).
enum PostgresType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let timestamp: Oid = 1114
    static let timestamptz: Oid = 1184
    static let numeric: Oid = 1700
    static let uuid: Oid = 2950

    /// 2000-01-01 (PostgreSQL's epoch) to 2001-01-01 (Foundation's reference date): 366 days.
    static let microsecondsFrom2000To2001: Int64 = 31_622_400_000_000

    /// The decimal text of a binary `numeric`: digit count, weight (of the first base-10000
    /// digit), sign, display scale, then the base-10000 digits.
    static func numericText(_ bytes: UnsafeRawBufferPointer) -> String {
        func word(_ index: Int) -> Int {
            guard 2 * index + 1 < bytes.count else { return 0 }
            return Int(bytes[2 * index]) << 8 | Int(bytes[2 * index + 1])
        }
        let count = word(0)
        let weight = Int(Int16(truncatingIfNeeded: word(1)))
        let sign = word(2)
        let scale = word(3)
        if sign == 0xC000 { return "NaN" }
        let digits = (0..<count).map { word(4 + $0) }
        var integer = ""
        if weight >= 0 {
            for position in 0...weight {
                let digit = position < digits.count ? digits[position] : 0
                integer += position == 0 ? String(digit) : pad(digit)
            }
        } else {
            integer = "0"
        }
        var fraction = ""
        if scale > 0 {
            var position = weight + 1
            while fraction.count < scale {
                let digit = position >= 0 && position < digits.count ? digits[position] : 0
                fraction += pad(digit)
                position += 1
            }
            fraction = String(fraction.prefix(scale))
        }
        let magnitude = fraction.isEmpty ? integer : integer + "." + fraction
        return sign == 0x4000 ? "-" + magnitude : magnitude
    }

    private static func pad(_ digit: Int) -> String {
        let text = String(digit)
        return String(repeating: "0", count: 4 - text.count) + text
    }
}
