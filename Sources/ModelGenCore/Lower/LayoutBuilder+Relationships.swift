extension LayoutBuilder {
    /// The column name of a to-one relationship.
    func foreignKeyColumn(_ relationship: Relationship) -> String {
        SQLNaming.fitted(sqlName(relationship.name, userInfo: relationship.userInfo) + "_pk")
    }

    /// Whether `ref` and its inverse name each other.
    func mutualInverse(of ref: RelationshipRef) -> Relationship? {
        let relationships = model.entities[ref.entity].relationships
        guard relationships[ref.index].isInverseMutual, let inverse = relationships[ref.index].inverse else {
            return nil
        }
        return model.relationship(inverse)
    }

    /// Of two relationships that share storage, the one that holds it: the smaller
    /// (entity name, relationship name).
    func isOwner(_ ref: RelationshipRef) -> Bool {
        // Fields read in place: a relationship is a large struct, and copies of it (strings and
        // user info retained) were a good part of laying out relationships, which runs on one core.
        let relationships = model.entities[ref.entity].relationships
        guard let inverse = relationships[ref.index].inverse, relationships[ref.index].isInverseMutual else {
            return true
        }
        let mine = model.entities[ref.entity].name
        let theirs = model.entities[inverse.entity].name
        if mine != theirs { return mine < theirs }
        return relationships[ref.index].name <= model.entities[inverse.entity].relationships[inverse.index].name
    }

    /// `ON DELETE` of a foreign key to the destination: what deleting the destination does to the
    /// source, i.e. the inverse's deletion rule (`nil` = No Action: no constraint).
    static func deleteAction(forInverse inverse: Relationship?) -> ForeignKey.Action? {
        switch inverse?.deletionRule {
        case .cascade?: .cascade
        case .nullify?, nil: .setNull
        case .deny?: .restrict
        case .noAction?: nil
        }
    }

    mutating func addRelationship(_ ref: RelationshipRef, table: Int) {
        let relationship = model.relationship(ref)
        guard let destination = relationship.destination else { return }
        let inverse = mutualInverse(of: ref)
        if !relationship.isToMany {
            // One-to-one: only the owning side stores the key.
            if let inverse, !inverse.isToMany, !isOwner(ref) { return }
            addToOneColumn(ref, relationship, destination: destination, inverse: inverse, table: table)
            return
        }
        if let inverse, !inverse.isToMany {
            // The inverse's `_pk` column on the destination holds the link; an ordered relationship
            // adds the position there.
            if relationship.isOrdered, let destinationTable = tableOfRoot[model.entities[destination].root] {
                let name = claimColumnName(
                    SQLNaming.fitted(sqlName(inverse.name, userInfo: inverse.userInfo) + "_position"),
                    table: destinationTable,
                    entity: destination,
                    source: String.concatenating(model.entities[ref.entity].name, ".", relationship.name) + "#position",
                    explicit: false)
                tables[destinationTable].columns.append(
                    PlannedColumn(
                        column: Column(
                            name: name, type: .integer64, isNullable: true, role: .position,
                            source: String.concatenating(model.entities[ref.entity].name, ".", relationship.name),
                            origin: .position(entity: ref.entity, relationship: ref.index)),
                        location: SourceAnchor(line: relationship.line, attribute: "name")))
            }
            return
        }
        if inverse != nil, !isOwner(ref) { return }
        addJoinTable(ref, relationship, destination: destination, inverse: inverse, table: table)
    }

    private mutating func addToOneColumn(
        _ ref: RelationshipRef, _ relationship: Relationship, destination: Int, inverse: Relationship?, table: Int
    ) {
        let source = String.concatenating(model.entities[ref.entity].name, ".", relationship.name)
        let name = claimColumnName(
            foreignKeyColumn(relationship), table: table, entity: ref.entity, source: source,
            explicit: relationship.userInfo[StandardLayout.sqlNameKey] != nil)
        let required = relationship.isOptional ? nil : requirement(of: ref.entity)
        tables[table].columns.append(
            PlannedColumn(
                column: Column(
                    name: name, type: .key, isNullable: relationship.isOptional || required != nil, role: .relationship,
                    source: source, origin: .toOne(entity: ref.entity, relationship: ref.index)),
                location: SourceAnchor(line: relationship.line, attribute: "name")))
        if let required, !relationship.isOptional {
            tables[table].checks.append(.requiredFor(column: name, entityIDs: required))
        }
        if let target = tableOfRoot[model.entities[destination].root],
            let action = Self.deleteAction(forInverse: inverse)
        {
            tables[table].foreignKeys.append(
                ForeignKey(
                    columns: [name], referencedTable: tables[target].name, referencedColumns: ["_pk"], onDelete: action,
                    isDeferred: true))
        }
        let isOneToOne = inverse.map { !$0.isToMany } ?? false
        indexes.append(
            Index(
                name: SQLNaming.fitted(tables[table].name + "_" + name + (isOneToOne ? "_unique" : "_index")),
                table: tables[table].name, parts: [Index.Part(column: name, isDescending: false)], isUnique: isOneToOne,
                entityIDs: nil))
    }

    private mutating func addJoinTable(
        _ ref: RelationshipRef, _ relationship: Relationship, destination: Int, inverse: Relationship?, table: Int
    ) {
        guard let target = tableOfRoot[model.entities[destination].root] else { return }
        let sourceName = model.entities[ref.entity].name
        let relationshipName = sqlName(relationship.name, userInfo: relationship.userInfo)
        // A join table whose name an entity's table (or another join table) already has is
        // told apart by a suffix, unless the user named the relationship's table.
        var name = SQLNaming.fitted(tables[table].name + "_" + relationshipName)
        if relationship.userInfo[StandardLayout.sqlNameKey] == nil, tables.contains(where: { $0.name == name }) {
            let base = name
            name = SQLNaming.fitted(base + "_link")
            var number = 2
            while tables.contains(where: { $0.name == name }) {
                name = SQLNaming.fitted(base + "_link_\(number)")
                number += 1
            }
        }
        let ownerColumn = SQLNaming.fitted(SQLNaming.snakeCase(sourceName) + "_pk")
        var targetColumn = SQLNaming.fitted(relationshipName + "_pk")
        if targetColumn == ownerColumn { targetColumn = SQLNaming.fitted(relationshipName + "_target_pk") }
        let source = String.concatenating(sourceName, ".", relationship.name)
        let location = SourceAnchor(line: relationship.line, attribute: "name")
        var join = PlannedTable(name: name, kind: .join, root: nil, location: location)
        join.columns = [
            PlannedColumn(
                column: Column(
                    name: ownerColumn, type: .key, isNullable: false, role: .join, source: source,
                    origin: .joinSource(entity: ref.entity, relationship: ref.index)),
                location: location),
            PlannedColumn(
                column: Column(
                    name: targetColumn, type: .key, isNullable: false, role: .join, source: source,
                    origin: .joinDestination(entity: ref.entity, relationship: ref.index)),
                location: location),
        ]
        join.primaryKey = [ownerColumn, targetColumn]
        // Link rows go with either end, unless that end's rule is Deny.
        join.foreignKeys = [
            ForeignKey(
                columns: [ownerColumn], referencedTable: tables[table].name, referencedColumns: ["_pk"],
                onDelete: relationship.deletionRule == .deny ? .restrict : .cascade, isDeferred: true),
            ForeignKey(
                columns: [targetColumn], referencedTable: tables[target].name, referencedColumns: ["_pk"],
                onDelete: inverse?.deletionRule == .deny ? .restrict : .cascade, isDeferred: true),
        ]
        if relationship.isOrdered {
            join.columns.append(
                PlannedColumn(
                    column: Column(
                        name: SQLNaming.fitted(relationshipName + "_position"), type: .integer64, isNullable: true,
                        role: .position, source: source, origin: .position(entity: ref.entity, relationship: ref.index)),
                    location: location))
        }
        if let inverse, inverse.isOrdered, let inverseRef = relationship.inverse {
            var positionName = SQLNaming.fitted(sqlName(inverse.name, userInfo: inverse.userInfo) + "_position")
            if join.columns.contains(where: { $0.column.name == positionName }) {
                positionName = SQLNaming.fitted(positionName + "_inverse")
            }
            join.columns.append(
                PlannedColumn(
                    column: Column(
                        name: positionName, type: .integer64, isNullable: true, role: .position,
                        source: String.concatenating(model.entities[destination].name, ".", inverse.name),
                        origin: .position(entity: inverseRef.entity, relationship: inverseRef.index)),
                    location: location))
        }
        indexes.append(
            Index(
                name: SQLNaming.fitted(name + "_" + targetColumn + "_index"), table: name,
                parts: [Index.Part(column: targetColumn, isDescending: false)], isUnique: false, entityIDs: nil))
        tables.append(join)
    }
}
