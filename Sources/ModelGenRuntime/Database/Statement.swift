import CSQLite
import Foundation

/// A prepared statement of a store's database, SQLite or PostgreSQL: bind values by 1-based
/// index, step, read columns by 0-based index. It is also what generated code reads rows from
/// and binds values to (`ColumnValue`): on SQLite each read is the inlined `sqlite3_column_*`
/// call, on PostgreSQL a call that decodes the binary result.
///
/// Values only ever reach the database as bound parameters, never as SQL text.
public final class Statement {
    // Reachable from inlined code: generated `read(from:startingAt:)` calls the column readers
    // below once per column of every fetched row, and a call into this module per column was
    // measurable there. `nil` on PostgreSQL.
    @usableFromInline let statement: OpaquePointer?
    /// The PostgreSQL statement; `nil` on SQLite.
    @usableFromInline let postgres: PostgresStatement?
    private unowned let connection: Connection
    public let sql: String

    init(connection: Connection, sql: String) throws(DatabaseError) {
        self.connection = connection
        self.sql = sql
        if let server = connection.postgres {
            statement = nil
            postgres = PostgresStatement(connection: server, sql: sql)
            return
        }
        var prepared: OpaquePointer?
        guard
            sqlite3_prepare_v3(connection.pointer, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
                == SQLITE_OK,
            let prepared
        else { throw connection.error(sql) }
        statement = prepared
        postgres = nil
    }

    deinit { sqlite3_finalize(statement) }

    /// Makes the statement ready to run again, with no values bound.
    public func reset() {
        conversionFailure = nil
        if let postgres { return postgres.reset() }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Makes the statement ready to run again, keeping its bound values (for a caller that binds
    /// every parameter anew: one C call fewer per row).
    func resetForRebinding() {
        if let postgres { return postgres.clearResult() }
        sqlite3_reset(statement)
    }

    // MARK: - Binding

    public func bindNull(_ index: Int32) {
        if let postgres { return postgres.bindNull(index) }
        sqlite3_bind_null(statement, index)
    }
    public func bind(_ value: Int64, at index: Int32) {
        if let postgres { return postgres.bind(value, at: index) }
        sqlite3_bind_int64(statement, index, value)
    }
    public func bind(_ value: Double, at index: Int32) {
        // SQLite stores NaN as NULL and -0.0 as 0 (a REAL column keeps integral values as
        // integers): noted, so that a save refuses the value instead of storing another one.
        // PostgreSQL would keep both, but their comparisons differ from Core Data's (NaN equals
        // NaN there): refused on both, so a model behaves the same on either.
        if value.isNaN || (value == 0 && value.sign == .minus) { unstorableParameter = index }
        if let postgres { return postgres.bind(value, at: index) }
        sqlite3_bind_double(statement, index, value)
    }

    /// Binds a date, given as seconds since 2001-01-01: a REAL on SQLite, a `timestamptz` on
    /// PostgreSQL (which keeps microseconds).
    public func bindDate(_ seconds: Double, at index: Int32) {
        if let postgres {
            if seconds.isNaN { unstorableParameter = index }
            return postgres.bindDate(seconds, at: index)
        }
        bind(seconds, at: index)
    }

    /// Binds a UUID's 16 bytes: a BLOB on SQLite, a `uuid` on PostgreSQL.
    public func bindUUID(_ bytes: [UInt8], at index: Int32) {
        if let postgres { return postgres.bindUUID(bytes, at: index) }
        bind(bytes, at: index)
    }

    /// Binds a decimal's exact text: TEXT on SQLite, `numeric` on PostgreSQL.
    public func bindDecimal(_ text: String, at index: Int32) {
        if let postgres { return postgres.bindDecimal(text, at: index) }
        bind(text, at: index)
    }

    /// The parameter last bound with a `Double` SQLite cannot give back as it is (NaN, -0.0); 0
    /// for none. A save checks and clears it after binding each row.
    var unstorableParameter: Int32 = 0

    /// The first typed value that did not convert since the last check (its slot and the error):
    /// see `Statement+TypedValues.swift`.
    var conversionFailure: (Int, DatabaseError)?

    /// Throws `.validation` when a value bound since the last call cannot be stored as it is, and
    /// `.conversion` when a typed value could not be encoded.
    func checkStorable(_ object: ManagedObject, _ entity: EntityDescription) throws(DatabaseError) {
        if let (slot, error) = conversionFailure {
            conversionFailure = nil
            unstorableParameter = 0
            throw Self.located(error, slot, entity, "saving \(object.objectID.stringValue)")
        }
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
    public func bind(_ value: Bool, at index: Int32) {
        if let postgres { return postgres.bind(value, at: index) }
        sqlite3_bind_int64(statement, index, value ? 1 : 0)
    }

    public func bind(_ value: String, at index: Int32) {
        if let postgres { return postgres.bind(value, at: index) }
        var text = value
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(buffer.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) },
                Int32(buffer.count), modelgen_sqlite_transient())
        }
    }

    public func bind(_ value: [UInt8], at index: Int32) {
        if let postgres { return postgres.bind(value, at: index) }
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(
                statement, index, buffer.baseAddress, Int32(buffer.count), modelgen_sqlite_transient())
        }
    }

    public func bind(_ value: Data, at index: Int32) { bind([UInt8](value), at: index) }

    // MARK: - Stepping

    /// Advances to the next row; `false` when the statement is done.
    public func step() throws(DatabaseError) -> Bool {
        if let postgres { return try postgres.step() }
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(sql)
        }
    }

    /// Runs a statement that returns no rows.
    public func run() throws(DatabaseError) {
        if let postgres { return try postgres.execute() }
        connection.viewRows?.count = 0
        while try step() {}
    }

    /// Runs a statement that returns no rows, on PostgreSQL later: queued for the connection's
    /// next pipeline (`Connection.flush()`, or any statement run the ordinary way), so that a
    /// save's writes do not wait for a round trip each. Its error, if any, comes from the flush.
    func runQueued() throws(DatabaseError) {
        if let postgres { return try postgres.enqueue() }
        connection.viewRows?.count = 0
        while try step() {}
    }

    // MARK: - Columns

    public var columnCount: Int32 { postgres?.columnCount ?? sqlite3_column_count(statement) }

    @inlinable public func isNull(_ column: Int32) -> Bool {
        if let postgres { return postgres.isNull(column) }
        return sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    @inlinable public func int64(_ column: Int32) -> Int64 {
        if let postgres { return postgres.int64(column) }
        return sqlite3_column_int64(statement, column)
    }

    @inlinable public func double(_ column: Int32) -> Double {
        if let postgres { return postgres.double(column) }
        return sqlite3_column_double(statement, column)
    }

    /// A date as seconds since 2001-01-01 (a REAL on SQLite, a `timestamptz` on PostgreSQL).
    @inlinable public func date(_ column: Int32) -> Double {
        if let postgres { return postgres.date(column) }
        return sqlite3_column_double(statement, column)
    }

    @inlinable public func string(_ column: Int32) -> String {
        if let postgres { return postgres.string(column) }
        guard let text = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The object ID of the current row, from its `_pk` and `_entity` columns.
    func objectID(key: Int32, entity: Int32) -> ObjectID {
        ObjectID(entityID: Int32(truncatingIfNeeded: int64(entity)), rowID: int64(key))
    }

    public func bytes(_ column: Int32) -> [UInt8] {
        if let postgres { return postgres.bytes(column) }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let blob = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: blob, count: count))
    }
}
