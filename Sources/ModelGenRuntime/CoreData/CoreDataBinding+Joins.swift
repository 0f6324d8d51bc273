extension CoreDataBinding {
    /// The runtime's join tables: a many-to-many is a view over Core Data's join table (R9), whose
    /// columns are found by pattern because Core Data chooses their numbers and suffixes; a
    /// to-many without an inverse is a view over the hidden key in the destination's table (R8).
    mutating func bindJoinTables() {
        var done: Set<String> = []
        for entity in model.entities {
            for relationship in entity.relationships {
                guard case .joinTable(let table, _, _, _) = relationship.storage, !done.contains(table),
                    let destination = hierarchy.byID[relationship.destinationEntityID]
                else { continue }
                done.insert(table)
                if let inverse = relationship.inverse, inverse < destination.relationships.count,
                    destination.relationships[inverse].isToMany
                {
                    bindManyToMany(entity, relationship, destination, destination.relationships[inverse])
                } else {
                    bindHiddenKey(entity, relationship, destination)
                }
            }
        }
    }

    /// The numbers of `entity` and its ancestors up to its root: a relationship an entity
    /// inherits is kept under the number of the ancestor that declares it.
    func lineage(_ entity: EntityDescription) -> [Int] {
        var numbers: [Int] = []
        var current: Int32? = entity.entityID
        while let id = current, let number = hierarchy.number[id] {
            numbers.append(number)
            current = hierarchy.parent[id]
        }
        return numbers
    }

    /// `Z_<n>` or `Z<n>` (`underscore`) for the number of the entity or of one of its ancestors,
    /// as a pattern.
    private func numberPattern(_ entity: EntityDescription, underscore: Bool) -> String {
        (underscore ? "Z_" : "Z") + "(" + lineage(entity).map(String.init).joined(separator: "|") + ")"
    }

    private mutating func bindManyToMany(
        _ entity: EntityDescription, _ relationship: RelationshipDescription, _ destination: EntityDescription,
        _ inverse: RelationshipDescription
    ) {
        guard case .joinTable(let view, let source, let target, let position) = relationship.storage else { return }
        // Either side may own the table; its name has the number of the entity declaring the
        // owning relationship (the entity or an ancestor) and that relationship's name.
        let names =
            lineage(entity).map { "Z_\($0)" + relationship.name.uppercased() }
            + lineage(destination).map { "Z_\($0)" + inverse.name.uppercased() }
        let ownKeys = numberPattern(entity, underscore: true) + Self.literal(inverse.name) + "[0-9]*"
        let otherKeys = numberPattern(destination, underscore: true) + Self.literal(relationship.name) + "[0-9]*"
        // A relationship that is its own inverse (`friends` ↔ `friends`): both columns answer to
        // one pattern, `Z_1FRIENDS` and `Z_1FRIENDS1`, and a link is the same whichever way round.
        let isOwnInverse = ownKeys == otherKeys
        let store = names.first { storeTables[$0] != nil }
        let keyColumns = store.map { store in
            isOwnInverse
                ? self.columns(of: store).filter { Self.matches($0, ownKeys) }.sorted()
                : [column(store, matching: ownKeys), column(store, matching: otherKeys)].compactMap { $0 }
        }
        guard let store, let keyColumns, keyColumns.count == 2, keyColumns[0] != keyColumns[1] else {
            mismatches.append(
                "no join table of the store links \(entity.name).\(relationship.name) and \(destination.name).\(inverse.name)"
            )
            statements.append(
                "CREATE TEMP VIEW \(Self.quoted(view)) AS SELECT NULL AS \(Self.quoted(source)), NULL AS \(Self.quoted(target)) WHERE 0"
            )
            return
        }
        let (own, other) = (keyColumns[0], keyColumns[1])
        explain(store, [own, other])
        var select = [
            "\(Self.quoted(own)) AS \(Self.quoted(source))", "\(Self.quoted(other)) AS \(Self.quoted(target))",
        ]
        var positions: [(view: String, store: String)] = []
        // Each side's positions order its own members: the column named after their keys' column.
        let inverseStorage = inverse.storage
        for (column, members) in [(position, other), (joinPosition(inverseStorage), own)] {
            guard let column else { continue }
            guard let stored = self.column(store, matching: "Z_FOK_" + Self.literal(String(members.dropFirst(2))))
            else {
                mismatches.append("the store's join table \(store) has no positions for \(column)")
                continue
            }
            explain(store, [stored])
            positions.append((column, stored))
        }
        for (column, stored) in positions { select.append("\(Self.quoted(stored)) AS \(Self.quoted(column))") }
        let quotedView = Self.quoted(view)
        let table = Self.quoted(store)
        var body = "SELECT \(select.joined(separator: ", ")) FROM \(table)"
        var row =
            "\(Self.quoted(own)) = OLD.\(Self.quoted(source)) AND \(Self.quoted(other)) = OLD.\(Self.quoted(target))"
        if isOwnInverse && positions.isEmpty {
            // Each link read both ways, however the store keeps it (the runtime writes both rows,
            // as it does in its own layout); removing a link removes either row.
            body +=
                " UNION SELECT \(Self.quoted(other)), \(Self.quoted(own)) FROM \(table)"
            row =
                "(\(row)) OR (\(Self.quoted(own)) = OLD.\(Self.quoted(target)) AND \(Self.quoted(other)) = OLD.\(Self.quoted(source)))"
        }
        statements.append("CREATE TEMP VIEW \(quotedView) AS \(body)")
        let columns = ([own, other] + positions.map(\.store)).map(Self.quoted).joined(separator: ", ")
        let values =
            (["NEW." + Self.quoted(source), "NEW." + Self.quoted(target)]
            + positions.map { Self.position("NEW." + Self.quoted($0.view)) }).joined(separator: ", ")
        statements.append(
            "CREATE TEMP TRIGGER \(Self.quoted(view + "_modelgen_insert")) INSTEAD OF INSERT ON \(quotedView) BEGIN "
                + "SELECT modelgen_row(); INSERT OR IGNORE INTO \(table) (\(columns)) VALUES (\(values)); END")
        statements.append(
            "CREATE TEMP TRIGGER \(Self.quoted(view + "_modelgen_delete")) INSTEAD OF DELETE ON \(quotedView) BEGIN "
                + "SELECT modelgen_row(); DELETE FROM \(table) WHERE \(row); END")
        for (column, stored) in positions {
            statements.append(
                "CREATE TEMP TRIGGER \(Self.quoted(view + "_modelgen_" + column)) INSTEAD OF UPDATE OF \(Self.quoted(column)) ON \(quotedView) BEGIN "
                    + "UPDATE \(table) SET \(Self.quoted(stored)) = \(Self.position("NEW." + Self.quoted(column))) WHERE \(row); END"
            )
        }
    }

    private func joinPosition(_ storage: RelationshipDescription.Storage) -> String? {
        if case .joinTable(_, _, _, let position) = storage { position } else { nil }
    }

    /// R8: the owner's key in the destination's table, `Z<n><NAME>`.
    private mutating func bindHiddenKey(
        _ entity: EntityDescription, _ relationship: RelationshipDescription, _ destination: EntityDescription
    ) {
        guard case .joinTable(let view, let source, let target, let position) = relationship.storage else { return }
        let destinationTable = hierarchy.table(of: destination.entityID)?.storeName ?? Self.storeName(destination.name)
        guard
            let hidden = column(
                destinationTable, matching: numberPattern(entity, underscore: false) + Self.literal(relationship.name))
        else {
            mismatches.append(
                "the store keeps \(entity.name).\(relationship.name) nowhere (no key in \(destinationTable))")
            statements.append(
                "CREATE TEMP VIEW \(Self.quoted(view)) AS SELECT NULL AS \(Self.quoted(source)), NULL AS \(Self.quoted(target)) WHERE 0"
            )
            return
        }
        explain(destinationTable, [hidden])
        let order = position.flatMap { _ in
            column(destinationTable, matching: "Z_FOK_" + Self.literal(String(hidden.dropFirst())))
        }
        if let order { explain(destinationTable, [order]) }
        let numbers = hierarchy.numbers(fetching: destination).map(String.init).joined(separator: ", ")
        var select = ["\(Self.quoted(hidden)) AS \(Self.quoted(source))", "Z_PK AS \(Self.quoted(target))"]
        if let position { select.append("\(order.map(Self.quoted) ?? "NULL") AS \(Self.quoted(position))") }
        let quotedView = Self.quoted(view)
        let table = Self.quoted(destinationTable)
        statements.append(
            "CREATE TEMP VIEW \(quotedView) AS SELECT \(select.joined(separator: ", ")) FROM \(table) "
                + "WHERE \(Self.quoted(hidden)) IS NOT NULL AND Z_ENT IN (\(numbers))")
        let clearOrder = order.map { ", \(Self.quoted($0)) = NULL" } ?? ""
        statements.append(
            "CREATE TEMP TRIGGER \(Self.quoted(view + "_modelgen_insert")) INSTEAD OF INSERT ON \(quotedView) BEGIN "
                + "SELECT modelgen_row(); UPDATE \(table) SET \(Self.quoted(hidden)) = NEW.\(Self.quoted(source)) WHERE Z_PK = NEW.\(Self.quoted(target)); END"
        )
        statements.append(
            "CREATE TEMP TRIGGER \(Self.quoted(view + "_modelgen_delete")) INSTEAD OF DELETE ON \(quotedView) BEGIN "
                + "SELECT modelgen_row(); UPDATE \(table) SET \(Self.quoted(hidden)) = NULL\(clearOrder) WHERE Z_PK = OLD.\(Self.quoted(target)) AND \(Self.quoted(hidden)) = OLD.\(Self.quoted(source)); END"
        )
        if let position, let order {
            statements.append(
                "CREATE TEMP TRIGGER \(Self.quoted(view + "_modelgen_" + position)) INSTEAD OF UPDATE OF \(Self.quoted(position)) ON \(quotedView) BEGIN "
                    + "UPDATE \(table) SET \(Self.quoted(order)) = \(Self.position("NEW." + Self.quoted(position))) WHERE Z_PK = OLD.\(Self.quoted(target)); END"
            )
        }
    }
}
