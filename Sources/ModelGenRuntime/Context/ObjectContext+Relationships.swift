/// A change to a join-table relationship, written at the next save.
struct LinkChange {
    let source: ManagedObject
    let destination: ManagedObject
    let relationship: Int
    let added: Bool
}

extension ObjectContext {
    // MARK: - Loading relationships (one query each)

    /// The object of `relationship`'s destination table whose `_pk` is `row`.
    func object(row: Int64, of relationship: RelationshipDescription) throws(DatabaseError) -> ManagedObject? {
        guard let destination = store.entity(relationship.destinationEntityID) else { return nil }
        for entityID in destination.fetchedEntityIDs {
            if let object = registeredObject(ObjectID(entityID: entityID, rowID: row)) {
                return isGone(object) ? nil : object
            }
        }
        let sql =
            "SELECT \(destination.selectColumnsSQL) FROM \(EntityDescription.quoted(destination.table)) WHERE \"_pk\" = ?"
        return try materializeRows(sql, parameters: [.key(row)], as: destination).first
    }

    /// Reads a to-one relationship the object's row does not hold (the other side of a one-to-one).
    func loadToOne(of object: ManagedObject, _ index: Int) throws(DatabaseError) -> ManagedObject? {
        let relationship = type(of: object).entityDescription.relationships[index]
        guard let destination = store.entity(relationship.destinationEntityID) else { return nil }
        let table = EntityDescription.quoted(destination.table)
        switch relationship.storage {
        case .foreignKey(let column):
            let sql =
                "SELECT \(EntityDescription.quoted(column)) FROM \(EntityDescription.quoted(type(of: object).entityDescription.table)) WHERE \"_pk\" = ?"
            let row: Int64? = try store.withReadConnection { connection throws(DatabaseError) in
                let statement = try connection.cachedStatement(sql)
                statement.bind(object.objectID.rowID, at: 1)
                return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
            }
            return try row.flatMap { row throws(DatabaseError) in try self.object(row: row, of: relationship) }
        case .inverseForeignKey(let column, _):
            let sql =
                "SELECT \(destination.selectColumnsSQL) FROM \(table) WHERE \(EntityDescription.quoted(column)) = ? ORDER BY \"_pk\" LIMIT 1"
            return try materializeRows(sql, parameters: [.key(object.objectID.rowID)], as: destination).first
        case .joinTable(let join, let source, let target, _):
            let sql =
                "SELECT \(prefixed(destination)) FROM \(table) AS d JOIN \(EntityDescription.quoted(join)) AS j ON j.\(EntityDescription.quoted(target)) = d.\"_pk\" WHERE j.\(EntityDescription.quoted(source)) = ? ORDER BY d.\"_pk\" LIMIT 1"
            return try materializeRows(sql, parameters: [.key(object.objectID.rowID)], as: destination).first
        }
    }

    /// Reads the destinations of a to-many relationship, in order.
    func loadToMany(of object: ManagedObject, _ index: Int) throws(DatabaseError) -> [ManagedObject] {
        let relationship = type(of: object).entityDescription.relationships[index]
        guard let destination = store.entity(relationship.destinationEntityID) else { return [] }
        let table = EntityDescription.quoted(destination.table)
        let sql: String
        switch relationship.storage {
        case .foreignKey:
            return []
        case .inverseForeignKey(let column, let position):
            let order = position.map { "\(EntityDescription.quoted($0)), " } ?? ""
            sql =
                "SELECT \(destination.selectColumnsSQL) FROM \(table) WHERE \(EntityDescription.quoted(column)) = ? ORDER BY \(order)\"_pk\""
        case .joinTable(let join, let source, let target, let position):
            let order = position.map { "j.\(EntityDescription.quoted($0)), " } ?? ""
            sql =
                "SELECT \(prefixed(destination)) FROM \(table) AS d JOIN \(EntityDescription.quoted(join)) AS j ON j.\(EntityDescription.quoted(target)) = d.\"_pk\" WHERE j.\(EntityDescription.quoted(source)) = ? ORDER BY \(order)d.\"_pk\""
        }
        return try materializeRows(sql, parameters: [.key(object.objectID.rowID)], as: destination)
    }

    /// `entity`'s selected columns read from the table aliased `d`.
    func prefixed(_ entity: EntityDescription) -> String {
        (["_pk", "_entity", "_version"] + entity.columns).map { "d." + EntityDescription.quoted($0) }.joined(
            separator: ", ")
    }

    /// Notes a change of a join-table relationship for the next save.
    func noteLinkChange(_ source: ManagedObject, _ destination: ManagedObject, _ index: Int, added: Bool) {
        linkChanges.append(LinkChange(source: source, destination: destination, relationship: index, added: added))
    }

    // MARK: - Deletion rules

