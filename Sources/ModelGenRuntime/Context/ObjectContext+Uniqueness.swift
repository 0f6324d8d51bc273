import Foundation

/// How a save resolves a conflict (Core Data's merge policies): two objects with the same unique
/// values, or a row another context or process changed since this context read it (optimistic
/// locking on `_version`).
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with `.uniqueness` or `.conflict`; nothing is stored.
    case error
    /// Core Data's `mergeByPropertyObjectTrump`: objects with the same unique values become one
    /// (the first inserted, taking the others' relationships and changed values); if the store
    /// has a row with those values, the object takes it over and its in-memory values win. A row
    /// changed elsewhere gets the object's changed properties; its other values are kept.
    case objectTrump
    /// Like `.objectTrump`, but where the store has the row its stored values win; an object whose
    /// row changed elsewhere drops its attribute and to-one changes and takes the row's values.
    case storeTrump
}

extension ObjectContext {
    /// The values of one uniqueness constraint of an object, keyed so that objects of one table
    /// with equal values collide: attribute values, and the rows (or, unsaved, the temporary
    /// identities) of to-one destinations.
    private struct UniqueKey: Hashable {
        var table: String
        var columns: [String]
        var values: [StoredValue]
        /// The attributes' types (how the values are bound); `nil` for a to-one's key.
        var types: [ValueType?]
        /// The properties' names and values, for messages.
        var names: [String]
        var shown: [String]

        /// Whether a stored row can have these values: not when a destination is unsaved.
        var canBeStored: Bool {
            zip(values, types).allSatisfy { value, type in
                if type == nil, case .integer(let row) = value { return row > 0 }
                return true
            }
        }
    }

    private func uniqueKeys(_ object: ManagedObject) throws(DatabaseError) -> [UniqueKey] {
        let entity = type(of: object).entityDescription
        var keys: [UniqueKey] = []
        constraints: for constraint in entity.uniquenessConstraints {
            var key = UniqueKey(table: entity.table, columns: [], values: [], types: [], names: [], shown: [])
            for slot in constraint.attributes {
                let attribute = entity.attributes[slot]
                // A NULL never collides (as in SQL).
                guard let value = StoredValue.from(object.storedForm(atSlot: slot, entity), for: attribute.type),
                    value != .null
                else { continue constraints }
                key.columns.append(attribute.column)
                key.values.append(value)
                key.types.append(attribute.type)
                key.names.append(attribute.name)
                key.shown.append(Self.describe(value))
            }
            for index in constraint.relationships {
                let relationship = entity.relationships[index]
                guard let column = relationship.foreignKeyColumn, let destination = try object.loadedToOne(index)
                else { continue constraints }
                key.columns.append(column)
                key.values.append(.integer(destination.objectID.rowID))
                key.types.append(nil)
                key.names.append(relationship.name)
                let name = type(of: destination).entityDescription.name
                key.shown.append(
                    destination.objectID.isTemporary ? "an unsaved \(name)" : "\(name) \(destination.objectID.rowID)")
            }
            keys.append(key)
        }
        return keys
    }

    private func conflict(_ object: ManagedObject, _ key: UniqueKey) -> DatabaseError {
        let entity = type(of: object).entityDescription
        return DatabaseError(
            .uniqueness,
            "\(entity.name) with \(key.names.joined(separator: ", ")) = \(key.shown.joined(separator: ", ")) already exists",
            entity: entity.name, property: key.names.first)
    }

    private static func describe(_ value: StoredValue) -> String {
        switch value {
        case .null: "nil"
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .text(let text): "\"\(text)\""
        case .blob(let bytes): "<\(bytes.count) bytes>"
        case .decimal(let number): "\(number)"
        }
    }

