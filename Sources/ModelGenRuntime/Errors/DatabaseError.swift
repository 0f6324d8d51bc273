/// The one error type of ModelGenRuntime: a stable code, a message, and where known the entity,
/// the property and the SQL involved.
///
/// ```swift
/// do { try context.save() } catch let error as DatabaseError where error.code == .validation { … }
/// ```
public struct DatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code. New codes may be added; existing ones never change meaning.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable, CaseIterable {
            case sqlite, validation, uniqueness, deny, missingObject, conflict, unknownKey, wrongType, predicate,
                misuse, migration
            case foreignDatabase, postgres, connectionLost, conversion
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// SQLite reported an error (`sqliteCode` holds its result code).
        public static let sqlite = Code(.sqlite)
        /// A value broke the model's rules (required, bounds, length, pattern, counts).
        public static let validation = Code(.validation)
        /// A save would store two objects with the same unique key.
        public static let uniqueness = Code(.uniqueness)
        /// A Deny deletion rule refused a delete.
        public static let deny = Code(.deny)
        /// The object is not (or no longer) in the store.
        public static let missingObject = Code(.missingObject)
        /// Another context or process changed the object's row since it was read (optimistic
        /// locking on `_version`), and the merge policy is `.error`.
        public static let conflict = Code(.conflict)
        /// No property has that key.
        public static let unknownKey = Code(.unknownKey)
        /// A value of the wrong type for the property.
        public static let wrongType = Code(.wrongType)
        /// A predicate could not be read or type-checked.
        public static let predicate = Code(.predicate)
        /// The store is of another model version and was not migrated (the message names the
        /// migration's steps that are not automatic).
        public static let migration = Code(.migration)
        /// The file is a database modelgen did not make (another program's, or a Core Data store);
        /// it is left unchanged.
        public static let foreignDatabase = Code(.foreignDatabase)
        /// PostgreSQL reported an error (`sqlState` holds its SQLSTATE).
        public static let postgres = Code(.postgres)
        /// The connection to the database server was lost (or could not be opened again). Nothing
        /// of the failed save is stored; the next use reconnects, so the save can be retried.
        public static let connectionLost = Code(.connectionLost)
        /// A value does not convert between its Swift type and its column: a stored raw value that
        /// is no case of the attribute's `RawRepresentable` type, bytes its `Codable` type or value
        /// transformer cannot decode, a value that cannot be encoded, a transformer not registered.
        public static let conversion = Code(.conversion)
        /// The API was used in a way it does not allow.
        public static let misuse = Code(.misuse)

        public var description: String { value.rawValue }

        /// Every code, in declaration order (the error table of Errors.md lists each).
        static var all: [Code] { Value.allCases.map(Code.init) }
    }

    public var code: Code
    public var message: String
    public var entity: String?
    public var property: String?
    /// The SQL that failed, for `.sqlite` errors.
    public var sql: String?
    /// SQLite's extended result code, for `.sqlite` errors.
    public var sqliteCode: Int32?
    /// PostgreSQL's SQLSTATE, for errors the server reported.
    public var sqlState: String?
    /// The table the server named in the error (PostgreSQL).
    public var table: String?
    /// The server's detail line (PostgreSQL), e.g. `Key (id)=(…) already exists.`
    public var detail: String?

    public init(
        _ code: Code, _ message: String, entity: String? = nil, property: String? = nil, sql: String? = nil,
        sqliteCode: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.property = property
        self.sql = sql
        self.sqliteCode = sqliteCode
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let entity { text += " [entity \(entity)\(property.map { ".\($0)" } ?? "")]" }
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }
}

extension DatabaseError {
    /// What a call of the runtime's own public API threw, as the `DatabaseError` it is: the
    /// public API is declared `throws` (a typed `throws(DatabaseError)` makes Swift 6.3's
    /// compiler crash on `catch let error as DatabaseError` in async top-level code) but throws
    /// nothing else.
    static func rethrown<T>(_ body: () throws -> T) throws(DatabaseError) -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(.misuse, "\(error)")
        }
    }
}