    /// Applies the deletion rules of `object`'s relationships: Nullify takes it out of its
    /// destinations' inverses, Cascade deletes the destinations; Deny is checked at save.
    func applyDeletionRules(_ object: ManagedObject) throws(DatabaseError) {
        let relationships = type(of: object).entityDescription.relationships
        for (index, relationship) in relationships.enumerated() {
            switch relationship.deletionRule {
            case .nullify:
                guard let inverse = relationship.inverse else { continue }
                let destinations =
                    relationship.isToMany
                    ? try object.loadedToMany(index).objects : [try object.loadedToOne(index)].compactMap { $0 }
                // Only a required to-one left empty is reported with its cause.
                let entity = type(of: object).entityDescription.name
                for destination in destinations {
                    let other = type(of: destination).entityDescription
                    guard inverse < other.relationships.count, !other.relationships[inverse].isToMany,
                        !other.relationships[inverse].isOptional
                    else { continue }
                    clearedByDeletion[ObjectIdentifier(destination), default: [:]][inverse] =
                        "deleting \(entity) \(object.objectID) cleared it (\(entity).\(relationship.name) is Nullify)"
                }
                if relationship.isToMany {
                    for destination in destinations { try object.unlink(destination, index) }
                } else {
                    try object.assignToOne(nil, index)
                }
            case .cascade:
                let destinations =
                    relationship.isToMany
                    ? try object.loadedToMany(index).objects : [try object.loadedToOne(index)].compactMap { $0 }
                for destination in destinations where !destination.isListedAsDeleted {
                    try delete(destination, rules: true)
                }
            case .deny, .noAction:
                continue
            }
        }
    }

    /// Takes an object that leaves the context unsaved out of its partners' relationships.
    func detachFromPartners(_ object: ManagedObject) throws(DatabaseError) {
        let relationships = type(of: object).entityDescription.relationships
        for (index, relationship) in relationships.enumerated() where relationship.inverse != nil {
            if relationship.isToMany {
                for destination in try object.loadedToMany(index).objects { try object.unlink(destination, index) }
            } else {
                try object.assignToOne(nil, index)
            }
        }
    }

    /// The first Deny relationship of a deleted object that still leads to a live object.
    func checkDeny() throws(DatabaseError) {
        let deleted = deletedObjects
        try Self.forEachRun(of: deleted) { entity, run throws(DatabaseError) in
            guard entity.hasDenyRule else { return }
            for object in deleted[run] { try checkDeny(object, entity) }
        }
    }

    private func checkDeny(_ object: ManagedObject, _ entity: EntityDescription) throws(DatabaseError) {
        for (index, relationship) in entity.relationships.enumerated() where relationship.deletionRule == .deny {
            let destinations =
                relationship.isToMany
                ? try object.loadedToMany(index).objects : [try object.loadedToOne(index)].compactMap { $0 }
            let live = destinations.filter { !$0.isListedAsDeleted }
            if !live.isEmpty {
                throw DatabaseError(
                    .deny,
                    "\(entity.name) \(object.objectID) cannot be deleted: its relationship '\(relationship.name)' (Deny) still leads to \(live.count) object\(live.count == 1 ? "" : "s")",
                    entity: entity.name, property: relationship.name)
            }
        }
    }

    // MARK: - Validation of relationships

    func validateRelationships(_ object: ManagedObject) throws(DatabaseError) {
        let entity = type(of: object).entityDescription
        guard !entity.relationships.isEmpty else { return }
        object.prepareLinks()
        for (index, relationship) in entity.relationships.enumerated() {
            switch object.links[index] {
            case .unloaded where !object.objectID.isTemporary: continue
            case .key(let row):
                if row == nil && !relationship.isOptional { throw requiredToOneIsEmpty(object, entity, index) }
                continue
            default: break
            }
            if relationship.isToMany {
                // Core Data checks a to-many's counts only: a non-optional one without a minimum
                // (or with 0) may be empty, and an optional one may be empty whatever its minimum.
                let count = try object.loadedToMany(index).objects.count
                if let minimum = relationship.minCount, count < minimum, count > 0 || !relationship.isOptional {
                    throw DatabaseError(
                        .validation,
                        "\(entity.name).\(relationship.name) has \(count) objects, fewer than its minimum \(minimum)",
                        entity: entity.name, property: relationship.name)
                }
                if let maximum = relationship.maxCount, maximum > 0, count > maximum {
                    throw DatabaseError(
                        .validation,
                        "\(entity.name).\(relationship.name) has \(count) objects, more than its maximum \(maximum)",
                        entity: entity.name, property: relationship.name)
                }
            } else if !relationship.isOptional, try object.loadedToOne(index) == nil {
                throw requiredToOneIsEmpty(object, entity, index)
            }
        }
    }

    /// A required to-one left empty: cleared by another object's deletion (named), or never set.
    private func requiredToOneIsEmpty(_ object: ManagedObject, _ entity: EntityDescription, _ index: Int)
        -> DatabaseError
    {
        let name = "\(entity.name).\(entity.relationships[index].name)"
        let message =
            clearedByDeletion[ObjectIdentifier(object)]?[index].map { "\(name) is required, but \($0)" }
            ?? "\(name) is required and was never set"
        return DatabaseError(.validation, message, entity: entity.name, property: entity.relationships[index].name)
    }
}
