extension ObjectContext {
    // MARK: - Prefetching (one query per relationship)

    /// Reads the relationships `keyPaths` name (`grades`, or through relationships:
    /// `grades.quiz`) for all `objects` of `entity` at once: one query per relationship of a key
    /// path, whatever the number of objects. Relationships an object has read already, and
    /// those of unsaved objects, are left as they are.
    /// - Throws: `.unknownKey` for a name that is no relationship of the entity reached.
    func prefetch(_ keyPaths: [String], of objects: [ManagedObject], entity: EntityDescription)
        throws(DatabaseError)
    {
        // The first step of each key path, in order, with what follows it.
        var steps: [(name: String, rest: [String])] = []
        for path in keyPaths {
            let parts = path.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if let index = steps.firstIndex(where: { $0.name == name }) {
                if parts.count > 1 { steps[index].rest.append(String(parts[1])) }
            } else {
                steps.append((name, parts.count > 1 ? [String(parts[1])] : []))
            }
        }
        for (name, rest) in steps {
            guard let index = entity.relationshipIndex(of: name) else {
                throw DatabaseError(
                    .unknownKey,
                    name.isEmpty
                        ? "a key path to prefetch is no relationship of \(entity.name)"
                        : "\(entity.name) has no relationship '\(name)' to prefetch",
                    entity: entity.name, property: name)
            }
            let relationship = entity.relationships[index]
            try prefetch(index, relationship, of: objects)
            guard !rest.isEmpty, let destination = store.entity(relationship.destinationEntityID) else { continue }
            // Every object has read the relationship now: its destinations cost no query.
            var destinations: [ManagedObject] = []
            var seen = Set<ObjectIdentifier>()
            for object in objects {
                let reached =
                    relationship.isToMany
                    ? try object.loadedToMany(index).objects : [try object.loadedToOne(index)].compactMap { $0 }
                for next in reached where seen.insert(ObjectIdentifier(next)).inserted { destinations.append(next) }
            }
            if !destinations.isEmpty { try prefetch(rest, of: destinations, entity: destination) }
        }
    }

    /// Reads relationship `index` of each of `objects` that has not read it, in one query.
    private func prefetch(_ index: Int, _ relationship: RelationshipDescription, of objects: [ManagedObject])
        throws(DatabaseError)
    {
        guard let destination = store.entity(relationship.destinationEntityID) else { return }
        // Saved objects that have not read the relationship; for a to-one held in the row, the
        // keys it holds.
        var waiting: [ManagedObject] = []
        var heldKeys: [Int64] = []
        for object in objects where !object.objectID.isTemporary {
            object.prepareLinks()
            switch object.links[index] {
            case .unloaded: waiting.append(object)
            case .key(let row?):
                waiting.append(object)
                heldKeys.append(row)
            case .key(nil), .toOne, .toMany: continue
            }
        }
        guard !waiting.isEmpty else { return }
        let dialect = store.dialect
        let table = EntityDescription.quoted(destination.table)
        // The owner's key comes after the destination's columns.
        let keyColumn = Int32(3 + destination.columns.count)
        switch relationship.storage {
        case .foreignKey:
            guard !relationship.isToMany else { return }
            // The rows of the keys not read yet; an object whose row did not bring its key reads it.
            let keys = Array(Set(heldKeys)).sorted()
            var found: [Int64: ManagedObject] = [:]
            if !keys.isEmpty {
                let sql =
                    "SELECT \(destination.selectColumnsSQL) FROM \(table) WHERE \(dialect.isOneOfKeys("\"_pk\"")) ORDER BY \"_pk\""
                for object in try materializeRows(sql, parameters: [dialect.keyList(keys)], as: destination) {
                    found[object.objectID.rowID] = object
                }
            }
            for object in waiting {
                switch object.links[index] {
                case .key(let row?):
                    // A key whose row is gone (deleted) reads as it would alone.
                    if let destination = found[row] {
                        object.links[index] = .toOne(destination)
                    } else {
                        object.links[index] = .toOne(try self.object(row: row, of: relationship))
                    }
                default: _ = try object.loadedToOne(index)
                }
            }
        case .inverseForeignKey(let column, let position):
            let key = EntityDescription.quoted(column)
            let order = relationship.isToMany ? position.map { EntityDescription.quoted($0) + ", " } ?? "" : ""
            let sql =
                "SELECT \(destination.selectColumnsSQL), \(key) FROM \(table) WHERE \(dialect.isOneOfKeys(key)) ORDER BY \(key), \(order)\"_pk\""
            try assign(sql, keyColumn: keyColumn, index, relationship, destination, waiting)
        case .joinTable(let join, let source, let target, let position):
            let owner = "j." + EntityDescription.quoted(source)
            let order = relationship.isToMany ? position.map { "j." + EntityDescription.quoted($0) + ", " } ?? "" : ""
            let sql =
                "SELECT \(prefixed(destination)), \(owner) FROM \(table) AS d JOIN \(EntityDescription.quoted(join)) AS j ON j.\(EntityDescription.quoted(target)) = d.\"_pk\" WHERE \(dialect.isOneOfKeys(owner)) ORDER BY \(owner), \(order)d.\"_pk\""
            try assign(sql, keyColumn: keyColumn, index, relationship, destination, waiting)
        }
    }

    /// Runs `sql` (the destination's columns, then the owner's `_pk` at `keyColumn`, ordered by
    /// owner) for the keys of `owners`, and gives each owner its destinations: the first for a
    /// to-one, all of them in order for a to-many.
    private func assign(
        _ sql: String, keyColumn: Int32, _ index: Int, _ relationship: RelationshipDescription,
        _ destination: EntityDescription, _ owners: [ManagedObject]
    ) throws(DatabaseError) {
        // The owners are registered, so rows are looked up in the map (a destination linked to
        // several owners is one object); a context whose map is empty has no owners to give to.
        guard !registered.isEmpty else { return }
        let keys = owners.map(\.objectID.rowID)
        var ownerAt = [Int64: Int](minimumCapacity: owners.count)
        for (position, key) in keys.enumerated() { ownerAt[key] = position }
        // The destinations in one array, in the owners' groups, and where each owner's group
        // starts and ends: one array per owner at the end, not one grown row by row.
        var destinations: [ManagedObject] = []
        var groups = [Range<Int>?](repeating: nil, count: owners.count)
        try store.withReadConnection { connection throws(DatabaseError) in
            let statement = try connection.cachedStatement(sql)
            store.dialect.keyList(keys).bind(to: statement, at: 1)
            var rows = FetchCursor(
                self, destination, nil, ownRowsOnly: false, statement, mayRepeatRows: relationship.isManyToMany)
            // Rows come grouped by owner: its place is looked up once per group.
            var currentKey: Int64?
            var current = -1
            var start = 0
            func close() {
                if current >= 0 { groups[current] = start..<destinations.count }
            }
            while let object = try rows.next() {
                let key = statement.int64(keyColumn)
                if key != currentKey {
                    close()
                    currentKey = key
                    current = ownerAt[key] ?? -1
                    start = destinations.count
                }
                destinations.append(object)
            }
            close()
            statement.resetForRebinding()
            if !rows.checksRegistered { registered.register(fetched: destinations, ascending: rows.ascending) }
        }
        for (position, owner) in owners.enumerated() {
            let group = groups[position].map { destinations[$0] } ?? []
            owner.links[index] =
                relationship.isToMany ? .toMany(LinkList(distinct: Array(group))) : .toOne(group.first)
        }
    }
}
