/// Plan: links that follow a relationship whose storage changes.
extension MigrationPlanner {
    /// Where a relationship's links are kept in one schema: a table, its two columns with the
    /// identity of the table each one's values point into, and the relationship's identities.
    struct LinkStorage {
        var table: String
        /// The column holding rows of the entity declaring the storage's relationship, then the
        /// one holding its destinations, each with the identity of the table it points into.
        var columns: [(name: String, points: String)]
        var relationships: Set<String>
        /// The step that reports the old storage dropped, or the new column added.
        var subject: String
        var isJoinTable: Bool
        /// The identities of the storage's relationship and of its inverse (which way its columns
        /// run, for a self-relationship whose columns point into one table).
        var forward: String?
        var backward: String?

        /// Whether `other`'s columns run the same way as these (nil: cannot tell).
        func runsLike(_ other: LinkStorage) -> Bool? {
            if let forward, forward == other.forward { return true }
            if let backward, backward == other.backward { return true }
            if let forward, forward == other.backward { return false }
            if let backward, backward == other.forward { return false }
            return nil
        }
    }

    /// A relationship whose links change storage keeps them: a to-one becoming many-to-many
    /// (key → join table, a rewrite), many-to-many becoming one-to-many and a key moving to the
    /// other side between one-to-one and one-to-many (join table or key → key, data-dependent:
    /// a row with more than one link stops the migration). Core Data's lightweight migration
    /// keeps such links too.
    func planLinkCopies(_ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities, _ plan: inout MigrationPlan) {
        var dropped: [LinkStorage] = []
        var added: [LinkStorage] = []
        for change in plan.tables {
            switch change {
            case .drop(let table) where table.kind == .join:
                dropped.append(Self.joinStorage(table, oldIDs))
            case .create(let table) where table.kind == .join:
                added.append(Self.joinStorage(table, newIDs))
            case .alter(let old, let new, let sources, _, _):
                let keptNames = Set(
                    sources.values.compactMap { source -> String? in
                        if case .column(let name) = source { return name }
                        return nil
                    })
                for column in old.columns where column.role == .relationship && !keptNames.contains(column.name) {
                    if let storage = Self.keyStorage(column, in: old, oldIDs) { dropped.append(storage) }
                }
                for column in new.columns
                where column.role == .relationship && sources[column.name] == .nothing && column.isNullable {
                    if let storage = Self.keyStorage(column, in: new, newIDs) { added.append(storage) }
                }
            default:
                continue
            }
        }
        var used: Set<String> = []
        for target in added {
            let pointsTo = Set(target.columns.map(\.points))
            guard target.columns.count == 2,
                let source = dropped.first(where: { source in
                    !used.contains(source.subject) && !(source.isJoinTable && target.isJoinTable)
                        && !source.relationships.isDisjoint(with: target.relationships)
                        && Set(source.columns.map(\.points)) == pointsTo
                        && (pointsTo.count == 2 || source.runsLike(target) != nil)
                }),
                let index = plan.steps.firstIndex(where: {
                    $0.code == .dropRelationship && $0.subject == source.subject
                })
            else { continue }
            used.insert(source.subject)
            // The target's first column holds rows; its second the keys (for a key column: the
            // table's own `_pk` and the key). Columns are matched by the table they point into,
            // or for a self-relationship by which way the relationship runs.
            let rowColumn: String
            let keyColumn: String
            if pointsTo.count == 2 {
                rowColumn = source.columns.first { $0.points == target.columns[0].points }!.name
                keyColumn = source.columns.first { $0.points == target.columns[1].points }!.name
            } else {
                let same = source.runsLike(target)!
                rowColumn = source.columns[same ? 0 : 1].name
                keyColumn = source.columns[same ? 1 : 0].name
            }
            let copy = MigrationPlan.LinkCopy(
                table: source.table, rowColumn: rowColumn, keyColumn: keyColumn,
                target: target.isJoinTable
                    ? .joinTable(target.table, rowColumn: target.columns[0].name, keyColumn: target.columns[1].name)
                    : .foreignKey(
                        table: target.table, column: target.columns[1].name,
                        isUnique: plan.newSchema.indexes.contains {
                            $0.isUnique && $0.table == target.table
                                && $0.parts.map(\.column) == [target.columns[1].name]
                        }))
            let preflight = copy.preflight
            plan.steps[index] = .init(
                code: .moveLinks, safety: preflight == nil ? .rewrite : .dataDependent, subject: source.subject,
                message: "the links in \(source.subject) move into \(target.subject)"
                    + (preflight == nil ? "" : "; a row with more than one link stops the migration"),
                preflight: preflight)
            plan.linkCopies.append(copy)
        }
    }

    /// A join table's links; its owner column (named after the entity declaring the relationship)
    /// first.
    static func joinStorage(_ table: Table, _ ids: SchemaIdentities) -> LinkStorage {
        var columns = table.foreignKeys.compactMap { key in
            key.columns.count == 1
                ? (name: key.columns[0], points: ids.tables[key.referencedTable] ?? key.referencedTable) : nil
        }
        let relationships = table.columns.compactMap(\.source).reduce(into: Set<String>()) {
            $0.formUnion(ids.relationshipAndInverse($1))
        }
        var storage = LinkStorage(
            table: table.name, columns: columns, relationships: relationships, subject: table.name, isJoinTable: true)
        let sources = Set(table.columns.filter { $0.role == .join }.compactMap(\.source))
        guard sources.count == 1, let source = sources.first, columns.count == 2 else { return storage }
        let owner = SQLNaming.fitted(SQLNaming.snakeCase(String(source.prefix { $0 != "." })) + "_pk")
        guard columns.filter({ $0.name == owner }).count == 1 else { return storage }
        if columns[1].name == owner { columns.swapAt(0, 1) }
        storage.columns = columns
        storage.forward = ids.sourceIdentity(source)
        storage.backward = ids.inverseIdentity(source)
        return storage
    }

    /// An entity table's key column's links: the row's `_pk` and the key.
    static func keyStorage(_ column: Column, in table: Table, _ ids: SchemaIdentities) -> LinkStorage? {
        guard let source = column.source, let key = table.foreignKeys.first(where: { $0.columns == [column.name] }),
            let own = ids.tables[table.name]
        else { return nil }
        return LinkStorage(
            table: table.name,
            columns: [("_pk", own), (column.name, ids.tables[key.referencedTable] ?? key.referencedTable)],
            relationships: ids.relationshipAndInverse(source), subject: "\(table.name).\(column.name)",
            isJoinTable: false,
            forward: ids.sourceIdentity(source), backward: ids.inverseIdentity(source))
    }
}

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let moveLinks: Self = "move-links"
}
