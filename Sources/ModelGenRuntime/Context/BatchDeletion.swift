/// The rows a batch delete removes and what it does to the rows around them, worked out and
/// written set by set inside the delete's transaction: the deletion rules as a save applies them
/// to deleted objects, one statement per relationship and step instead of one per object.
struct BatchDeletion {
    private let store: PersistentStore
    private let connection: Connection
    private var dialect: StoreDialect { store.dialect }
    /// The rows to delete: by table, each row's `_pk` and `_entity`.
    private(set) var rows: [String: [Int64: Int32]] = [:]
    /// Rows that stay whose keys to deleted rows were set to NULL.
    private(set) var updated: [ObjectID] = []

    init(store: PersistentStore, connection: Connection) {
        self.store = store
        self.connection = connection
    }

    var count: Int { rows.values.reduce(0) { $0 + $1.count } }

    var deleted: [ObjectID] {
        rows.keys.sorted().flatMap { table in
            rows[table, default: [:]].sorted { $0.key < $1.key }.map { ObjectID(entityID: $0.value, rowID: $0.key) }
        }
    }

    private func isDeleted(_ id: ObjectID, in table: String) -> Bool { rows[table]?[id.rowID] != nil }

    /// Adds `ids` (rows of `table`) and, through Cascade relationships, every row they take with
    /// them.
    mutating func add(_ ids: [ObjectID], table: String) throws(DatabaseError) {
        var frontier: [String: [ObjectID]] = [:]
        for id in ids where rows[table, default: [:]].updateValue(id.entityID, forKey: id.rowID) == nil {
            frontier[table, default: []].append(id)
        }
        while !frontier.isEmpty {
            var next: [String: [ObjectID]] = [:]
            for (table, ids) in frontier.sorted(by: { $0.key < $1.key }) {
                for (entity, keys) in try byEntity(ids) {
                    for relationship in entity.relationships where relationship.deletionRule == .cascade {
                        guard let destination = relationship.destination?.entityDescription else { continue }
                        for id in try destinations(of: keys, relationship, from: table)
                        where rows[destination.table, default: [:]].updateValue(id.entityID, forKey: id.rowID) == nil {
                            next[destination.table, default: []].append(id)
                        }
                    }
                }
            }
            frontier = next
        }
    }

    /// Refuses the delete where a Deny relationship of a deleted row leads to a row that stays,
    /// or where Nullify would empty a required to-one of a row that stays (a save refuses both).
    func check(_ groups: [Group]) throws(DatabaseError) {
        for (table, entities) in groups {
            for (entity, keys) in entities {
                for relationship in entity.relationships {
                    guard let destination = relationship.destination?.entityDescription else { continue }
                    let requiredInverse = relationship.inverse.map {
                        let inverse = destination.relationships[$0]
                        return !inverse.isToMany && !inverse.isOptional
                    }
                    guard
                        relationship.deletionRule == .deny
                            || (relationship.deletionRule == .nullify && requiredInverse == true)
                    else { continue }
                    let live = try destinations(of: keys, relationship, from: table).filter {
                        !isDeleted($0, in: destination.table)
                    }
                    guard let first = live.first else { continue }
                    if relationship.deletionRule == .deny {
                        throw DatabaseError(
                            .deny,
                            "the batch delete of \(entity.name) objects is refused: their relationship '\(relationship.name)' (Deny) still leads to \(live.count) object\(live.count == 1 ? "" : "s") that stay (\(first))",
                            entity: entity.name, property: relationship.name)
                    }
                    let inverse = destination.relationships[relationship.inverse!]
                    throw DatabaseError(
                        .validation,
                        "the batch delete of \(entity.name) objects is refused: it would leave \(destination.name).\(inverse.name), which is required, empty for \(live.count) object\(live.count == 1 ? "" : "s") (\(first))",
                        entity: destination.name, property: inverse.name)
                }
            }
        }
    }

