extension CoreDataLayoutBuilder {
    /// R11: the indexes Core Data makes for an entity — its table's `Z_ENT` index (once, on the
    /// root, when the table holds several entities), indexed attributes, fetch indexes and
    /// uniqueness constraints. Key indexes are made with the key columns.
    mutating func addIndexes(of entity: Int) {
        let declaration = model.entities[entity]
        guard let table = tableOfRoot[declaration.root] else { return }
        let tableName = tables[table].name
        if declaration.parent == nil, hierarchy(of: entity).count > 1 {
            addKeyIndex(table: table, column: "Z_ENT")
        }
        for (index, attribute) in declaration.attributes.enumerated()
        where attribute.isIndexed && !attribute.isTransient {
            guard let column = storedColumn(.attribute(entity: entity, attribute: index, member: nil), table: table)
            else { continue }
            if frameworkVersion <= 754 {
                addKeyIndex(table: table, column: column)
            } else {
                indexes.append(fetchIndex("Z_\(declaration.name)_\(attribute.name)", tableName, [(column, true)]))
            }
        }
        for fetchIndex in declaration.fetchIndexes {
            let parts = fetchIndex.elements.compactMap { element -> (String, Bool)? in
                guard let property = element.property,
                    let column = column(ofProperty: property, in: entity, table: table)
                else { return nil }
                return (column, element.isAscending)
            }
            guard !parts.isEmpty else { continue }
            indexes.append(self.fetchIndex("Z_\(declaration.name)_\(fetchIndex.name)", tableName, parts))
        }
        for constraint in declaration.uniquenessConstraints where !constraint.properties.isEmpty {
            let columns = constraint.properties.compactMap { column(ofProperty: $0, in: entity, table: table) }
            guard !columns.isEmpty else { continue }
            var index = fetchIndex(
                "Z_\(declaration.name)_UNIQUE_" + constraint.properties.joined(separator: "_"), tableName,
                columns.map { ($0, true) })
            index.isUnique = true
            indexes.append(index)
        }
    }

    private func fetchIndex(_ name: String, _ table: String, _ parts: [(column: String, ascending: Bool)]) -> Index {
        Index(
            name: name, table: table,
            parts: parts.map { Index.Part(column: $0.column, isDescending: !$0.ascending, collation: "BINARY") },
            isUnique: false, entityIDs: nil)
    }

    /// The column of an attribute or to-one visible on `entity` (own or inherited).
    private func column(ofProperty name: String, in entity: Int, table: Int) -> String? {
        switch model.property(named: name, in: entity) {
        case .attribute(let owner, let index)?:
            return storedColumn(.attribute(entity: owner, attribute: index, member: nil), table: table)
        case .relationship(let owner, let index)?:
            return storedColumn(.toOne(entity: owner, relationship: index), table: table)
        default:
            return nil
        }
    }

    func storedColumn(_ origin: ColumnOrigin, table: Int) -> String? {
        plannedColumns[table].first { $0.column.origin == origin }?.column.name
    }
}
