import Foundation

/// A store of objects in one SQLite database (a file, or in memory).
///
/// On first open it creates the schema from the model's DDL (the same DDL `modelgen sql` writes);
/// afterwards it checks that the store's recorded schema hash matches the model. Thread-safe:
/// work on the database is serialized.
///
/// ```swift
/// let store = try PersistentStore(path: "grades.sqlite", model: GradeBookModel.description)
/// let context = store.newContext()
/// ```
public final class PersistentStore: @unchecked Sendable {
    /// What a store needs to know about its model; generated code provides it.
    public struct Model: Sendable {
        public var name: String
        /// The SQLite DDL that creates the schema (including `_modelgen_metadata`).
        public var sqliteDDL: String
        /// The schema hash recorded in `_modelgen_metadata` by that DDL.
        public var schemaHash: String
        public var entities: [EntityDescription]

        public init(name: String, sqliteDDL: String, schemaHash: String, entities: [EntityDescription]) {
            self.name = name
            self.sqliteDDL = sqliteDDL
            self.schemaHash = schemaHash
            self.entities = entities
        }
    }

    public let model: Model
    private let connection: Connection
    private let entitiesByID: [Int32: EntityDescription]
    /// Recent saves, for other contexts to merge.
    let changeLog = ChangeLog()
    /// Recursive: a save's conflict resolution loads relationships inside its transaction.
    private let lock = NSRecursiveLock()
    /// How many `withConnection` calls are running (on the thread holding the lock).
    private var depth = 0

    /// Opens the store at `path` (`":memory:"` for a private in-memory store), creating its schema
    /// when the database is new.
    /// - Throws: `DatabaseError` `.sqlite` when the file cannot be opened or the DDL fails;
    ///   `.misuse` when the store was made for another version of the model (migration is not
    ///   done here).
    public init(path: String, model: Model) throws(DatabaseError) {
        self.model = model
        entitiesByID = Dictionary(model.entities.map { ($0.entityID, $0) }, uniquingKeysWith: { first, _ in first })
        connection = try Connection(path: path)
        var existing = try Self.recordedHash(connection)
        if existing == nil {
            // Another process may be creating the schema too: look again under the write lock.
            do {
                existing = try connection.transaction {
                    if let recorded = try Self.recordedHash(connection) { return recorded }
                    try connection.execute(model.sqliteDDL)
                    return nil
                }
            } catch let error as DatabaseError {
                throw error
            } catch {
                throw DatabaseError(.sqlite, "\(error)")
            }
        }
        if let existing, existing != model.schemaHash {
            throw DatabaseError(
                .misuse, "the store's schema (\(existing.prefix(12))) is not the model's (\(model.schemaHash.prefix(12))); it needs a migration")
        }
    }

    private static func recordedHash(_ connection: Connection) throws(DatabaseError) -> String? {
        let exists = try connection.cachedStatement(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '_modelgen_metadata'")
        defer { exists.reset() }
        guard try exists.step() else { return nil }
        let hash = try connection.cachedStatement(#"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'schema_hash'"#)
        defer { hash.reset() }
        return try hash.step() ? hash.string(0) : ""
    }

    /// The entity whose rows have `_entity` = `entityID`.
    public func entity(_ entityID: Int32) -> EntityDescription? { entitiesByID[entityID] }

    /// A new context on this store, for use by one task at a time.
    public func newContext() -> ObjectContext { ObjectContext(store: self) }

    /// Runs `body` with the connection, serialized with every other use of the store.
    /// When the outermost use ends, statements that stopped early are reset, so no read
    /// transaction outlives it.
    func withConnection<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        lock.lock()
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { connection.resetActiveStatements() }
            lock.unlock()
        }
        return try body(connection)
    }
}