    /// Writes the delete: the deleted rows' own keys and join rows released (as a save releases
    /// them: a deleted row's key then neither holds back another deleted row through a Deny key's
    /// RESTRICT nor breaks a NOT NULL column), keys of rows that stay set to NULL (Nullify; their
    /// `_version` moves), then the rows deleted.
    mutating func write(_ groups: [Group]) throws(DatabaseError) {
        let quoted = EntityDescription.quoted
        for (table, entities) in groups {
            for (entity, keys) in entities {
                let list = dialect.keyList(keys)
                let columns = entity.relationships.compactMap(\.foreignKeyColumn)
                if !columns.isEmpty {
                    try run(
                        "UPDATE \(quoted(table)) SET "
                            + columns.map { "\(quoted($0)) = -\"_pk\"" }.joined(separator: ", ") + " WHERE "
                            + dialect.isOneOfKeys("\"_pk\""), list)
                }
                for case .joinTable(let join, let source, _, _) in entity.relationships.map(\.storage) {
                    try run("DELETE FROM \(quoted(join)) WHERE " + dialect.isOneOfKeys(quoted(source)), list)
                }
            }
        }
        for (_, entities) in groups {
            for (entity, keys) in entities {
                for relationship in entity.relationships where relationship.deletionRule == .nullify {
                    guard case .inverseForeignKey(let column, let position) = relationship.storage,
                        let destination = relationship.destination?.entityDescription
                    else { continue }
                    let list = dialect.keyList(keys)
                    let condition = dialect.isOneOfKeys(quoted(column))
                    updated += try select(
                        "SELECT \"_pk\", \"_entity\" FROM \(quoted(destination.table)) WHERE \(condition)", list)
                    let cleared = ([column] + (position.map { [$0] } ?? [])).map { "\(quoted($0)) = NULL" }
                    try run(
                        "UPDATE \(quoted(destination.table)) SET \(cleared.joined(separator: ", ")), \"_version\" = \"_version\" + 1 WHERE \(condition)",
                        list)
                }
            }
        }
        for (table, members) in rows.sorted(by: { $0.key < $1.key }) {
            try run(
                "DELETE FROM \(quoted(table)) WHERE " + dialect.isOneOfKeys("\"_pk\""),
                dialect.keyList(members.keys.sorted()))
        }
    }

    // MARK: - Statements

    /// The rows to delete of one table, by entity.
    typealias Group = (table: String, entities: [(EntityDescription, [Int64])])

    /// The rows to delete, by table (in name order) and entity: what `check` and `write` take.
    func groups() throws(DatabaseError) -> [Group] {
        try rows.sorted(by: { $0.key < $1.key }).map { table, members throws(DatabaseError) in
            (table, try byEntity(members.map { ObjectID(entityID: $0.value, rowID: $0.key) }))
        }
    }

    /// `ids` by entity (in entity order), each with its rows' keys.
    private func byEntity(_ ids: [ObjectID]) throws(DatabaseError) -> [(EntityDescription, [Int64])] {
        var keys: [Int32: [Int64]] = [:]
        for id in ids { keys[id.entityID, default: []].append(id.rowID) }
        var result: [(EntityDescription, [Int64])] = []
        for (entityID, members) in keys.sorted(by: { $0.key < $1.key }) {
            guard let entity = store.entity(entityID) else {
                throw DatabaseError(
                    .misuse, "row \(members[0]) has entity number \(entityID), which the model does not know")
            }
            result.append((entity, members.sorted()))
        }
        return result
    }

    /// The rows `relationship` leads to from the rows `keys` of `table`.
    private func destinations(of keys: [Int64], _ relationship: RelationshipDescription, from table: String)
        throws(DatabaseError) -> [ObjectID]
    {
        guard let destination = relationship.destination?.entityDescription else { return [] }
        let quoted = EntityDescription.quoted
        let rows = "SELECT \"_pk\", \"_entity\" FROM \(quoted(destination.table)) WHERE "
        let list = dialect.keyList(keys)
        switch relationship.storage {
        case .foreignKey(let column):
            let held = "SELECT \(quoted(column)) FROM \(quoted(table)) WHERE " + dialect.isOneOfKeys("\"_pk\"")
            return try select(rows + "\"_pk\" IN (\(held))", list)
        case .inverseForeignKey(let column, _):
            return try select(rows + dialect.isOneOfKeys(quoted(column)), list)
        case .joinTable(let join, let source, let target, _):
            let linked = "SELECT \(quoted(target)) FROM \(quoted(join)) WHERE " + dialect.isOneOfKeys(quoted(source))
            return try select(rows + "\"_pk\" IN (\(linked))", list)
        }
    }

    private func select(_ sql: String, _ argument: SQLArgument) throws(DatabaseError) -> [ObjectID] {
        let statement = try connection.cachedStatement(sql)
        defer { statement.resetForRebinding() }
        argument.bind(to: statement, at: 1)
        var ids: [ObjectID] = []
        while try statement.step() { ids.append(statement.objectID(key: 0, entity: 1)) }
        return ids
    }

    private func run(_ sql: String, _ argument: SQLArgument) throws(DatabaseError) {
        let statement = try connection.cachedStatement(sql)
        defer { statement.resetForRebinding() }
        argument.bind(to: statement, at: 1)
        try statement.run()
    }
}
