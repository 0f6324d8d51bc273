extension ObjectContext {
    /// Records the owning to-one keys of a row just read (columns after `_pk`, `_entity`,
    /// `_version`), so the destinations can be found without another query of this table.
    static func readForeignKeys(_ object: ManagedObject, _ entity: EntityDescription, _ statement: Statement) {
        object.prepareLinks()
        for (index, position) in entity.foreignKeyPositions.enumerated() {
            guard let position else { continue }
            let column = Int32(3 + position)
            object.links[index] = .key(statement.isNull(column) ? nil : statement.int64(column))
        }
    }

    /// Gives every inserted object its `_pk` before any row is written, so foreign keys between
    /// new objects can be bound directly (the tables' foreign keys are checked at commit).
    func assignRows(_ connection: Connection) throws(DatabaseError) {
        var next: [String: Int64] = [:]
        var last: (EntityDescription, Int64)?
        for object in insertedObjects {
            let entity = type(of: object).entityDescription
            // Inserts come in runs of one entity: no table lookup while the entity repeats.
            if let (previous, row) = last, previous === entity {
                try Self.checkRowLeft(after: row, in: entity)
                object.pendingRow = row + 1
                last = (entity, row + 1)
                continue
            }
            if let (previous, row) = last { next[previous.table] = row }
            let table = entity.table
            var row: Int64
            if let known = next[table] {
                row = known
            } else {
                let statement = try connection.cachedStatement("SELECT coalesce(max(\"_pk\"), 0) FROM \(EntityDescription.quoted(table))")
                _ = try statement.step()
                row = statement.int64(0)
                statement.reset()
            }
            try Self.checkRowLeft(after: row, in: entity)
            row += 1
            object.pendingRow = row
            next[table] = row
            last = (entity, row)
        }
    }

    /// A table whose largest `_pk` is `Int64.max` has no next row number: the save fails (as
    /// SQLite's own row numbering reports `SQLITE_FULL`) instead of the number overflowing.
    private static func checkRowLeft(after row: Int64, in entity: EntityDescription) throws(DatabaseError) {
        guard row == Int64.max else { return }
        throw DatabaseError(
            .sqlite, "table \(entity.table) has no row number left after \(row) for a new \(entity.name)", entity: entity.name, sqliteCode: 13)
    }

    /// Binds the owning to-one keys whose bits are set in `mask`, in relationship order.
    func bindForeignKeys(_ object: ManagedObject, _ entity: EntityDescription, _ statement: Statement, _ start: Int32, mask: UInt64) -> Int32 {
        var index = start
        object.prepareLinks()
        for (number, relationship) in entity.relationships.enumerated() where relationship.foreignKeyColumn != nil {
            guard mask & EntityDescription.bit(number) != 0 else { continue }
            switch object.links[number] {
            case .key(let row?): statement.bind(row, at: index)
            case .toOne(let destination?) where destination.context === self && !destination.isListedAsDeleted:
                statement.bind(destination.rowForSave, at: index)
            default: statement.bindNull(index)
            }
            index += 1
        }
        return index
    }

    /// Writes join-table changes and the positions of ordered relationships.
    func writeLinks(updated: [ManagedObject], _ connection: Connection) throws(DatabaseError) {
        for change in linkChanges {
            guard case .joinTable(let table, let source, let target, _) = type(of: change.source).entityDescription.relationships[change.relationship].storage,
                change.source.context === self, change.destination.context === self,
                !change.source.isListedAsDeleted, !change.destination.isListedAsDeleted
            else { continue }
            let quoted = (EntityDescription.quoted(table), EntityDescription.quoted(source), EntityDescription.quoted(target))
            let sql =
                change.added
                ? "INSERT OR IGNORE INTO \(quoted.0) (\(quoted.1), \(quoted.2)) VALUES (?, ?)"
                : "DELETE FROM \(quoted.0) WHERE \(quoted.1) = ? AND \(quoted.2) = ?"
            let statement = try connection.cachedStatement(sql)
            statement.bind(change.source.rowForSave, at: 1)
            statement.bind(change.destination.rowForSave, at: 2)
            try statement.run()
        }
        for object in insertedObjects + updated where object.relationshipMask != 0 {
            try writePositions(object, connection)
        }
    }

    private func writePositions(_ object: ManagedObject, _ connection: Connection) throws(DatabaseError) {
        let entity = type(of: object).entityDescription
        for (index, relationship) in entity.relationships.enumerated()
        where relationship.isOrdered && object.relationshipMask & EntityDescription.bit(index) != 0 {
            guard case .toMany(let list) = object.links[index], let destination = store.entity(relationship.destinationEntityID) else { continue }
            let sql: String
            switch relationship.storage {
            case .inverseForeignKey(_, let position?):
                sql = "UPDATE \(EntityDescription.quoted(destination.table)) SET \(EntityDescription.quoted(position)) = ? WHERE \"_pk\" = ?"
            case .joinTable(let table, let source, let target, let position?):
                sql =
                    "UPDATE \(EntityDescription.quoted(table)) SET \(EntityDescription.quoted(position)) = ? WHERE \(EntityDescription.quoted(target)) = ? AND \(EntityDescription.quoted(source)) = ?"
            default:
                continue
            }
            let statement = try connection.cachedStatement(sql)
            for (position, member) in list.objects.enumerated() where !member.isListedAsDeleted && member.context === self {
                statement.bind(Int64(position), at: 1)
                statement.bind(member.rowForSave, at: 2)
                if case .joinTable = relationship.storage { statement.bind(object.rowForSave, at: 3) }
                try statement.run()
                statement.reset()
            }
        }
    }
}

extension ManagedObject {
    /// Whether an owning to-one key changed (an UPDATE must write it).
    var hasForeignKeyChange: Bool {
        relationshipMask != 0 && relationshipMask & type(of: self).entityDescription.foreignKeyMask != 0
    }
}
