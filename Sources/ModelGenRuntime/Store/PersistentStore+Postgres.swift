import Foundation

extension PersistentStore {
    /// Opens the store in a PostgreSQL database, creating its schema there when the database (its
    /// current schema, as `search_path` names it) has no tables.
    ///
    /// ```swift
    /// let store = try PersistentStore(postgres: "postgresql://app@db.internal/grades", model: GradeBookModel.model,
    ///                                 options: .init(connections: 8))
    /// ```
    /// - Parameters:
    ///   - connectionString: a libpq connection string (`host=/run/postgresql dbname=app`) or URL
    ///     (`postgresql://app@db.internal:5432/app`).
    ///   - model: the generated model (`<Model>Model.model`).
    ///   - options: migration, connection-pool and change-watching settings.
    /// - Throws: `DatabaseError` `.postgres` or `.connectionLost` when the server cannot be reached
    ///   or the DDL fails; `.foreignDatabase` when the schema holds tables of another program;
    ///   `.migration` as on SQLite; `.misuse` when the generated code carries no PostgreSQL DDL.
    public convenience init(postgres connectionString: String, model: Model, options: OpenOptions = OpenOptions())
        throws
    {
        guard let ddl = model.postgresDDL else {
            throw DatabaseError(
                .misuse,
                "the code generated for \(model.name) carries no PostgreSQL DDL: generate it again with this modelgen")
        }
        let connection = try Connection(postgres: connectionString)
        let existing: String?
        do {
            existing = try connection.transaction {
                // One opener at a time creates the schema (the lock ends with the transaction).
                try connection.execute("SELECT pg_advisory_xact_lock(\(Self.schemaLockKey))")
                if let recorded = try Self.recordedHash(connection) { return recorded }
                try Self.checkEmptyPostgres(connection)
                try connection.execute(ddl)
                return nil
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(.postgres, "\(error)")
        }
        if let existing, existing != model.schemaHash {
            try Self.migrate(
                connection, from: existing, to: model, migrations: model.postgresMigrations,
                allowingDataLoss: options.allowsDataLoss)
        }
        if existing != nil { try Self.advanceKeySequences(connection, model) }
        let scheduler = ConnectionScheduler.postgres(
            first: connection, connectionString: connectionString, connections: options.connections)
        self.init(model: model, scheduler: scheduler, dialect: connection.dialect)
        getterReconnectWait = options.getterReconnectWait
        changeFeed = try PostgresChangeFeed(connection: connection, connectionString: connectionString, log: changeLog)
    }

    /// Moves each table's `_pk` sequence past the table's largest `_pk` where rows were written
    /// with keys of their own (imported, copied by a migration), so new rows do not collide with
    /// them. Only a sequence behind its table is moved, under the schema lock.
    private static func advanceKeySequences(_ connection: Connection, _ model: Model) throws(DatabaseError) {
        var seen: Set<String> = []
        do {
            try connection.transaction {
                try connection.execute("SELECT pg_advisory_xact_lock(\(schemaLockKey))")
                for entity in model.entities where seen.insert(entity.table).inserted {
                    let table = EntityDescription.quoted(entity.table)
                    let statement = try connection.cachedStatement(
                        "SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence(?, '_pk')::regclass AS s) AS q, "
                            + "(SELECT max(\"_pk\") AS m FROM \(table)) AS r WHERE s IS NOT NULL AND m > coalesce(pg_sequence_last_value(s), 0)"
                    )
                    statement.bind(table, at: 1)
                    try statement.run()
                    statement.reset()
                }
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(.postgres, "\(error)")
        }
    }

    /// The advisory lock key under which a PostgreSQL schema is created or migrated.
    private static let schemaLockKey: Int64 = 0x6d6f_6465_6c67_656e

    /// Refuses a schema with tables but no modelgen metadata (another program's data).
    private static func checkEmptyPostgres(_ connection: Connection) throws(DatabaseError) {
        let count = try connection.cachedStatement(
            "SELECT count(*), current_schema() FROM pg_catalog.pg_tables WHERE schemaname = current_schema()")
        defer { count.reset() }
        guard try count.step(), count.int64(0) > 0 else { return }
        throw DatabaseError(
            .foreignDatabase,
            "schema '\(count.string(1))' has tables but no modelgen metadata; it was not changed (choose another schema with search_path)"
        )
    }
}
