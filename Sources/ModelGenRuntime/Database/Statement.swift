import CSQLite
import Foundation

/// A prepared SQLite statement: bind values by 1-based index, step, read columns by 0-based index.
///
/// Values only ever reach SQLite as bound parameters, never as SQL text.
public final class Statement {
    // Reachable from inlined code: generated `read(from:startingAt:)` calls the column readers
    // below once per column of every fetched row, and a call into this module per column was
    // measurable there.
    @usableFromInline let statement: OpaquePointer
    private unowned let connection: Connection
    public let sql: String

    init(connection: Connection, sql: String) throws(DatabaseError) {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v3(connection.pointer, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK,
            let prepared
        else { throw connection.error(sql) }
        self.statement = prepared
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Makes the statement ready to run again, with no values bound.
    public func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Makes the statement ready to run again, keeping its bound values (for a caller that binds
    /// every parameter anew: one C call fewer per row).
    func resetForRebinding() { sqlite3_reset(statement) }

    // MARK: - Binding

    public func bindNull(_ index: Int32) { sqlite3_bind_null(statement, index) }
    public func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(statement, index, value) }
    public func bind(_ value: Double, at index: Int32) {
        // SQLite stores NaN as NULL and -0.0 as 0 (a REAL column keeps integral values as
        // integers): noted, so that a save refuses the value instead of storing another one.
        if value.isNaN || (value == 0 && value.sign == .minus) { unstorableParameter = index }
        sqlite3_bind_double(statement, index, value)
    }

    /// The parameter last bound with a `Double` SQLite cannot give back as it is (NaN, -0.0); 0
    /// for none. A save checks and clears it after binding each row.
    var unstorableParameter: Int32 = 0

    /// Throws `.validation` when a value bound since the last call cannot be stored as it is.
    func checkStorable(_ object: ManagedObject, _ entity: EntityDescription) throws(DatabaseError) {
        guard unstorableParameter != 0 else { return }
        unstorableParameter = 0
        let slot = entity.attributes.indices.first { slot in
            let value = object.value(atSlot: slot)
            guard let number = (value as? Double) ?? (value as? Float).map(Double.init) else { return false }
            return number.isNaN || (number == 0 && number.sign == .minus)
        }
        let name = slot.map { entity.attributes[$0].name }
        throw DatabaseError(
            .validation,
            "\(entity.name).\(name ?? "a number") is NaN or -0.0, which SQLite cannot store as it is (NaN becomes NULL, -0.0 becomes 0)",
            entity: entity.name, property: name)
    }
    public func bind(_ value: Bool, at index: Int32) { sqlite3_bind_int64(statement, index, value ? 1 : 0) }

    public func bind(_ value: String, at index: Int32) {
        var text = value
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(buffer.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) },
                Int32(buffer.count), modelgen_sqlite_transient())
        }
    }

    public func bind(_ value: [UInt8], at index: Int32) {
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), modelgen_sqlite_transient())
        }
    }

    public func bind(_ value: Data, at index: Int32) { bind([UInt8](value), at: index) }

    // MARK: - Stepping

    /// Advances to the next row; `false` when the statement is done.
    public func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(sql)
        }
    }

    /// Runs a statement that returns no rows.
    public func run() throws(DatabaseError) {
        while try step() {}
    }

    // MARK: - Columns

    public var columnCount: Int32 { sqlite3_column_count(statement) }
    @inlinable public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    @inlinable public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    @inlinable public func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    @inlinable public func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let blob = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: blob, count: count))
    }
}
