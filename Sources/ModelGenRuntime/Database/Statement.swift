import CSQLite
import Foundation

/// A prepared statement of a store's database, SQLite or PostgreSQL: bind values by 1-based
/// index, step, read columns by 0-based index. It is also what generated code reads rows from
/// and binds values to (`ColumnValue`): on SQLite each read is the inlined `sqlite3_column_*`
/// call, on PostgreSQL a call that decodes the binary result.
///
/// Values only ever reach the database as bound parameters, never as SQL text.
public final class Statement {
    /// One engine's prepared statement. A `switch` over this, not a protocol existential, picks
    /// the engine: generated `read(from:startingAt:)` calls the column readers below once per
    /// column of every fetched row, and on SQLite each compiles to the `sqlite3_column_*` call
    /// itself (a call into this module per column was measurable there).
    @usableFromInline enum Engine {
        case sqlite(SQLiteStatement)
        case postgres(PostgresStatement)
    }

    @usableFromInline let engine: Engine
    private unowned let connection: Connection
    public let sql: String

    init(connection: Connection, sql: String, engine: Engine) {
        self.connection = connection
        self.sql = sql
        self.engine = engine
    }

    deinit { if case .sqlite(let statement) = engine { statement.finalize() } }

    /// Makes the statement ready to run again, with no values bound.
    public func reset() {
        conversionFailure = nil
        switch engine {
        case .sqlite(let statement): statement.reset()
        case .postgres(let statement): statement.reset()
        }
    }

    /// Makes the statement ready to run again, keeping its bound values (for a caller that binds
    /// every parameter anew: one C call fewer per row).
    func resetForRebinding() {
        switch engine {
        case .sqlite(let statement): statement.resetForRebinding()
        case .postgres(let statement): statement.resetForRebinding()
        }
    }

    // MARK: - Binding

    public func bindNull(_ index: Int32) {
        switch engine {
        case .sqlite(let statement): statement.bindNull(index)
        case .postgres(let statement): statement.bindNull(index)
        }
    }

    public func bind(_ value: Int64, at index: Int32) {
        switch engine {
        case .sqlite(let statement): statement.bind(value, at: index)
        case .postgres(let statement): statement.bind(value, at: index)
        }
    }

    public func bind(_ value: Double, at index: Int32) {
        // SQLite stores NaN as NULL and -0.0 as 0 (a REAL column keeps integral values as
        // integers): noted, so that a save refuses the value instead of storing another one.
        // PostgreSQL would keep both, but their comparisons differ from Core Data's (NaN equals
        // NaN there): refused on both, so a model behaves the same on either.
        if value.isNaN || (value == 0 && value.sign == .minus) { unstorableParameter = index }
        switch engine {
        case .sqlite(let statement): statement.bind(value, at: index)
        case .postgres(let statement): statement.bind(value, at: index)
        }
    }

    /// Binds a date, given as seconds since 2001-01-01: a REAL on SQLite, a `timestamptz` on
    /// PostgreSQL (which keeps microseconds).
    public func bindDate(_ seconds: Double, at index: Int32) {
        switch engine {
        case .sqlite: bind(seconds, at: index)
        case .postgres(let statement):
            if seconds.isNaN { unstorableParameter = index }
            statement.bindDate(seconds, at: index)
        }
    }

    /// Binds a UUID's 16 bytes: a BLOB on SQLite, a `uuid` on PostgreSQL.
    public func bindUUID(_ bytes: [UInt8], at index: Int32) {
        switch engine {
        case .sqlite(let statement): statement.bindUUID(bytes, at: index)
        case .postgres(let statement): statement.bindUUID(bytes, at: index)
        }
    }

    /// Binds a decimal's exact text: TEXT on SQLite, `numeric` on PostgreSQL.
    public func bindDecimal(_ text: String, at index: Int32) {
        switch engine {
        case .sqlite(let statement): statement.bindDecimal(text, at: index)
        case .postgres(let statement): statement.bindDecimal(text, at: index)
        }
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
        switch engine {
        case .sqlite(let statement): statement.bind(value, at: index)
        case .postgres(let statement): statement.bind(value, at: index)
        }
    }

    public func bind(_ value: String, at index: Int32) {
        switch engine {
        case .sqlite(let statement): statement.bind(value, at: index)
        case .postgres(let statement): statement.bind(value, at: index)
        }
    }

    public func bind(_ value: [UInt8], at index: Int32) {
        switch engine {
        case .sqlite(let statement): statement.bind(value, at: index)
        case .postgres(let statement): statement.bind(value, at: index)
        }
    }

    public func bind(_ value: Data, at index: Int32) { bind([UInt8](value), at: index) }

    // MARK: - Stepping

    /// Advances to the next row; `false` when the statement is done.
    public func step() throws(DatabaseError) -> Bool {
        switch engine {
        case .sqlite(let statement): try statement.step()
        case .postgres(let statement): try statement.step()
        }
    }

    /// Runs a statement that returns no rows.
    public func run() throws(DatabaseError) {
        connection.viewRows?.count = 0
        switch engine {
        case .sqlite(let statement): try statement.execute()
        case .postgres(let statement): try statement.execute()
        }
    }

    /// Runs a statement that returns no rows, on PostgreSQL later: queued for the connection's
    /// next pipeline (`Connection.flush()`, or any statement run the ordinary way), so that a
    /// save's writes do not wait for a round trip each. Its error, if any, comes from the flush.
    func runQueued() throws(DatabaseError) {
        connection.viewRows?.count = 0
        switch engine {
        case .sqlite(let statement): try statement.enqueue()
        case .postgres(let statement): try statement.enqueue()
        }
    }

    // MARK: - Columns

    /// How many rows the statement has after the current one, where the engine knows it
    /// (PostgreSQL, whose results arrive whole); `nil` on SQLite.
    var remainingRows: Int? {
        switch engine {
        case .sqlite: nil
        case .postgres(let statement): statement.remainingRows
        }
    }

    public var columnCount: Int32 {
        switch engine {
        case .sqlite(let statement): statement.columnCount
        case .postgres(let statement): statement.columnCount
        }
    }

    @inlinable public func isNull(_ column: Int32) -> Bool {
        switch engine {
        case .sqlite(let statement): statement.isNull(column)
        case .postgres(let statement): statement.isNull(column)
        }
    }

    @inlinable public func int64(_ column: Int32) -> Int64 {
        switch engine {
        case .sqlite(let statement): statement.int64(column)
        case .postgres(let statement): statement.int64(column)
        }
    }

    @inlinable public func double(_ column: Int32) -> Double {
        switch engine {
        case .sqlite(let statement): statement.double(column)
        case .postgres(let statement): statement.double(column)
        }
    }

    /// A date as seconds since 2001-01-01 (a REAL on SQLite, a `timestamptz` on PostgreSQL).
    @inlinable public func date(_ column: Int32) -> Double {
        switch engine {
        case .sqlite(let statement): statement.date(column)
        case .postgres(let statement): statement.date(column)
        }
    }

    @inlinable public func string(_ column: Int32) -> String {
        switch engine {
        case .sqlite(let statement): statement.string(column)
        case .postgres(let statement): statement.string(column)
        }
    }

    /// The object ID of the current row, from its `_pk` and `_entity` columns.
    func objectID(key: Int32, entity: Int32) -> ObjectID {
        ObjectID(entityID: Int32(truncatingIfNeeded: int64(entity)), rowID: int64(key))
    }

    public func bytes(_ column: Int32) -> [UInt8] {
        switch engine {
        case .sqlite(let statement): statement.bytes(column)
        case .postgres(let statement): statement.bytes(column)
        }
    }
}
