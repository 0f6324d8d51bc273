extension ObjectContext {
    /// Moves foreign keys out of the way before any row is written, so that the order in which a
    /// save writes rows cannot break a constraint the saved state keeps:
    /// - a deleted row's keys become `-_pk`, so deleting the row it points to does not run the
    ///   foreign key's `ON DELETE` action on it (an account deleted with its posts: `SET NULL` on
    ///   a post's required key failed), and a one-to-one partner it held is free for another row;
    /// - an updated row whose one-to-one key changed holds `-_pk` until its update, so another row
    ///   can take its old partner first (a unique index is checked at once, not at commit); so do
    ///   the keys of a uniqueness constraint whose values or keys change in a row; when
    ///   the save deletes rows, so does every updated row whose key changed, so that deleting the
    ///   row it pointed to does not run the key's `ON DELETE CASCADE` or `SET NULL` on it (it no
    ///   longer points there).
    /// - a deleted row's join-table links go first: the rules were applied in memory (a Deny rule
    ///   checked), and a link's `ON DELETE RESTRICT` would refuse deleting a row linked to itself.
    /// `-_pk` is NOT NULL and distinct per row; the keys are checked at commit (deferred), when
    /// the deleted rows are gone and the updated ones hold their new keys.
    func releaseForeignKeys(updated: [ManagedObject], _ connection: Connection) throws(DatabaseError) {
        let deleted = deletedObjects
        try Self.forEachRun(of: deleted) { entity, run throws(DatabaseError) in
            for relationship in entity.relationships {
                guard case .joinTable(let join, let source, _, _) = relationship.storage else { continue }
                let statement = try connection.cachedStatement(
                    "DELETE FROM \(EntityDescription.quoted(join)) WHERE \(EntityDescription.quoted(source)) = ?")
                for object in deleted[run] {
                    statement.bind(object.objectID.rowID, at: 1)
                    try statement.runQueued()
                    statement.resetForRebinding()
                }
            }
            let columns = entity.relationships.compactMap(\.foreignKeyColumn)
            guard !columns.isEmpty else { return }
            let statement = try connection.cachedStatement(Self.releaseSQL(entity, columns))
            for object in deleted[run] {
                statement.bind(object.objectID.rowID, at: 1)
                try statement.runQueued()
                statement.resetForRebinding()
            }
        }
        try Self.forEachRun(of: updated) { entity, run throws(DatabaseError) in
            let released = deleted.isEmpty ? Self.oneToOneKeys(entity) : entity.foreignKeyMask
            let constrained = Self.constrainedKeys(entity)
            guard released != 0 || !constrained.isEmpty else { return }
            for object in updated[run] {
                var mask = object.relationshipMask & released
                // A row whose tuple of a uniqueness constraint with keys changes (a value or a
                // key) parks the constraint's keys too, and its update writes them back: another
                // row may take the tuple it leaves before this row's update runs.
                for (attributes, keys) in constrained
                where object.changedMask & attributes != 0 || object.relationshipMask & keys != 0 {
                    for index in entity.relationships.indices
                    where keys & EntityDescription.bit(index) != 0
                        && object.relationshipMask & EntityDescription.bit(index) == 0
                    {
                        _ = try object.loadedToOne(index)
                    }
                    mask |= keys
                }
                guard mask != 0 else { continue }
                object.relationshipMask |= mask
                let columns = entity.relationships.indices.compactMap { index in
                    mask & EntityDescription.bit(index) != 0 ? entity.relationships[index].foreignKeyColumn : nil
                }
                let statement = try connection.cachedStatement(Self.releaseSQL(entity, columns))
                statement.bind(object.objectID.rowID, at: 1)
                try statement.runQueued()
                statement.resetForRebinding()
            }
        }
    }

    private static func releaseSQL(_ entity: EntityDescription, _ columns: [String]) -> String {
        "UPDATE \(EntityDescription.quoted(entity.table)) SET "
            + columns.map { "\(EntityDescription.quoted($0)) = -\"_pk\"" }.joined(separator: ", ")
            + " WHERE \"_pk\" = ?"
    }

    /// Per uniqueness constraint that names owning to-ones: the bits of its attributes (slots)
    /// and of its keys.
    private static func constrainedKeys(_ entity: EntityDescription) -> [(attributes: UInt64, keys: UInt64)] {
        entity.uniquenessConstraints.compactMap { constraint in
            let keys = constraint.relationships.filter { entity.relationships[$0].foreignKeyColumn != nil }.reduce(
                UInt64(0)
            ) { $0 | EntityDescription.bit($1) }
            guard keys != 0 else { return nil }
            return (constraint.attributes.reduce(UInt64(0)) { $0 | EntityDescription.bit($1) }, keys)
        }
    }

    /// Bits of the owning to-one relationships whose inverse is to-one (a unique key).
    private static func oneToOneKeys(_ entity: EntityDescription) -> UInt64 {
        var mask: UInt64 = 0
        for (index, relationship) in entity.relationships.enumerated() where relationship.foreignKeyColumn != nil {
            guard let inverse = relationship.inverse, let destination = relationship.destination?.entityDescription,
                inverse < destination.relationships.count, !destination.relationships[inverse].isToMany
            else { continue }
            mask |= EntityDescription.bit(index)
        }
        return mask
    }
}
