import Mustache

private typealias Key = ContextKey

extension SwiftContextBuilder {
    /// A relationship the runtime can follow: its destination, inverse and storage.
    struct PlannedRelationship {
        var declaringEntity: Int
        var relationship: Relationship
        var destination: Int
        /// The inverse's declaring entity and name, when the two name each other.
        var inverse: (entity: Int, name: String)?
        var storage: RuntimeEntityMetadata.Storage
    }

    /// The relationships of entity `index` (inherited first) whose storage the schema holds.
    func planRelationships(_ index: Int) -> [PlannedRelationship] {
        let lineage = lineage(index)
        var result: [PlannedRelationship] = []
        result.reserveCapacity(lineage.reduce(0) { $0 + model.entities[$1].relationships.count })
        for declaring in lineage {
            for (position, relationship) in model.entities[declaring].relationships.enumerated()
            where !relationship.isTransient {
                guard let destination = relationship.destination, classNames[destination] != nil else { continue }
                var inverse: RelationshipRef?
                if relationship.isInverseMutual, let ref = relationship.inverse, classNames[ref.entity] != nil {
                    inverse = ref
                }
                guard
                    let storage = storage(
                        RelationshipRef(entity: declaring, index: position), relationship, destination: destination,
                        inverse: inverse)
                else { continue }
                result.append(
                    PlannedRelationship(
                        declaringEntity: declaring, relationship: relationship, destination: destination,
                        inverse: inverse.map { (entity: $0.entity, name: model.relationship($0).name) },
                        storage: storage))
            }
        }
        return result
    }

    /// Where the schema keeps the links of relationship `ref`, found by the columns' origins.
    private func storage(
        _ ref: RelationshipRef, _ relationship: Relationship, destination: Int, inverse: RelationshipRef?
    ) -> RuntimeEntityMetadata.Storage? {
        let (entity, index) = (ref.entity, ref.index)
        if let table = entityTables[ref.entity],
            let column = columnName(in: table, .toOne(entity: entity, relationship: index))
        {
            return .foreignKey(column: column)
        }
        if let inverse, !model.relationship(inverse).isToMany, let target = entityTables[destination],
            let column = columnName(in: target, .toOne(entity: inverse.entity, relationship: inverse.index))
        {
            return .inverseForeignKey(
                column: column, position: columnName(in: target, .position(entity: entity, relationship: index)))
        }
        // A join table: this relationship's own, or its inverse's (the ends swapped).
        if let join = joinTables[ref],
            let source = columnName(in: join, .joinSource(entity: entity, relationship: index)),
            let target = columnName(in: join, .joinDestination(entity: entity, relationship: index))
        {
            return .joinTable(
                table: schema.tables[join].name, source: source, destination: target,
                position: columnName(in: join, .position(entity: entity, relationship: index)))
        }
        if let inverse, let join = joinTables[inverse],
            let source = columnName(in: join, .joinDestination(entity: inverse.entity, relationship: inverse.index)),
            let target = columnName(in: join, .joinSource(entity: inverse.entity, relationship: inverse.index))
        {
            return .joinTable(
                table: schema.tables[join].name, source: source, destination: target,
                position: relationship.isOrdered
                    ? columnName(in: join, .position(entity: entity, relationship: index)) : nil)
        }
        return nil
    }

    /// The name of the column of table number `table` that stores `origin`.
    private func columnName(in table: Int, _ origin: ColumnOrigin) -> String? {
        let columns = schema.tables[table].columns
        // By index: a search with `first(where:)` copies every column it passes.
        for index in columns.indices where columns[index].origin == origin { return columns[index].name }
        return nil
    }

