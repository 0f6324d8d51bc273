import Foundation

extension PersistentStore {
    /// How to open a store Core Data wrote.
    public struct CoreDataOptions: Sendable {
        /// Open the file read-only: nothing is written to it (a save fails), and a store of
        /// another version of the model opens too, with what the model and the store share
        /// (`CoreDataStatus.mismatches` says what they do not).
        public var readOnly: Bool

        public init(readOnly: Bool = false) {
            self.readOnly = readOnly
        }
    }

    /// What opening a store Core Data wrote found.
    public struct CoreDataStatus: Sendable {
        /// The store's bookkeeping, entities and row counts, and its anomalies (rows of a foreign
        /// `Z_ENT`, which no fetch returns; `Z_MAX` below the largest `Z_PK`; stale `Z_NAME`s),
        /// each reported once here.
        public var report: CoreDataStoreReport
        /// Where the store's tables and columns differ from the model's (empty when the model
        /// version wrote the store); only a read-only store opens with any.
        public var mismatches: [String]
        public var isReadOnly: Bool
    }

    /// Opens a SQLite store that Core Data wrote (Apple's `Z` tables) with the generated classes of
    /// the model that wrote it: fetches, predicates, sorting, relationships, counts and saves work
    /// as on the runtime's own stores, and saves keep Core Data's bookkeeping (`Z_PRIMARYKEY`,
    /// `Z_ENT`, `Z_OPT`, `Z_FOK_` positions, both sides of one-to-ones), so the app can open the
    /// file again. The file's `-wal` and `-shm` are used in place; nothing is added to its schema.
    /// Whether the store can be opened is decided on a private copy of its file set, so a refused
    /// open leaves every file as it was; a read-only store is read from that copy (a snapshot of
    /// the store when it was opened) and never touches the original.
    ///
    /// ```swift
    /// let store = try PersistentStore(coreDataStoreAt: "Bookmarks.sqlite", model: BookmarksModel.model)
    /// for anomaly in store.coreData!.report.anomalies { print(anomaly) }
    /// ```
    /// - Throws: `.foreignDatabase` when the file is no Core Data store; `.migration` when another
    ///   version of the model wrote it (its tables or columns differ; open it `readOnly` to read
    ///   what they share); `.misuse` when the store keeps persistent history or a CloudKit mirror,
    ///   whose consumers would miss changes made here (read-only opens it); `.foreignDatabase`
    ///   when `Z_METADATA` holds no readable property list (read-only opens it, with the anomaly);
    ///   `.sqlite` when it cannot be read.
    public convenience init(
        coreDataStoreAt path: String, model: Model, options: CoreDataOptions = CoreDataOptions()
    ) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(.sqlite, "no Core Data store at \(path)")
        }
        // Everything is decided on a private copy of the file set: a refused open leaves every
        // file of the store as it was, and a read-only store is read there, never in place.
        let checked = try CoreDataStoreInspection.CopiedStore(of: path)
        var report = checked.report
        if !options.readOnly {
            try Self.checkWritable(path, report: report, tables: checked.tables)
        }
        let binding = try Self.bind(model, checked.connection, report: report, tables: checked.tables)
        if !binding.mismatches.isEmpty, !options.readOnly {
            throw DatabaseError(
                .migration,
                "\(path) was not written by this version of model \(model.name): "
                    + binding.mismatches.prefix(5).joined(separator: "; ")
                    + (binding.mismatches.count > 5 ? "; and \(binding.mismatches.count - 5) more" : ""))
        }
        report.anomalies += binding.staleNames + CoreDataStoreInspection.externalData(of: path)
        let connection: Connection
        if options.readOnly {
            // The copy is the store: it lives as long as the store does, and takes no writes.
            connection = checked.connection
            connection.keepAlive = checked.copy
        } else {
            // The file has the copy's schema: the binding made there holds for it.
            checked.connection.close()
            connection = try Connection(path: path, wal: false)
        }
        try connection.countViewRows()
        try connection.execute(binding.statements.joined(separator: ";\n") + ";")
        if options.readOnly { try connection.execute("PRAGMA query_only = ON") }
        connection.keyQueries = binding.keyQueries
        self.init(model: model, scheduler: ConnectionScheduler(single: connection), dialect: connection.dialect)
        coreData = CoreDataStatus(report: report, mismatches: binding.mismatches, isReadOnly: options.readOnly)
        if !options.readOnly {
            externalChanges = ExternalChangeWatcher(store: self, interval: OpenOptions().externalChangeInterval)
        }
    }

    /// The binding of `model` to the store `connection` reads, with every difference: the
    /// binder's, and the model cache's where it describes another version (it tells apart
    /// versions of one schema, such as a changed version hash modifier). Tables of persistent
    /// history and CloudKit mirroring are not differences.
    static func bind(
        _ model: Model, _ connection: Connection, report: CoreDataStoreReport, tables: [String]
    ) throws(DatabaseError) -> CoreDataBinding {
        let sameVersion =
            report.compiledModel != nil && report.compiledModel?.versionFingerprint == model.coreDataFingerprint
        var binding = try CoreDataBinding(model: model, connection: connection, trustsPrediction: sameVersion)
        if let compiled = report.compiledModel, let expected = model.coreDataFingerprint,
            compiled.versionFingerprint != expected
        {
            binding.mismatches.append(
                "the store's model cache describes another version of the model (fingerprint \(compiled.versionFingerprint), the generated code's \(expected))"
            )
        }
        binding.mismatches.removeAll { mismatch in
            tables.contains(where: Self.isHistoryOrMirror) && Self.isHistoryOrMirror(mismatch.tableNamed)
        }
        return binding
    }

    /// Refuses a writable open of a store Core Data itself would not open, or whose other readers
    /// would miss what is written here.
    private static func checkWritable(_ path: String, report: CoreDataStoreReport, tables: [String])
        throws(DatabaseError)
    {
        if let foreign = tables.first(where: Self.isHistoryOrMirror) {
            throw DatabaseError(
                .misuse,
                "\(path) keeps Core Data's persistent history or CloudKit mirror (\(foreign)); changes made here would be missed by them: open it read-only"
            )
        }
        if let metadata = report.anomalies.first(where: { $0.table == "Z_METADATA" }) {
            throw DatabaseError(
                .foreignDatabase,
                "\(path): Z_METADATA holds \(metadata.message == "no row" ? "no row" : "no readable property list"), so Core Data would not open the store either; it can be opened read-only"
            )
        }
    }

    /// Tables of Core Data's persistent history (`ATRANSACTION`, `ACHANGE`, …) or CloudKit
    /// mirroring (`ANSCK…`).
    static func isHistoryOrMirror(_ table: String) -> Bool {
        let name = table.uppercased()
        return ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"].contains(name) || name.hasPrefix("ANSCK")
    }
}

extension String {
    /// For a mismatch message naming a store table: that table (else the message).
    fileprivate var tableNamed: String {
        guard let range = range(of: "the store's table ") else { return self }
        return String(self[range.upperBound...].prefix { $0 != " " && $0 != "." })
    }
}