    /// Resolves objects of this context that share unique values: `.error` throws before anything
    /// changes; the merge policies fold later objects into the first.
    func resolveUniquenessInMemory() throws(DatabaseError) {
        let candidates = (insertedObjects + updatedObjects).filter {
            !$0.isListedAsDeleted && !type(of: $0).entityDescription.uniquenessConstraints.isEmpty
        }
        guard !candidates.isEmpty else { return }
        var owners: [UniqueKey: ManagedObject] = [:]
        var duplicates: [(ManagedObject, ManagedObject)] = []
        for object in candidates {
            for key in try uniqueKeys(object) {
                if let owner = owners[key], owner !== object {
                    guard mergePolicy != .error, object.objectID.isTemporary else { throw conflict(object, key) }
                    duplicates.append((object, owner))
                    break
                }
                owners[key] = object
            }
        }
        for (duplicate, owner) in duplicates where duplicate.context === self {
            try merge(duplicate, into: owner, valuesWin: true)
        }
    }

    /// Moves `source`'s relationships (and, when `valuesWin`, its set attribute values) to
    /// `target`, then takes `source` out of the context.
    private func merge(_ source: ManagedObject, into target: ManagedObject, valuesWin: Bool) throws(DatabaseError) {
        let entity = type(of: source).entityDescription
        let targetEntity = type(of: target).entityDescription
        if valuesWin {
            for slot in entity.attributes.indices where slot < targetEntity.attributes.count {
                guard source.objectID.isTemporary || source.changedMask & EntityDescription.bit(slot) != 0 else {
                    continue
                }
                try target.setValue(source.value(atSlot: slot), atSlot: slot)
            }
        }
        for (index, relationship) in entity.relationships.enumerated() where index < targetEntity.relationships.count {
            if relationship.isToMany {
                for destination in try source.loadedToMany(index).objects { try target.link(destination, index) }
            } else if let destination = try source.loadedToOne(index) {
                if try target.loadedToOne(index) == nil {
                    try target.assignToOne(destination, index)
                } else {
                    try source.assignToOne(nil, index)
                }
            }
        }
        if source.objectID.isTemporary {
            try delete(source, rules: false)
        } else {
            source.isListedAsDeleted = true
            deletedObjects.append(source)
        }
    }

    /// Resolves inserted objects whose unique values a stored row already has (inside the save's
    /// transaction, so no other writer can interfere).
    func resolveUniquenessAgainstStore(_ connection: Connection) throws(DatabaseError) {
        let candidates = insertedObjects.filter { !type(of: $0).entityDescription.uniquenessConstraints.isEmpty }
        for object in candidates where object.context === self {
            for key in try uniqueKeys(object) where key.canBeStored {
                let sql =
                    "SELECT \"_pk\", \"_entity\", \"_version\" FROM \(EntityDescription.quoted(key.table)) WHERE "
                    + key.columns.map { "\(EntityDescription.quoted($0)) = ?" }.joined(separator: " AND ")
                let statement = try connection.cachedStatement(sql)
                for (index, value) in key.values.enumerated() {
                    value.bind(to: statement, at: Int32(index + 1), as: key.types[index])
                }
                // A row this save deletes, or whose object now holds other values, is no match.
                var found: (ObjectID, Int64)?
                while found == nil, try statement.step() {
                    let id = ObjectID(
                        entityID: Int32(truncatingIfNeeded: statement.int64(1)), rowID: statement.int64(0))
                    if let existing = registered[id] {
                        if existing.isListedAsDeleted { continue }
                        if try !uniqueKeys(existing).contains(key) { continue }
                    }
                    found = (id, statement.int64(2))
                }
                statement.reset()
                guard let (id, version) = found else { continue }
                guard mergePolicy != .error else { throw conflict(object, key) }
                try takeOver(id, version: version, by: object, connection)
                break
            }
        }
    }

