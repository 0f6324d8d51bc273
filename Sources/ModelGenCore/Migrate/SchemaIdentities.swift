/// What makes a table or a column "the same" across two model versions: Core Data's renaming
/// identifier (`elementID` in the XML, else the name) of the entity or property it stores, so a
/// renamed entity or attribute keeps its data. Columns without a source (`_pk`, `_entity`,
/// `_version`, metadata) are the same by name.
struct SchemaIdentities {
    /// table name → identity
    private(set) var tables: [String: String] = [:]
    private var entities: [String: String] = [:]
    private var properties: [String: String] = [:]
    private var mappingsByTable: [String: [EntityMapping]] = [:]
    /// `Entity.relationship` → its inverse's `Entity.relationship`.
    private var inverses: [String: String] = [:]

    init(model: ObjectModel, schema: RelationalSchema) {
        for entity in model.entities {
            entities[entity.name] = entity.elementID ?? entity.name
            for attribute in entity.attributes {
                properties[entity.name + "." + attribute.name] = attribute.elementID ?? attribute.name
            }
            for relationship in entity.relationships {
                properties[entity.name + "." + relationship.name] = relationship.elementID ?? relationship.name
                if let inverse = relationship.inverseName, let inverseEntity = relationship.inverseEntityName {
                    inverses[entity.name + "." + relationship.name] = inverseEntity + "." + inverse
                }
            }
        }
        for mapping in schema.entities { mappingsByTable[mapping.table, default: []].append(mapping) }
        let roots = Set(model.entities.filter { $0.parent == nil }.map(\.name))
        for table in schema.tables {
            switch table.kind {
            case .entity:
                let owner = schema.entities.first { $0.table == table.name && roots.contains($0.entity) }
                tables[table.name] = "entity:" + (owner.map { entities[$0.entity] ?? $0.entity } ?? table.name)
            case .join:
                // The relationship and its inverse, whichever side owns the table: an entity
                // renamed so that the other side sorts first keeps its links.
                tables[table.name] =
                    "join:"
                    + Set(table.columns.compactMap(\.source).flatMap(relationshipAndInverse)).sorted().joined(
                        separator: "+")
            case .metadata:
                tables[table.name] = "metadata"
            }
        }
    }

    /// Makes `table` the same table as one of the other version with `identity` (a hierarchy
    /// whose rows live under a new root entity's table).
    mutating func alias(_ table: String, as identity: String) { tables[table] = identity }

    /// Tables whose rows come from a table of the other version (identity), keys included: keys
    /// pointing at them are the keys that pointed at those rows there.
    private var derived: [String: String] = [:]

    mutating func derive(_ table: String, from identity: String) { derived[table] = identity }

    /// The identity keys pointing at `table` are compared by.
    func referenceIdentity(_ table: String) -> String { derived[table] ?? tables[table] ?? table }

    /// The identities of the relationship `source` (`Entity.relationship`) and of its inverse.
    func relationshipAndInverse(_ source: String) -> Set<String> {
        var result: Set<String> = [sourceIdentity(source)]
        if let inverse = inverses[source] { result.insert(sourceIdentity(inverse)) }
        return result
    }

    /// The identity of the inverse of the relationship `source` (`Entity.relationship`), if it has one.
    func inverseIdentity(_ source: String) -> String? { inverses[source].map(sourceIdentity) }

    /// The renaming identifier of the entity `name`.
    func entity(_ name: String) -> String { entities[name] ?? name }

    /// The entities stored in `table`.
    func mappings(_ table: String) -> [EntityMapping] { mappingsByTable[table] ?? [] }

    /// `Entity.property[.member]` with each part replaced by its renaming identifier.
    func sourceIdentity(_ source: String) -> String {
        let parts = source.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else { return source }
        let entity = entities[parts[0]] ?? parts[0]
        let property = properties[parts[0] + "." + parts[1]] ?? parts[1]
        return ([entity, property] + parts.dropFirst(2)).joined(separator: ".")
    }

    func column(_ column: Column) -> String {
        guard let source = column.source else { return "name:" + column.name }
        let identity = sourceIdentity(source)
        // An entity table's attribute and key columns belong to the hierarchy, not to the entity
        // declaring them: a property moved up or down the hierarchy keeps its column.
        if column.role == .attribute || column.role == .relationship, let dot = identity.firstIndex(of: ".") {
            return "\(column.role.rawValue):" + identity[identity.index(after: dot)...]
        }
        return "\(column.role.rawValue):" + identity
    }

    /// The columns of `table` by `declaredColumn`, those whose declared identity is their own.
    func columnsByDeclaration(_ table: Table) -> [String: Column] {
        var result: [String: Column] = [:]
        var repeated: Set<String> = []
        for column in table.columns {
            let identity = declaredColumn(column)
            if result.updateValue(column, forKey: identity) != nil { repeated.insert(identity) }
        }
        for identity in repeated { result[identity] = nil }
        return result
    }

    /// `column`'s identity with the entity declaring it (`attribute:Film.status`): what tells apart
    /// same-named properties of sibling sub-entities, which share a table.
    func declaredColumn(_ column: Column) -> String {
        guard let source = column.source else { return "name:" + column.name }
        return "\(column.role.rawValue):" + sourceIdentity(source)
    }

    /// The identity of each column of `table`, in order. A join table's key columns also name the
    /// table they point into (the two columns of a relationship without inverse share a source);
    /// same-named properties of several entities of the table are told apart by their entity
    /// (`declaredColumn`); columns that still share one (a self-relationship's) by order.
    func columns(_ table: Table) -> [String] {
        var seen: [String: Int] = [:]
        // Short identities shared by properties of different entities (siblings' same names).
        var declaring: [String: Set<String>] = [:]
        for item in table.columns where item.role == .attribute || item.role == .relationship {
            declaring[column(item), default: []].insert(declaredColumn(item))
        }
        return table.columns.map { item in
            var identity = column(item)
            if (declaring[identity]?.count ?? 0) > 1 { identity = declaredColumn(item) }
            if item.role == .join, let key = table.foreignKeys.first(where: { $0.columns == [item.name] }) {
                // Named by the table it points into, not by the owning side (which may change).
                let pair = item.source.map { relationshipAndInverse($0).sorted().joined(separator: "+") } ?? item.name
                identity = "join:" + pair + "->" + referenceIdentity(key.referencedTable)
            }
            let count = seen[identity, default: 0]
            seen[identity] = count + 1
            return count == 0 ? identity : identity + "#\(count)"
        }
    }
}
