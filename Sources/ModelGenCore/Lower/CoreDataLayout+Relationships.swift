extension CoreDataLayoutBuilder {
    /// The inverse, when the two relationships name each other.
    func mutualInverse(of ref: RelationshipRef) -> RelationshipRef? {
        let relationship = model.relationship(ref)
        guard relationship.isInverseMutual, let inverse = relationship.inverse else { return nil }
        return inverse
    }

    /// R6–R9: where a relationship's links are kept.
    mutating func addRelationship(_ ref: RelationshipRef) {
        let relationship = model.relationship(ref)
        guard let destination = relationship.destination, let table = tableOfRoot[model.entities[ref.entity].root]
        else { return }
        let inverse = mutualInverse(of: ref)
        if !relationship.isToMany {
            addToOne(ref, destination: destination, table: table)
        } else if let inverse, !model.relationship(inverse).isToMany {
            // One-to-many: the key is the inverse's column; an ordered one adds the positions.
            if relationship.isOrdered { addPositions(of: ref, inverse: inverse) }
        } else if let inverse {
            if isJoinOwner(ref, inverse) { addJoinTable(ref, inverse) }
        } else {
            addHiddenKey(of: ref, destination: destination)
        }
    }

    /// R6: `Z<NAME>` holding the destination's `Z_PK`, and `Z<n>_<NAME>` holding its `Z_ENT`
    /// when the destination has sub-entities (n: the destination's root's number).
    private mutating func addToOne(_ ref: RelationshipRef, destination: Int, table: Int) {
        let relationship = model.relationship(ref)
        let name = CoreDataLayout.storeName(relationship.name)
        let source = String.concatenating(model.entities[ref.entity].name, ".", relationship.name)
        var companion: Column?
        if !model.entities[destination].subentities.isEmpty {
            let root = model.entities[destination].root
            companion = Column(
                name: "Z\(numbers[root])_" + relationship.name.uppercased(), type: .integer32, isNullable: true,
                role: .relationshipEntity, source: source + "#entity",
                origin: .toOneEntity(entity: ref.entity, relationship: ref.index))
        }
        add(
            Column(
                name: name, type: .key, isNullable: true, role: .relationship, source: source,
                origin: .toOne(entity: ref.entity, relationship: ref.index)),
            to: table, entity: ref.entity, kind: 1, sortName: relationship.name, companion: companion)
        addKeyIndex(table: table, column: lastColumnName(table))
    }

    /// R7: `Z_FOK_<inverse's key column without its Z>` on the destination's table.
    private mutating func addPositions(of ref: RelationshipRef, inverse: RelationshipRef) {
        guard let table = tableOfRoot[model.entities[inverse.entity].root] else { return }
        let keyName = CoreDataLayout.storeName(model.relationship(inverse).name)
        let key = plannedColumns[table].first {
            $0.column.origin == .toOne(entity: inverse.entity, relationship: inverse.index)
        }
        let stored = key?.column.name ?? keyName
        add(
            Column(
                name: "Z_FOK_" + stored.dropFirst(), type: .key, isNullable: true, role: .position,
                source: String.concatenating(model.entities[ref.entity].name, ".", model.relationship(ref).name)
                    + "#position",
                origin: .position(entity: ref.entity, relationship: ref.index)),
            to: table, entity: inverse.entity, kind: 3, sortName: stored, isLate: true)
    }

    /// R8: a to-many without an inverse keeps its owner's key in the destination's table, in
    /// `Z<n(owner)><NAME>` (no underscore), indexed like a key.
    private mutating func addHiddenKey(of ref: RelationshipRef, destination: Int) {
        guard let table = tableOfRoot[model.entities[destination].root] else { return }
        let relationship = model.relationship(ref)
        let name = "Z\(numbers[ref.entity])" + relationship.name.uppercased()
        let source = String.concatenating(model.entities[ref.entity].name, ".", relationship.name)
        add(
            Column(
                name: name, type: .key, isNullable: true, role: .relationship, source: source,
                origin: .owner(entity: ref.entity, relationship: ref.index)),
            to: table, entity: destination, kind: 2, sortName: name, isLate: true)
        let stored = lastColumnName(table)
        addKeyIndex(table: table, column: stored)
        if relationship.isOrdered {
            add(
                Column(
                    name: "Z_FOK_" + stored.dropFirst(), type: .key, isNullable: true, role: .position,
                    source: source + "#position", origin: .position(entity: ref.entity, relationship: ref.index)),
                to: table, entity: destination, kind: 3, sortName: stored, isLate: true)
        }
    }

    /// R9: of a many-to-many pair, the side that names the join table — the ordered one when
    /// exactly one is, else the one of the lower entity number (then the name, for a pair on one
    /// entity, which the spec leaves open).
    func isJoinOwner(_ ref: RelationshipRef, _ inverse: RelationshipRef) -> Bool {
        let (mine, theirs) = (model.relationship(ref), model.relationship(inverse))
        if mine.isOrdered != theirs.isOrdered { return mine.isOrdered }
        if numbers[ref.entity] != numbers[inverse.entity] { return numbers[ref.entity] < numbers[inverse.entity] }
        let (a, b) = (mine.name.lowercased(), theirs.name.lowercased())
        return a != b ? a < b : mine.name <= theirs.name
    }

    /// R9: `Z_<n(owner)><OWNER RELATIONSHIP>` with the owner's keys (named after the relationship
    /// pointing at the owner), the other side's keys, and `Z_FOK_` positions of an ordered side.
    private mutating func addJoinTable(_ ref: RelationshipRef, _ inverse: RelationshipRef) {
        let (mine, theirs) = (model.relationship(ref), model.relationship(inverse))
        let ownerKeys = joinColumnName("Z_\(numbers[ref.entity])" + theirs.name.uppercased())
        let otherKeys = joinColumnName("Z_\(numbers[inverse.entity])" + mine.name.uppercased())
        let source = String.concatenating(model.entities[ref.entity].name, ".", mine.name)
        let inverseSource = String.concatenating(model.entities[inverse.entity].name, ".", theirs.name)
        var table = PlannedTable(
            name: "Z_\(numbers[ref.entity])" + mine.name.uppercased(), kind: .join, root: nil,
            location: SourceAnchor(line: mine.line, attribute: "name"))
        table.columns = [
            PlannedColumn(
                column: Column(
                    name: ownerKeys, type: .key, isNullable: false, role: .join, source: source,
                    origin: .joinSource(entity: ref.entity, relationship: ref.index)),
                location: nil),
            PlannedColumn(
                column: Column(
                    name: otherKeys, type: .key, isNullable: false, role: .join, source: inverseSource,
                    origin: .joinDestination(entity: ref.entity, relationship: ref.index)),
                location: nil),
        ]
        if mine.isOrdered {
            table.columns.append(
                PlannedColumn(
                    column: Column(
                        name: "Z_FOK_" + otherKeys.dropFirst(2), type: .key, isNullable: true, role: .position,
                        source: source + "#position", origin: .position(entity: ref.entity, relationship: ref.index)),
                    location: nil))
        }
        if theirs.isOrdered {
            table.columns.append(
                PlannedColumn(
                    column: Column(
                        name: "Z_FOK_" + ownerKeys.dropFirst(2), type: .key, isNullable: true, role: .position,
                        source: inverseSource + "#position",
                        origin: .position(entity: inverse.entity, relationship: inverse.index)),
                    location: nil))
        }
        table.primaryKey = [ownerKeys, otherKeys]
        if frameworkVersion >= 754 {
            indexes.append(
                Index(
                    name: table.name + "_" + otherKeys + "_INDEX", table: table.name,
                    parts: [
                        Index.Part(column: otherKeys, isDescending: false),
                        Index.Part(column: ownerKeys, isDescending: false),
                    ],
                    isUnique: false, entityIDs: nil))
        }
        joinTables.append((after: tableOfRoot[model.entities[ref.entity].root] ?? 0, table: table))
    }

    /// `base`, or `base` with the first free digit suffix (R9: join columns are unique in the store).
    private mutating func joinColumnName(_ base: String) -> String {
        var name = base
        var suffix = 0
        while joinColumnNames.contains(name) {
            suffix += 1
            name = base + String(suffix)
        }
        joinColumnNames.insert(name)
        return name
    }

    private func lastColumnName(_ table: Int) -> String { plannedColumns[table].last!.column.name }

    /// R11: `<TABLE>_<COLUMN>_INDEX` on a key column.
    mutating func addKeyIndex(table: Int, column: String) {
        let name = tables[table].name
        indexes.append(
            Index(
                name: name + "_" + column + "_INDEX", table: name,
                parts: [Index.Part(column: column, isDescending: false)], isUnique: false, entityIDs: nil))
    }
}
