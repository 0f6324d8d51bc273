import Foundation

extension PersistentStore {
    /// How far an adoption has got: rows copied of all the source's rows.
    public struct AdoptionProgress: Sendable {
        /// The table being copied (the runtime's name).
        public var table: String
        public var rowsCopied: Int
        public var rowsTotal: Int
    }

    /// What an adoption copied.
    public struct AdoptionReport: Sendable, Equatable {
        /// Rows of entity tables (objects).
        public var objects: Int
        /// Rows of join tables (many-to-many links).
        public var links: Int
    }

    /// Copies every object, value, link and ordered position of a store Core Data wrote into this
    /// store — a new, empty store of the same model version (`model` must be the version that
    /// wrote the Core Data store; `PersistentStore(coreDataStoreAt:)` checks it) — in one
    /// transaction. Objects keep their row numbers and entities; ordered relationships keep their
    /// order (positions renumbered from 0, as the runtime writes them). The Core Data store is
    /// read from a private copy and left as it was.
    ///
    /// To move a store of an older version into the current one, adopt it into a store of its
    /// own version, then open that store with the current version's generated code, whose
    /// migrations carry it forward (`modelgen import` does both).
    ///
    /// - Parameters:
    ///   - path: The Core Data store (with its `-wal` beside it where it has one).
    ///   - progress: Called after each table and every 10,000 rows.
    /// - Returns: How many objects and links were copied.
    /// - Throws: `.migration` when the Core Data store is not of this store's model version (the
    ///   differences named); `.misuse` when this store is not empty; `.validation` when a value
    ///   cannot be stored here (a NULL in an attribute this version requires, named with its row);
    ///   `.sqlite`/`.postgres` when either store cannot be read or written. Nothing is kept of a
    ///   failed adoption.
    public func adoptRows(
        ofCoreDataStoreAt path: String, progress: ((AdoptionProgress) -> Void)? = nil
    ) throws -> AdoptionReport {
        let source = try PersistentStore(coreDataStoreAt: path, model: model, options: .init(readOnly: true))
        if let mismatches = source.coreData?.mismatches, !mismatches.isEmpty {
            throw DatabaseError(
                .migration,
                "\(path) was not written by version \(model.name) of the model: "
                    + mismatches.prefix(5).joined(separator: "; "))
        }
        let tables = AdoptionTable.all(of: model)
        return try DatabaseError.rethrown {
            try source.withReadConnection { reader throws(DatabaseError) in
                try withConnection { writer throws(DatabaseError) in
                    try AdoptionCopy(reader: reader, writer: writer, tables: tables, progress: progress).run()
                }
            }
        }
    }
}

/// One table of the runtime's layout to copy: its columns, each with the attribute type it holds
/// (nil for keys, entity numbers and positions), and the positions to renumber.
struct AdoptionTable {
    var name: String
    var columns: [(name: String, type: ValueType?)]
    /// Position column → the column whose value owns the list it orders.
    var positions: [String: String]
    var isJoin: Bool

    static func all(of model: PersistentStore.Model) -> [AdoptionTable] {
        var tables: [AdoptionTable] = []
        var index: [String: Int] = [:]
        for entity in model.entities {
            if index[entity.table] == nil {
                index[entity.table] = tables.count
                tables.append(
                    AdoptionTable(
                        name: entity.table, columns: [("_pk", nil), ("_entity", nil), ("_version", nil)],
                        positions: [:], isJoin: false))
            }
            let at = index[entity.table]!
            for column in entity.columns where !tables[at].columns.contains(where: { $0.name == column }) {
                // The attribute may be a sub-entity's: its type is found among every entity of the table.
                let attribute = model.entities.lazy.filter { $0.table == entity.table }
                    .compactMap { $0.attributes.first { $0.column == column } }.first
                tables[at].columns.append((column, attribute?.type))
            }
        }
        for entity in model.entities {
            for relationship in entity.relationships {
                switch relationship.storage {
                case .inverseForeignKey(let key, let position?):
                    guard
                        let destination = model.entities.first(where: {
                            $0.entityID == relationship.destinationEntityID
                        }),
                        let at = index[destination.table]
                    else { continue }
                    tables[at].positions[position] = key
                case .joinTable(let join, let owner, let member, let position):
                    if index[join] == nil {
                        index[join] = tables.count
                        let (first, second) = owner < member ? (owner, member) : (member, owner)
                        tables.append(
                            AdoptionTable(
                                name: join, columns: [(first, nil), (second, nil)], positions: [:], isJoin: true))
                    }
                    if let position {
                        let at = index[join]!
                        if !tables[at].columns.contains(where: { $0.name == position }) {
                            tables[at].columns.append((position, nil))
                        }
                        tables[at].positions[position] = owner
                    }
                default: continue
                }
            }
        }
        return tables
    }

