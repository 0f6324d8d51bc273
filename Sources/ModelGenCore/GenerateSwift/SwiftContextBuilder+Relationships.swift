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
            for relationship in model.entities[declaring].relationships where !relationship.isTransient {
                guard let destination = relationship.destination, classNames[destination] != nil else { continue }
                var inverse: (Int, String)?
                if relationship.isInverseMutual, let ref = relationship.inverse, classNames[ref.entity] != nil {
                    inverse = (ref.entity, model.entities[ref.entity].relationships[ref.index].name)
                }
                let inverseRelationship = inverse.flatMap { entity, name in
                    model.entities[entity].relationships.first { $0.name == name }
                }
                guard
                    let storage = storage(
                        owner: declaring, relationship, destination: destination, inverse: inverse, inverseRelationship)
                else { continue }
                result.append(
                    PlannedRelationship(
                        declaringEntity: declaring, relationship: relationship, destination: destination,
                        inverse: inverse.map { (entity: $0.0, name: $0.1) }, storage: storage))
            }
        }
        return result
    }

    private func storage(
        owner: Int, _ relationship: Relationship, destination: Int, inverse: (Int, String)?,
        _ inverseRelationship: Relationship?
    ) -> RuntimeEntityMetadata.Storage? {
        // Sources are compared in place: `Entity.relationship` is made only for the join tables.
        let ownerName = model.entities[owner].name
        if let table = entityTables[owner],
            let column = Self.columnName(
                in: schema.tables[table].columns, role: .relationship, owner: ownerName, relationship.name)
        {
            return .foreignKey(column: column)
        }
        if let inverse, let inverseRelationship, !inverseRelationship.isToMany, let target = entityTables[destination],
            let column = Self.columnName(
                in: schema.tables[target].columns, role: .relationship, owner: model.entities[inverse.0].name, inverse.1
            )
        {
            let position = Self.columnName(
                in: schema.tables[target].columns, role: .position, owner: ownerName, relationship.name)
            return .inverseForeignKey(column: column, position: position)
        }
        let source = String.concatenating(ownerName, ".", relationship.name)
        let inverseSource = inverse.map { String.concatenating(model.entities[$0.0].name, ".", $0.1) }
        for join in [joinTables[source], inverseSource.flatMap { joinTables[$0] }].compactMap({ $0 }) {
            var links = join.columns.filter { $0.role == .join }
            guard links.count == 2 else { continue }
            // The owner's column is named after the entity declaring the owning relationship.
            let declaringName = links[0].source.map { String($0.prefix { $0 != "." }) } ?? ""
            if links[1].name == SQLNaming.fitted(SQLNaming.snakeCase(declaringName) + "_pk")
                && links[0].name != links[1].name
            {
                links.swapAt(0, 1)
            }
            if links[0].source == source {
                let position = join.columns.first { $0.role == .position && $0.source == source }
                return .joinTable(
                    table: join.name, source: links[0].name, destination: links[1].name, position: position?.name)
            }
            if let inverseSource, links[0].source == inverseSource {
                let position = join.columns.first { $0.role == .position && $0.source != inverseSource }
                return .joinTable(
                    table: join.name, source: links[1].name, destination: links[0].name,
                    position: relationship.isOrdered ? position?.name : nil)
            }
        }
        return nil
    }

    /// The name of the first of `columns` with `role` and the source `owner.property`, compared in place (a search
    /// with `first(where:)` copied every column it passed: a tenth of planning a large model).
    private static func columnName(in columns: [Column], role: Column.Role, owner: String, _ property: String)
        -> String?
    {
        for index in columns.indices where columns[index].role == role {
            if let source = columns[index].source, Self.source(source, is: owner, property, nil) {
                return columns[index].name
            }
        }
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
