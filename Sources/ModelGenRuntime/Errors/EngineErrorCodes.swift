import CSQLite

/// The SQLite result codes the runtime acts on, by name (SQLite's `SQLITE_*` values; extended
/// codes carry the primary code in their low byte).
enum SQLiteResultCode {
    static let busy = SQLITE_BUSY
    static let full = SQLITE_FULL
    /// `SQLITE_CONSTRAINT_UNIQUE`: a unique index refused a row.
    static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)

    /// The primary code of an extended one (`SQLITE_BUSY_SNAPSHOT` → `SQLITE_BUSY`).
    static func primary(_ code: Int32) -> Int32 { code & 0xFF }
}

/// The PostgreSQL SQLSTATEs the runtime acts on, by their names in the manual's appendix A.
enum PostgresSQLState {
    static let serializationFailure = "40001"
    static let deadlockDetected = "40P01"
    static let adminShutdown = "57P01"
    static let crashShutdown = "57P02"
    static let cannotConnectNow = "57P03"
    static let numericValueOutOfRange = "22003"
    static let characterNotInRepertoire = "22021"
    static let untranslatableCharacter = "22P05"
    static let notNullViolation = "23502"
    static let foreignKeyViolation = "23503"
    static let uniqueViolation = "23505"
    static let checkViolation = "23514"
    /// The class of `connection_exception` and its subclasses.
    static let connectionExceptionClass = "08"
}

extension DatabaseError.Code {
    /// The code of a PostgreSQL error with SQLSTATE `state` (nil: none came, the session is gone):
    /// the classes the runtime handles, else `.postgres`. SQLite's errors are all `.sqlite`, their
    /// result code kept in `DatabaseError.sqliteCode`.
    static func of(sqlState state: String?, connected: Bool) -> Self {
        guard let state, connected else { return .connectionLost }
        switch state {
        case PostgresSQLState.serializationFailure, PostgresSQLState.deadlockDetected: return .conflict
        case PostgresSQLState.adminShutdown, PostgresSQLState.crashShutdown, PostgresSQLState.cannotConnectNow:
            return .connectionLost
        case PostgresSQLState.numericValueOutOfRange, PostgresSQLState.characterNotInRepertoire,
            PostgresSQLState.untranslatableCharacter, PostgresSQLState.notNullViolation,
            PostgresSQLState.checkViolation:
            return .validation
        default: return state.hasPrefix(PostgresSQLState.connectionExceptionClass) ? .connectionLost : .postgres
        }
    }
}

extension DatabaseError {
    /// A unique index refused a row: `SQLITE_CONSTRAINT_UNIQUE`, or `unique_violation`.
    var isUniqueViolation: Bool {
        sqliteCode == SQLiteResultCode.constraintUnique || sqlState == PostgresSQLState.uniqueViolation
    }

    /// A row refers to one that is gone (`foreign_key_violation`, PostgreSQL checking at commit).
    var isForeignKeyViolation: Bool { sqlState == PostgresSQLState.foreignKeyViolation }

    /// SQLite found the database locked (`SQLITE_BUSY` and its extended codes).
    var isBusy: Bool { sqliteCode.map { SQLiteResultCode.primary($0) == SQLiteResultCode.busy } == true }
}
