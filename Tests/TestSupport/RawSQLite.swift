import CSQLite
import Foundation

/// A read-only SQLite file read with the C API alone, each value as canonical text (`nil`, a
/// number as a `Double`'s description, text as itself, a blob as lowercase hex): how tests read a
/// store independently of the code that wrote it.
public final class RawSQLite {
    private var handle: OpaquePointer?

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure(description: "cannot open \(path)")
        }
    }

    deinit { sqlite3_close(handle) }

    /// The rows of `sql`, each value canonical (see the type's summary).
    public func rows(_ sql: String) throws -> [[String?]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))): \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append(
                (0..<sqlite3_column_count(statement)).map { column -> String? in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: "\(Double(sqlite3_column_int64(statement, column)))"
                    case SQLITE_FLOAT: "\(sqlite3_column_double(statement, column))"
                    case SQLITE_TEXT: String(cString: sqlite3_column_text(statement, column))
                    case SQLITE_BLOB:
                        UnsafeRawBufferPointer(
                            start: sqlite3_column_blob(statement, column),
                            count: Int(sqlite3_column_bytes(statement, column))
                        ).map { String(format: "%02x", $0) }.joined()
                    default: nil
                    }
                })
        }
        return result
    }

    /// The tables' names, and each table's columns in order.
    public func tables() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for row in try rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard let table = row[0] else { continue }
            result[table] = try rows("SELECT name FROM pragma_table_info('\(table)')").compactMap { $0[0] }
        }
        return result
    }
}