    /// Makes the unsaved `object` the object of the stored row `id` (the row's object in this
    /// context, if there is one, absorbs it instead).
    private func takeOver(_ id: ObjectID, version: Int64, by object: ManagedObject, _ connection: Connection)
        throws(DatabaseError)
    {
        // Links recorded for join tables keep pointing at `object`, which now has the row's `_pk`.
        if let existing = registered[id], !existing.isListedAsDeleted {
            try merge(object, into: existing, valuesWin: mergePolicy == .objectTrump)
            return
        }
        insertedObjects.removeAll { $0 === object }
        let pending = object.links
        object.objectID = id
        object.version = version
        registered[id] = object
        let entity = type(of: object).entityDescription
        if mergePolicy == .storeTrump {
            let statement = try connection.cachedStatement(
                "SELECT \(entity.selectColumnsSQL) FROM \(EntityDescription.quoted(entity.table)) WHERE \"_pk\" = ?")
            statement.bind(id.rowID, at: 1)
            if try statement.step() {
                object.read(from: statement, startingAt: 3)
                if entity.hasConversions { try statement.checkConversions(entity, row: id.rowID) }
                if entity.isObserved { object.modelGenValuesDidChange() }
            }
            statement.reset()
            object.changedMask = 0
        } else {
            object.changedMask = entity.attributes.indices.reduce(0) { $0 | EntityDescription.bit($1) }
        }
        // The row may already have links the new object does not know: load them and add the
        // new object's own.
        object.links = []
        object.prepareLinks()
        object.relationshipMask = 0
        for (index, relationship) in entity.relationships.enumerated() {
            switch pending.isEmpty ? .unloaded : pending[index] {
            case .toMany(let list):
                // The store's lock is recursive: this runs inside the save's transaction.
                let stored = LinkList(try loadToMany(of: object, index))
                for member in list.objects { stored.append(member) }
                object.links[index] = .toMany(stored)
                if relationship.isOrdered { object.relationshipMask |= EntityDescription.bit(index) }
            case .toOne(let destination):
                object.links[index] = .toOne(destination)
                if relationship.foreignKeyColumn != nil { object.relationshipMask |= EntityDescription.bit(index) }
            default:
                break
            }
        }
        object.isListedAsUpdated = true
        updatedObjects.append(object)
    }

    /// A unique index's refusal (an UPDATE, or a row another writer added) as `.uniqueness`,
    /// naming the entity whose constraint it is and its attributes, not SQLite's table and columns.
    func uniquenessError(_ error: DatabaseError) -> DatabaseError {
        let table: String?
        let columns: [String]
        if let detail = error.detail, error.sqlState != nil {
            // PostgreSQL names the table, and its detail the columns: "Key (a, b)=(…) already exists."
            table = error.table
            let list = detail.firstMatch(of: /^Key \(([^)]*)\)=/)?.output.1 ?? ""
            columns = list.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        } else {
            // SQLite says "UNIQUE constraint failed: table.column, table.column".
            let failed = error.message.split(separator: ":", maxSplits: 1).last.map { $0.split(separator: ",") } ?? []
            let pairs = failed.compactMap { part -> (String, String)? in
                let names = part.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1).map(
                    String.init)
                return names.count == 2 ? (names[0], names[1]) : nil
            }
            table = pairs.first?.0
            columns = pairs.map(\.1)
        }
        // The entity that declares the constraint: of the entities of that table having it, the
        // one whose rows include the others'.
        func columnsOf(_ constraint: UniquenessConstraint, _ entity: EntityDescription) -> Set<String> {
            Set(
                constraint.attributes.map { entity.attributes[$0].column }
                    + constraint.relationships.compactMap { entity.relationships[$0].foreignKeyColumn })
        }
        let owners = store.model.entities.filter { entity in
            entity.table == table && entity.uniquenessConstraints.contains { columnsOf($0, entity) == Set(columns) }
        }
        guard let owner = owners.max(by: { $0.fetchedEntityIDs.count < $1.fetchedEntityIDs.count }),
            let constraint = owner.uniquenessConstraints.first(where: { columnsOf($0, owner) == Set(columns) })
        else {
            return DatabaseError(
                .uniqueness, error.message, entity: error.entity, sql: error.sql, sqliteCode: error.sqliteCode)
        }
        let names =
            constraint.attributes.map { owner.attributes[$0].name }
            + constraint.relationships.map { owner.relationships[$0].name }
        return DatabaseError(
            .uniqueness,
            "another \(owner.name) already has the same \(names.joined(separator: ", ")) (the store refused the save)",
            entity: owner.name, property: names.first, sql: error.sql, sqliteCode: error.sqliteCode)
    }
}