    /// The SELECT of the table's rows from the Core Data store's views, positions renumbered
    /// from 0 within each owner's list.
    var select: String {
        let list = columns.map { column -> String in
            let quoted = EntityDescription.quoted(column.name)
            guard let owner = positions[column.name] else { return quoted }
            let key = EntityDescription.quoted(owner)
            let tie =
                isJoin
                ? EntityDescription.quoted(columns.first { $0.name != owner && positions[$0.name] == nil }!.name)
                : "\"_pk\""
            return
                "CASE WHEN \(quoted) IS NULL THEN NULL ELSE row_number() OVER (PARTITION BY \(key), \(quoted) IS NULL ORDER BY \(quoted), \(tie)) - 1 END"
        }
        return "SELECT \(list.joined(separator: ", ")) FROM \(EntityDescription.quoted(name))"
    }

    var insert: String {
        "INSERT INTO \(EntityDescription.quoted(name)) (\(columns.map { EntityDescription.quoted($0.name) }.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }
}

/// The copy itself, in one transaction of the target.
private struct AdoptionCopy {
    let reader: Connection
    let writer: Connection
    let tables: [AdoptionTable]
    let progress: ((PersistentStore.AdoptionProgress) -> Void)?

    func run() throws(DatabaseError) -> PersistentStore.AdoptionReport {
        for table in tables {
            let statement = try writer.makeStatement("SELECT count(*) FROM \(EntityDescription.quoted(table.name))")
            if try statement.step(), statement.int64(0) > 0 {
                throw DatabaseError(.misuse, "the store to adopt into is not empty (\(table.name) has rows)")
            }
        }
        var total = 0
        for table in tables {
            let statement = try reader.makeStatement("SELECT count(*) FROM \(EntityDescription.quoted(table.name))")
            if try statement.step() { total += Int(statement.int64(0)) }
        }
        var report = PersistentStore.AdoptionReport(objects: 0, links: 0)
        try DatabaseError.rethrown {
            try writer.transaction {
                var copied = 0
                for table in tables {
                    let count = try copy(table, copied: copied, total: total)
                    copied += count
                    if table.isJoin { report.links += count } else { report.objects += count }
                    progress?(.init(table: table.name, rowsCopied: copied, rowsTotal: total))
                }
            }
        }
        return report
    }

    private func copy(_ table: AdoptionTable, copied: Int, total: Int) throws(DatabaseError) -> Int {
        let rows = try reader.makeStatement(table.select)
        let insert = try writer.makeStatement(table.insert)
        var count = 0
        while try rows.step() {
            for (offset, column) in table.columns.enumerated() {
                let index = Int32(offset)
                if rows.isNull(index) {
                    insert.bindNull(index + 1)
                } else if let type = column.type {
                    ManagedObject.bind(ManagedObject.read(type, rows, index), type, to: insert, at: index + 1)
                } else {
                    insert.bind(rows.int64(index), at: index + 1)
                }
            }
            do {
                try insert.run()
            } catch {
                // A constraint of this version's schema (NOT NULL, CHECK) the stored value breaks.
                let breaksConstraint = error.message.lowercased().contains("constraint")
                throw DatabaseError(
                    breaksConstraint ? .validation : error.code,
                    "row \(table.isJoin ? "" : "\(rows.int64(0)) ")of \(table.name) cannot be stored in this version: \(error.message)"
                )
            }
            insert.reset()
            count += 1
            if (copied + count) % 10_000 == 0 {
                progress?(.init(table: table.name, rowsCopied: copied + count, rowsTotal: total))
            }
        }
        return count
    }
}
