extension LayoutBuilder {
    static func unsupportedIndexElement(_ index: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unsupported-index-expression", .warning,
            "index '\(index)' has an expression element, which is not supported; the element is left out")
    }
    static func constraintWithoutColumn(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "uniqueness-without-column", .warning,
            "uniqueness constraint names '\(name)', whose key is stored on the other side of a one-to-one; it is left out"
        )
    }

    /// The columns that store property `name` of `entity` (several for a composite).
    func columns(ofProperty name: String, in entity: Int) -> [String]? {
        guard let ref = model.property(named: name, in: entity) else { return nil }
        switch ref {
        case .attribute:
            let attribute = model.attribute(ref)!
            let base = sqlName(attribute.name, userInfo: attribute.userInfo)
            let source = String.concatenating(model.entities[ref.entity].name, ".", attribute.name)
            if attribute.type == .composite,
                let composite = model.composites.first(where: { $0.name == attribute.compositeName })
            {
                return composite.attributes.filter { !$0.isTransient }.map {
                    renamedColumns[source + "." + $0.name]
                        ?? SQLNaming.fitted(base + "_" + sqlName($0.name, userInfo: $0.userInfo))
                }
            }
            return [renamedColumns[source] ?? base]
        case .relationship(let owner, let index):
            let ref = RelationshipRef(entity: owner, index: index)
            let relationship = model.relationship(ref)
            // A to-many's links are in another table (Core Data ignores it in an index).
            if relationship.isToMany { return nil }
            if let inverse = mutualInverse(of: ref), !inverse.isToMany, !isOwner(ref) { return nil }
            return [
                renamedColumns[String.concatenating(model.entities[owner].name, ".", relationship.name)]
                    ?? foreignKeyColumn(relationship)
            ]
        case .fetchedProperty:
            return nil
        }
    }

    mutating func addUniquenessConstraints(of entity: Int) {
        let declaration = model.entities[entity]
        guard let table = tableOfRoot[declaration.root] else { return }
        let tableName = tables[table].name
        for constraint in declaration.uniquenessConstraints where !constraint.properties.isEmpty {
            var columns: [String] = []
            for (property, line) in zip(constraint.properties, constraint.propertyLines) {
                guard let stored = self.columns(ofProperty: property, in: entity) else {
                    diagnostics.report(
                        Self.constraintWithoutColumn(property), at: model.location(line, attribute: "value"))
                    continue
                }
                columns += stored
            }
            guard !columns.isEmpty else { continue }
            indexes.append(
                Index(
                    name: SQLNaming.fitted(tableName + "_" + columns.joined(separator: "_") + "_unique"),
                    table: tableName, parts: columns.map { Index.Part(column: $0, isDescending: false) },
                    isUnique: true,
                    entityIDs: declaration.parent == nil ? nil : entityIDValues(of: entity)))
        }
    }

    mutating func addFetchIndexes(of entity: Int) {
        let declaration = model.entities[entity]
        guard let table = tableOfRoot[declaration.root] else { return }
        let tableName = tables[table].name
        let prefix = declaration.parent == nil ? tableName : tableName + "_" + SQLNaming.snakeCase(declaration.name)
        for index in declaration.fetchIndexes {
            var parts: [Index.Part] = []
            for element in index.elements {
                guard let property = element.property, !property.isEmpty else {
                    diagnostics.report(
                        Self.unsupportedIndexElement(index.name),
                        at: model.location(element.line, element: "fetchIndexElement"))
                    continue
                }
                // A to-many (warned about by FetchIndexRules) has no column here: `columns` is nil.
                for column in columns(ofProperty: property, in: entity) ?? [] {
                    parts.append(Index.Part(column: column, isDescending: !element.isAscending))
                }
            }
            guard !parts.isEmpty else { continue }
            indexes.append(
                Index(
                    name: SQLNaming.fitted(prefix + "_" + SQLNaming.snakeCase(index.name)), table: tableName,
                    parts: parts,
                    isUnique: false, entityIDs: nil))
        }
        for attribute in declaration.attributes where attribute.isIndexed && !attribute.isTransient {
            for column in columns(ofProperty: attribute.name, in: entity) ?? [] {
                indexes.append(
                    Index(
                        name: SQLNaming.fitted(tableName + "_" + column + "_index"), table: tableName,
                        parts: [Index.Part(column: column, isDescending: false)], isUnique: false, entityIDs: nil))
            }
        }
    }
}
