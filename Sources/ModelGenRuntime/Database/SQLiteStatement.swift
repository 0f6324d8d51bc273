import CSQLite

/// A prepared SQLite statement. Its column readers are inlinable: generated code's reads of a
/// fetched row compile to the `sqlite3_column_*` calls themselves.
@usableFromInline
struct SQLiteStatement: StatementDriver {
    @usableFromInline let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    func finalize() { sqlite3_finalize(handle) }

    private var database: OpaquePointer { sqlite3_db_handle(handle) }

    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }
    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    func bind(_ value: Bool, at index: Int32) { sqlite3_bind_int64(handle, index, value ? 1 : 0) }

    func bind(_ value: String, at index: Int32) {
        var text = value
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(
                handle, index, UnsafeRawPointer(buffer.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) },
                Int32(buffer.count), modelgen_sqlite_transient())
        }
    }

    func bind(_ value: [UInt8], at index: Int32) {
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), modelgen_sqlite_transient())
        }
    }

    /// A date is a REAL of seconds since 2001-01-01.
    func bindDate(_ seconds: Double, at index: Int32) { bind(seconds, at: index) }
    /// A UUID is a BLOB of its 16 bytes.
    func bindUUID(_ bytes: [UInt8], at index: Int32) { bind(bytes, at: index) }
    /// A decimal is TEXT, exact.
    func bindDecimal(_ text: String, at index: Int32) { bind(text, at: index) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func resetForRebinding() { sqlite3_reset(handle) }

    func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let sql = sqlite3_sql(handle).map { String(cString: $0) }
            throw DatabaseError(
                .sqlite, String(cString: sqlite3_errmsg(database)), sql: sql,
                sqliteCode: sqlite3_extended_errcode(database))
        }
    }

    func execute() throws(DatabaseError) { while try step() {} }
    func enqueue() throws(DatabaseError) { try execute() }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    @inlinable func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    @inlinable func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inlinable func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    /// A date as seconds since 2001-01-01 (a REAL).
    @inlinable func date(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inlinable func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let blob = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: blob, count: count))
    }
}