    /// The context of relationship number `index` of entity `entity`.
    func relationshipContext(
        _ planned: PlannedRelationship, index: Int, entity: Int, into context: inout MustacheTreeBuilder
    ) -> MustacheTree.Ref {
        let relationship = planned.relationship
        let destinationClass = classNames[planned.destination] ?? "ManagedObject"
        let type: String
        if !relationship.isToMany {
            type = destinationClass + "?"
        } else if relationship.isOrdered {
            type = "[\(destinationClass)]"
        } else {
            type = "\(typeName("Set"))<\(destinationClass)>"
        }
        let metadata = relationshipMetadata(planned)
        let capitalized = SwiftNames.capitalized(relationship.name)
        let sort = sortDescriptors(planned)
        let mark = context.beginObject()
        context.member(Key.name, Self.propertyName(relationship.name))
        context.member(Key.key, context.string { SwiftNames.appendLiteral(relationship.name, to: &$0) })
        context.member(Key.index, index)
        context.member(Key.type, type)
        context.member(Key.destinationClass, destinationClass)
        context.member(Key.isToOne, !relationship.isToMany)
        context.member(Key.isToMany, relationship.isToMany)
        context.member(Key.isOrdered, relationship.isOrdered)
        context.member(Key.isUnordered, relationship.isToMany && !relationship.isOrdered)
        context.member(Key.addName, SwiftNames.identifier("addTo" + capitalized))
        context.member(Key.removeName, SwiftNames.identifier("removeFrom" + capitalized))
        context.member(Key.arrayName, SwiftNames.identifier(relationship.name + "Array"))
        context.member(Key.sortDescriptors, sort.code)
        context.member(Key.sortDescription, sort.description)
        context.member(Key.rawName, relationship.name)
        context.member(
            Key.description,
            context.string { metadata.appendSwiftExpression(destinationClass: destinationClass, to: &$0) })
        context.member(Key.className, classNames[entity] ?? "")
        return context.endObject(mark)
    }

    /// What the runtime reads about a planned relationship.
    func relationshipMetadata(_ planned: PlannedRelationship) -> RuntimeEntityMetadata.Relationship {
        let relationship = planned.relationship
        let inverseIndex = planned.inverse.flatMap { inverse in
            relationships[planned.destination]?.firstIndex {
                $0.relationship.name == inverse.name && $0.declaringEntity == inverse.entity
            }
        }
        let destination = model.entities[planned.destination].name
        return RuntimeEntityMetadata.Relationship(
            name: relationship.name, destination: destination,
            destinationEntityID: Int64(entityMappings[planned.destination]?.entityID ?? 0),
            inverse: inverseIndex, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
            isOptional: relationship.isOptional,
            minCount: relationship.isToMany && relationship.minCount > 0 ? relationship.minCount : nil,
            maxCount: relationship.isToMany && relationship.maxCount > 0 ? relationship.maxCount : nil,
            deletionRule: relationship.deletionRule, storage: planned.storage)
    }

    /// The sort descriptors of a to-many's sorted wrapper: the relationship's `modelgen.sortKey`,
    /// else the destination's `modelgen.defaultSortKey`, else none (insertion order). A key that
    /// is not a comparable stored attribute of the destination is left out.
    private func sortDescriptors(_ planned: PlannedRelationship) -> (code: String, description: String) {
        // The destination's user info read in place (a copy of the entity retains all its arrays).
        let spec =
            planned.relationship.userInfo["modelgen.sortKey"] ?? model.entities[planned.destination].userInfo[
                "modelgen.defaultSortKey"] ?? ""
        guard !spec.isEmpty else { return ("[]", "insertion order") }
        let className = classNames[planned.destination] ?? ""
        let attributes = storedAttributes[planned.destination] ?? []
        var descriptors: [String] = []
        var described: [String] = []
        for sortKey in SortKey.parse(spec) {
            let (key, ascending) = (sortKey.key, sortKey.ascending)
            guard attributes.contains(where: { !$0.isMember && $0.name == key && $0.isComparable }) else { continue }
            descriptors.append(
                "ObjectSortDescriptor(\\\(className).\(Self.propertyName(key))\(ascending ? "" : ", ascending: false"))"
            )
            described.append("`\(key)`" + (ascending ? "" : " descending"))
        }
        let description = described.isEmpty ? "insertion order" : described.joined(separator: ", then ")
        return ("[" + descriptors.joined(separator: ", ") + "]", description)
    }
}
