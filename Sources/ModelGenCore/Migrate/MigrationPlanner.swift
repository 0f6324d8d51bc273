/// Diff → Plan: compares two versions' relational schemas, matching tables and columns by
/// renaming identifier (`SchemaIdentities`), and decides each change's step and safety class.
public struct MigrationPlanner: Sendable {
    /// Values for new required columns without a model default: `Entity.attribute` → text.
    public var defaults: [String: String]

    public init(defaults: [String: String] = [:]) {
        self.defaults = defaults
    }

    public func plan(from old: ObjectModel, _ oldSchema: RelationalSchema, to new: ObjectModel, _ newSchema: RelationalSchema)
        -> MigrationPlan
    {
        let oldIDs = SchemaIdentities(model: old, schema: oldSchema)
        var newIDs = SchemaIdentities(model: new, schema: newSchema)
        var plan = MigrationPlan(oldSchema: oldSchema, newSchema: newSchema, steps: [], tables: [])
        planHierarchies(oldIDs, &newIDs, &plan)
        var oldByIdentity: [String: Table] = [:]
        for table in oldSchema.tables where table.kind != .metadata { oldByIdentity[oldIDs.tables[table.name]!] = table }
        // Where each old table's rows are in the new schema, by name (keys name the table).
        var newNames: [String: String] = [:]
        for table in newSchema.tables where table.kind != .metadata {
            if let previous = oldByIdentity[newIDs.tables[table.name]!] { newNames[previous.name] = table.name }
        }
        var matched: Set<String> = []
        for table in newSchema.tables where table.kind != .metadata {
            let identity = newIDs.tables[table.name]!
            if let previous = oldByIdentity[identity] {
                matched.insert(identity)
                planTable(previous, table, oldIDs, newIDs, newNames, &plan)
            } else if let copy = plan.rowCopies.first(where: { $0.to == table.name }) {
                let moved = oldIDs.mappings(copy.from).filter { copy.entities[Int64($0.entityID)] != nil }.map(\.entity).sorted()
                plan.steps.append(
                    .init(
                        code: "move-rows", safety: .rewrite, subject: table.name,
                        message: "the rows of \(moved.joined(separator: ", ")) move from \(copy.from) into the new table \(table.name), keeping their keys"))
                plan.tables.append(.create(table))
            } else {
                let code = table.kind == .join ? "add-relationship" : "add-entity"
                plan.steps.append(.init(code: code, safety: .safe, subject: table.name, message: "new table \(table.name)"))
                plan.tables.append(.create(table))
            }
        }
        for table in oldSchema.tables where table.kind != .metadata && !matched.contains(oldIDs.tables[table.name]!) {
            let code = table.kind == .join ? "drop-relationship" : "drop-entity"
            let copies = plan.rowCopies.filter { $0.from == table.name }
            // A split hierarchy's rows live on in the new tables; only the others are lost.
            let lost = oldIDs.mappings(table.name).filter { mapping in
                !mapping.isAbstract && !copies.contains { $0.entities[Int64(mapping.entityID)] != nil }
            }.map(\.entity).sorted()
            if !copies.isEmpty && lost.isEmpty {
                plan.steps.append(
                    .init(code: "split-hierarchy", safety: .rewrite, subject: table.name, message: "table \(table.name) is dropped once its rows have moved"))
            } else {
                var message = copies.isEmpty ? "table \(table.name) and its rows are dropped" : "table \(table.name) and the rows of \(lost.joined(separator: ", ")) are dropped"
                if let hint = Self.renameHint(dropped: table, plan, oldIDs, newIDs) { message += "; " + hint }
                plan.steps.append(.init(code: code, safety: .lossy, subject: table.name, message: message))
            }
            plan.tables.append(.drop(table))
        }
        planLinkCopies(oldIDs, newIDs, &plan)
        planIndexes(&plan)
        return plan
    }

    /// For a dropped entity table, when a new table of the same shape (columns of the same roles
    /// and types) is created: how to make it a rename instead (never done silently).
    private static func renameHint(dropped table: Table, _ plan: MigrationPlan, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities) -> String? {
        guard table.kind == .entity else { return nil }
        let shape = { (table: Table) in table.columns.map { "\($0.role.rawValue) \($0.type.rawValue)" }.sorted() }
        let root = { (ids: SchemaIdentities, table: String) in ids.mappings(table).min { $0.entityID < $1.entityID }?.entity }
        for case .create(let created) in plan.tables where created.kind == .entity && shape(created) == shape(table) {
            guard let oldName = root(oldIDs, table.name), let newName = root(newIDs, created.name) else { continue }
            return "if \(newName) is \(oldName) renamed, give \(newName) the renaming ID \"\(oldIDs.entity(oldName))\" in the model to keep its rows"
        }
        return nil
    }

    /// Rows change hierarchy table when entities change root. A table whose entities all come
    /// from one old table that keeps no identity of its own in the new schema (a new parent entity
    /// above existing rows) continues that table; rows of two old tables meeting in one (merging
    /// hierarchies) would need new primary keys and every key pointing at them rewritten: refused.
    private func planHierarchies(_ oldIDs: SchemaIdentities, _ newIDs: inout SchemaIdentities, _ plan: inout MigrationPlan) {
        var oldTables: [String: String] = [:]  // entity identity → old table
        for mapping in plan.oldSchema.entities { oldTables[oldIDs.entity(mapping.entity)] = mapping.table }
        let oldByIdentity = Dictionary(
            plan.oldSchema.tables.filter { $0.kind == .entity }.map { (oldIDs.tables[$0.name]!, $0.name) }, uniquingKeysWith: { first, _ in first })
        let newIdentities = Set(plan.newSchema.tables.compactMap { newIDs.tables[$0.name] })
        var continuations: [String: [(table: String, identity: String)]] = [:]  // old table → new tables that would continue it
        var leaving: [(String, String)] = []  // (old table that goes on, new table of rows leaving it)
        for table in plan.newSchema.tables where table.kind == .entity {
            let identity = newIDs.tables[table.name]!
            var origins = Set(newIDs.mappings(table.name).compactMap { oldTables[newIDs.entity($0.entity)] })
            let own = oldByIdentity[identity]
            if let own { origins.insert(own) }
            if origins.count > 1 {
                plan.steps.append(
                    .init(
                        code: "merge-hierarchies", safety: .refused, subject: table.name,
                        message: "rows of the tables \(origins.sorted().joined(separator: ", ")) would share \(table.name); their primary keys and every key pointing at them would change"))
            } else if own == nil, let origin = origins.first, let originIdentity = oldIDs.tables[origin] {
                if newIdentities.contains(originIdentity) {
                    // Sub-entities that became a root of their own: their rows leave a table that goes on.
                    leaving.append((origin, table.name))
                } else {
                    continuations[origin, default: []].append((table.name, originIdentity))
                }
            }
        }
        // One new table for an old table that lost its identity continues it; several (a root
        // removed above its sub-entities) split its rows between them.
        for (origin, tables) in continuations.sorted(by: { $0.key < $1.key }) where tables.count == 1 {
            newIDs.alias(tables[0].table, as: tables[0].identity)
            plan.steps.append(
                .init(code: "add-parent-entity", safety: .safe, subject: tables[0].table, message: "the rows of \(origin) now belong to the hierarchy of \(tables[0].table)"))
        }
        for (origin, tables) in continuations.sorted(by: { $0.key < $1.key }) where tables.count > 1 {
            for table in tables { planRowCopy(from: origin, to: table.table, oldIDs, &newIDs, &plan) }
        }
        for (origin, table) in leaving {
            planRowCopy(from: origin, to: table, oldIDs, &newIDs, &plan)
            planKeysToLeavingRows(from: origin, to: table, oldIDs, newIDs, &plan)
        }
    }

    /// Keys that point at rows leaving a table that goes on, and still point into that table
    /// afterwards, would lose their row (PostgreSQL would apply their ON DELETE action): a
    /// preflight stops the migration when any such key is set.
    private func planKeysToLeavingRows(
        from source: String, to target: String, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities, _ plan: inout MigrationPlan
    ) {
        guard let copy = plan.rowCopies.first(where: { $0.from == source && $0.to == target }) else { return }
        plan.steps += Self.keys(
            into: source, rows: copy.entities.keys.sorted(), except: target, code: "key-to-leaving-row", "moving from \(source) into \(target)",
            oldIDs, newIDs, plan)
    }

    /// A data-dependent step for each key column that points at `source` and still points there
    /// (not at `except`) in the new schema, whose preflight counts the keys set to rows of the
    /// entities `rows` (rows that leave the table or are dropped).
    private static func keys(
        into source: String, rows: [Int64], except target: String?, code: String, _ what: String, _ oldIDs: SchemaIdentities,
        _ newIDs: SchemaIdentities, _ plan: MigrationPlan
    ) -> [MigrationPlan.Step] {
        let removedRows =
            "SELECT \"_pk\" FROM \(SQLNaming.quoted(source)) WHERE \"_entity\" IN (" + rows.map(String.init).joined(separator: ", ") + ")"
        var steps: [MigrationPlan.Step] = []
        for table in plan.oldSchema.tables where table.kind != .metadata {
            let newTable = plan.newSchema.tables.first { newIDs.tables[$0.name] == oldIDs.tables[table.name] }
            for key in table.foreignKeys where key.referencedTable == source && key.columns.count == 1 {
                let column = table.columns.first { $0.name == key.columns[0] }
                // The same column in the new schema, and where its key points there.
                let identity = column.map(oldIDs.column)
                let newColumn = newTable.flatMap { newTable in newTable.columns.first { newIDs.column($0) == identity } }
                let newKey = newTable.flatMap { newTable in newTable.foreignKeys.first { $0.columns == newColumn.map { [$0.name] } } }
                guard let newKey, newKey.referencedTable != target else { continue }
                let subject = "\(table.name).\(key.columns[0])"
                steps.append(
                    .init(
                        code: code, safety: .dataDependent, subject: subject, message: "\(subject) must not point at rows \(what)",
                        preflight: "SELECT count(*) FROM \(SQLNaming.quoted(table.name)) WHERE \(SQLNaming.quoted(key.columns[0])) IN (\(removedRows))"))
            }
        }
        return steps
    }

    /// The rows of the entities of new table `target` that are in old table `source`, moved there
    /// with their keys and the values of every column the two tables share (by identity and type).
    private func planRowCopy(
        from source: String, to target: String, _ oldIDs: SchemaIdentities, _ newIDs: inout SchemaIdentities, _ plan: inout MigrationPlan
    ) {
        guard let old = plan.oldSchema.tables.first(where: { $0.name == source }),
            let new = plan.newSchema.tables.first(where: { $0.name == target }), let identity = oldIDs.tables[source]
        else { return }
        var entities: [Int64: Int64] = [:]
        for mapping in newIDs.mappings(target) {
            let wanted = newIDs.entity(mapping.entity)
            if let previous = oldIDs.mappings(source).first(where: { oldIDs.entity($0.entity) == wanted }) {
                entities[Int64(previous.entityID)] = Int64(mapping.entityID)
            }
        }
        guard !entities.isEmpty else { return }
        var oldColumns: [String: Column] = [:]
        for (column, columnIdentity) in zip(old.columns, oldIDs.columns(old)) { oldColumns[columnIdentity] = column }
        var columns: [String: String] = [:]
        var missing: [String] = []
        for (column, columnIdentity) in zip(new.columns, newIDs.columns(new)) {
            if let previous = oldColumns[columnIdentity], previous.type == column.type {
                columns[column.name] = previous.name
                continue
            }
            let requiredHere = new.checks.contains { check in
                if case .requiredFor(column.name, let ids) = check.condition { return !Set(ids).isDisjoint(with: entities.values) }
                return false
            }
            if (!column.isNullable && column.defaultValue == nil) || requiredHere { missing.append(column.name) }
        }
        guard missing.isEmpty else {
            plan.steps.append(
                .init(
                    code: "split-hierarchy", safety: .refused, subject: target,
                    message: "rows moving from \(source) into \(target) have no values for \(missing.joined(separator: ", "))"))
            return
        }
        newIDs.derive(target, from: identity)
        plan.rowCopies.append(.init(from: source, to: target, entities: entities, columns: columns))
    }

    /// Where a relationship's links are kept in one schema: a table, its two columns with the
    /// identity of the table each one's values point into, and the relationship's identities.
    private struct LinkStorage {
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
    private func planLinkCopies(_ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities, _ plan: inout MigrationPlan) {
        var dropped: [LinkStorage] = []
        var added: [LinkStorage] = []
        for change in plan.tables {
            switch change {
            case .drop(let table) where table.kind == .join:
                dropped.append(Self.joinStorage(table, oldIDs))
            case .create(let table) where table.kind == .join:
                added.append(Self.joinStorage(table, newIDs))
            case .alter(let old, let new, let sources, _, _):
                let keptNames = Set(sources.values.compactMap { source -> String? in
                    if case .column(let name) = source { return name }
                    return nil
                })
                for column in old.columns where column.role == .relationship && !keptNames.contains(column.name) {
                    if let storage = Self.keyStorage(column, in: old, oldIDs) { dropped.append(storage) }
                }
                for column in new.columns where column.role == .relationship && sources[column.name] == .nothing && column.isNullable {
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
                        && !source.relationships.isDisjoint(with: target.relationships) && Set(source.columns.map(\.points)) == pointsTo
                        && (pointsTo.count == 2 || source.runsLike(target) != nil)
                }),
                let index = plan.steps.firstIndex(where: { $0.code == "drop-relationship" && $0.subject == source.subject })
            else { continue }
            used.insert(source.subject)
            // The target's first column holds rows; its second the keys (for a key column: the
            // table's own `_pk` and the key). Columns are matched by the table they point into,
            // or for a self-relationship by which way the relationship runs.
            let rowColumn: String, keyColumn: String
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
                        isUnique: plan.newSchema.indexes.contains { $0.isUnique && $0.table == target.table && $0.parts.map(\.column) == [target.columns[1].name] }))
            let preflight = copy.preflight
            plan.steps[index] = .init(
                code: "move-links", safety: preflight == nil ? .rewrite : .dataDependent, subject: source.subject,
                message: "the links in \(source.subject) move into \(target.subject)"
                    + (preflight == nil ? "" : "; a row with more than one link stops the migration"),
                preflight: preflight)
            plan.linkCopies.append(copy)
        }
    }

    /// A join table's links; its owner column (named after the entity declaring the relationship)
    /// first.
    private static func joinStorage(_ table: Table, _ ids: SchemaIdentities) -> LinkStorage {
        var columns = table.foreignKeys.compactMap { key in
            key.columns.count == 1 ? (name: key.columns[0], points: ids.tables[key.referencedTable] ?? key.referencedTable) : nil
        }
        let relationships = table.columns.compactMap(\.source).reduce(into: Set<String>()) { $0.formUnion(ids.relationshipAndInverse($1)) }
        var storage = LinkStorage(table: table.name, columns: columns, relationships: relationships, subject: table.name, isJoinTable: true)
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
    private static func keyStorage(_ column: Column, in table: Table, _ ids: SchemaIdentities) -> LinkStorage? {
        guard let source = column.source, let key = table.foreignKeys.first(where: { $0.columns == [column.name] }),
            let own = ids.tables[table.name]
        else { return nil }
        return LinkStorage(
            table: table.name, columns: [("_pk", own), (column.name, ids.tables[key.referencedTable] ?? key.referencedTable)],
            relationships: ids.relationshipAndInverse(source), subject: "\(table.name).\(column.name)", isJoinTable: false,
            forward: ids.sourceIdentity(source), backward: ids.inverseIdentity(source))
    }

    // MARK: - Tables

    private func planTable(
        _ old: Table, _ new: Table, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities, _ newNames: [String: String],
        _ plan: inout MigrationPlan
    ) {
        var steps: [MigrationPlan.Step] = []
        var sources: [String: MigrationPlan.ColumnSource] = [:]
        var rebuild = false
        if old.name != new.name {
            steps.append(.init(code: "rename-table", safety: .safe, subject: new.name, message: "table \(old.name) is renamed \(new.name)"))
        }
        var oldColumns: [String: Column] = [:]
        for (column, identity) in zip(old.columns, oldIDs.columns(old)) { oldColumns[identity] = column }
        let newIdentities = newIDs.columns(new)
        var kept: Set<String> = []
        var convertedExactly: Set<String> = []
        for (column, identity) in zip(new.columns, newIdentities) {
            let subject = "\(new.name).\(column.name)"
            guard let previous = oldColumns[identity] else {
                // SQLite adds a column with nothing but its own checks and key in place.
                if !Self.addableInPlace(column, new) { rebuild = true }
                sources[column.name] = .nothing
                // Nullable in the table but required for some entities' rows counts as required.
                let requiredForSome = new.checks.contains {
                    if case .requiredFor(column.name, let ids) = $0.condition { return !ids.isEmpty }
                    return false
                }
                if (column.isNullable && !requiredForSome) || column.defaultValue != nil {
                    steps.append(.init(code: "add-column", safety: .safe, subject: subject, message: "new column \(subject)"))
                } else if let text = column.source.flatMap({ defaults[$0] }) {
                    if let value = Self.value(text, for: column.type) {
                        rebuild = true
                        sources[column.name] = .value(value)
                        steps.append(.init(code: "add-required-column", safety: .safe, subject: subject, message: "new required column \(subject), filled with \(text)"))
                    } else {
                        steps.append(.init(code: "invalid-default", safety: .needsInput, subject: subject, message: "'\(text)' is not a \(column.type.rawValue) value for \(subject)"))
                    }
                } else {
                    steps.append(
                        .init(
                            code: "add-required-column", safety: .needsInput, subject: subject,
                            message: "new required column \(subject) has no default: give one with --default \(column.source ?? subject)=VALUE"))
                }
                continue
            }
            // A relationship whose destination is another entity now: its keys would point at
            // unrelated rows, so they are not kept.
            if let oldKey = old.foreignKeys.first(where: { $0.columns == [previous.name] }),
                let newKey = new.foreignKeys.first(where: { $0.columns == [column.name] }),
                oldIDs.tables[oldKey.referencedTable] != newIDs.referenceIdentity(newKey.referencedTable)
            {
                rebuild = true
                kept.insert(previous.name)  // reported here, not again as dropped
                sources[column.name] = .nothing
                if column.isNullable {
                    steps.append(
                        .init(code: "change-destination", safety: .lossy, subject: subject, message: "\(subject) now points at \(newKey.referencedTable); its values are dropped"))
                } else {
                    steps.append(
                        .init(code: "change-destination", safety: .refused, subject: subject, message: "\(subject) is required and now points at \(newKey.referencedTable): its values cannot be kept"))
                }
                continue
            }
            kept.insert(previous.name)
            sources[column.name] = .column(previous.name)
            // Keys to rows that moved to another table now name that table.
            if let oldKey = old.foreignKeys.first(where: { $0.columns == [previous.name] }),
                let newKey = new.foreignKeys.first(where: { $0.columns == [column.name] }),
                newKey.referencedTable != newNames[oldKey.referencedTable, default: oldKey.referencedTable]
            {
                rebuild = true
                steps.append(
                    .init(code: "retarget-key", safety: .rewrite, subject: subject, message: "\(subject) now points at \(newKey.referencedTable), where its rows moved"))
            }
            if previous.name != column.name {
                steps.append(.init(code: "rename-column", safety: .safe, subject: subject, message: "column \(old.name).\(previous.name) is renamed \(column.name)"))
            }
            let table = SQLNaming.quoted(old.name), name = SQLNaming.quoted(previous.name)
            if previous.type != column.type {
                rebuild = true
                if let conversion = TypeConversion.make(previous.type, column.type, table: table, column: name) {
                    steps.append(
                        .init(
                            code: conversion.code, safety: conversion.safety, subject: subject,
                            message: "\(subject): \(previous.type.rawValue) → \(column.type.rawValue)", preflight: conversion.sqlitePreflight,
                            postgresPreflight: conversion.postgresPreflight))
                    sources[column.name] = .converted(previous.name)
                    // Values converted exactly already fit the new column's width check.
                    if conversion.safety == .rewrite && ["widen-type", "convert-type"].contains(conversion.code) {
                        convertedExactly.insert(column.name)
                    }
                } else {
                    steps.append(
                        .init(code: "unsupported-type-change", safety: .refused, subject: subject, message: "\(subject): \(previous.type.rawValue) → \(column.type.rawValue) is not migrated automatically yet"))
                }
            }
            if previous.isNullable && !column.isNullable {
                rebuild = true
                if let value = column.defaultValue {
                    sources[column.name] = .coalesced(previous.name, value)
                    steps.append(.init(code: "make-required", safety: .rewrite, subject: subject, message: "\(subject) becomes required; NULLs take its default"))
                } else {
                    steps.append(
                        .init(
                            code: "make-required", safety: .dataDependent, subject: subject, message: "\(subject) becomes required",
                            preflight: "SELECT count(*) FROM \(table) WHERE \(name) IS NULL"))
                }
            } else if !previous.isNullable && column.isNullable {
                rebuild = true
                steps.append(.init(code: "make-optional", safety: .rewrite, subject: subject, message: "\(subject) becomes optional"))
            }
            if previous.defaultValue != column.defaultValue {
                rebuild = true
                steps.append(.init(code: "change-default", safety: .rewrite, subject: subject, message: "\(subject) gets a new default"))
            }
        }
        // Columns of sub-entities whose rows move to a table of their own go with those rows.
        let copies = plan.rowCopies.filter { $0.from == old.name }
        let movedColumns = Set(copies.flatMap(\.columns.values))
        let leavingEntities = Set(oldIDs.mappings(old.name).filter { mapping in copies.contains { $0.entities[Int64(mapping.entityID)] != nil } }.map(\.entity))
        for column in old.columns where !kept.contains(column.name) {
            if movedColumns.contains(column.name), let declaring = column.source?.split(separator: ".").first, leavingEntities.contains(String(declaring)) {
                rebuild = true
                continue
            }
            if !Self.droppableInPlace(column, old, plan.oldSchema.indexes) { rebuild = true }
            let code = switch column.role {
            case .attribute: "drop-attribute"
            case .relationship, .join: "drop-relationship"
            case .position: "drop-order"
            default: "drop-column"
            }
            var message = "column \(old.name).\(column.name) and its values are dropped"
            // A new column of the same kind and type looks like a rename: never made silently.
            if let twin = new.columns.first(where: { candidate in
                candidate.role == column.role && candidate.type == column.type && sources[candidate.name] == .nothing
            }), let attribute = column.source?.split(separator: ".").dropFirst().first, let newName = twin.source?.split(separator: ".").dropFirst().first {
                message += "; if \(newName) is \(attribute) renamed, give \(newName) the renaming ID \"\(attribute)\" in the model to keep the values"
            }
            steps.append(.init(code: code, safety: .lossy, subject: "\(old.name).\(column.name)", message: message))
        }
        // Entity IDs: the rows' `_entity` follows its entity to its new number; rows of entities
        // that are gone are dropped.
        var keptEntities: [Int64]?
        var numbers: [Int64: Int64] = [:]
        let newNumbers = Dictionary(
            newIDs.mappings(new.name).map { (newIDs.entity($0.entity), Int64($0.entityID)) }, uniquingKeysWith: { first, _ in first })
        var gone: [String] = []
        var leaving = false
        for mapping in oldIDs.mappings(old.name) {
            if let number = newNumbers[oldIDs.entity(mapping.entity)] {
                numbers[Int64(mapping.entityID)] = number
            } else if plan.rowCopies.contains(where: { $0.from == old.name && $0.entities[Int64(mapping.entityID)] != nil }) {
                leaving = true  // its rows move to a table of their own (that table's step says so)
            } else {
                gone.append(mapping.entity)
            }
        }
        if old.columns.contains(where: { $0.role == .entity }) {
            if !gone.isEmpty || leaving {
                rebuild = true
                keptEntities = numbers.keys.sorted()
                if leaving {
                    steps.append(
                        .init(code: "split-hierarchy", safety: .rewrite, subject: new.name, message: "rows of sub-entities that became roots leave \(old.name) for tables of their own"))
                }
                for entity in gone.sorted() {
                    steps.append(.init(code: "drop-sub-entity", safety: .lossy, subject: new.name, message: "rows of \(entity) in \(old.name) are dropped"))
                }
                // Keys to the dropped rows would be left dangling (SQLite) or nulled or cascaded
                // (PostgreSQL): both engines stop alike when one is set.
                let goneIDs = oldIDs.mappings(old.name).filter { gone.contains($0.entity) }.map { Int64($0.entityID) }
                if !goneIDs.isEmpty {
                    steps += Self.keys(into: old.name, rows: goneIDs.sorted(), except: nil, code: "key-to-dropped-row", "of entities that are dropped", oldIDs, newIDs, plan)
                }
            }
            if numbers.contains(where: { $0.key != $0.value }) {
                rebuild = true
                sources["_entity"] = .renumbered("_entity", numbers)
                steps.append(.init(code: "renumber-entities", safety: .rewrite, subject: new.name, message: "\(new.name)'s entity numbers change"))
            }
        }
        // Constraints, the old table's under the new column names. Those of new columns alone
        // hold for the rows copied (NULL or the default), so only the others can stop the copy.
        let renamed = { (name: String) in sources.first { $0.value == .column(name) }?.key ?? name }
        let added = Set(new.columns.filter { column in
            switch sources[column.name] {
            case .nothing?, .value?: true
            default: false
            }
        }.map(\.name))
        // Keys compared by columns and the identity of the table they point at; what happens on
        // delete is a separate, data-independent change.
        let oldKeys = Set(old.foreignKeys.map { key in
            "\(key.columns.map(renamed))->\(oldIDs.tables[key.referencedTable] ?? key.referencedTable)\(key.referencedColumns)"
        })
        let newKeys = Set(new.foreignKeys.filter { !Set($0.columns).isSubset(of: added) }.map { key in
            "\(key.columns)->\(newIDs.referenceIdentity(key.referencedTable))\(key.referencedColumns)"
        })
        let oldActions = Set(old.foreignKeys.map { "\($0.columns.map(renamed)) \($0.onDelete.rawValue) \($0.isDeferred)" })
        let newActions = Set(new.foreignKeys.filter { !Set($0.columns).isSubset(of: added) }.map { "\($0.columns) \($0.onDelete.rawValue) \($0.isDeferred)" })
        if !newActions.isSubset(of: oldActions) && newKeys.isSubset(of: oldKeys) {
            rebuild = true
            steps.append(.init(code: "change-deletion-rule", safety: .rewrite, subject: new.name, message: "\(new.name)'s keys act differently on delete"))
        }
        let oldChecks = Set(old.checks.map { $0.condition.renamingColumn(renamed).renumberingEntities(numbers) }.filter { !Self.isWidened($0, convertedExactly) }.map { "\($0)" })
        let oldConditions = old.checks.map { $0.condition.renamingColumn(renamed).renumberingEntities(numbers) }
        let newChecks = Set(
            new.checks.map(\.condition).filter { condition in
                !added.contains(condition.column) && !Self.isWidened(condition, convertedExactly) && !Self.isWidening(condition, of: oldConditions)
            }.map { "\($0)" })
        if !newKeys.isSubset(of: oldKeys) || !newChecks.isSubset(of: oldChecks) || old.primaryKey.map(renamed) != new.primaryKey {
            rebuild = true
            steps.append(
                .init(
                    code: "change-constraints", safety: .dataDependent, subject: new.name,
                    message: "\(new.name) gets new constraints on stored values; rows that break them stop the migration"))
        } else if oldKeys != newKeys || oldChecks != Set(new.checks.filter { !added.contains($0.condition.column) }.map { "\($0.condition)" }) {
            // Only removed or relaxed constraints, or constraints on new columns.
            rebuild = true
            if !steps.contains(where: { $0.code == "add-column" || $0.code == "add-required-column" }) {
                steps.append(.init(code: "relax-constraints", safety: .rewrite, subject: new.name, message: "\(new.name) loses constraints"))
            }
        }
        // SQLite cannot rename a constraint: when a rename changes the names a fresh table gives
        // its checks and keys, the table is rebuilt.
        // (Constraints of columns added in place come with them under their own names.)
        let keyNames = { (table: Table, skipped: Set<String>) in
            Set(table.foreignKeys.filter { Set($0.columns).isDisjoint(with: skipped) }.map { SQLEmitter.foreignKeyName($0, table: table.name) })
        }
        if Set(old.checks.map(\.name)) != Set(new.checks.filter { !added.contains($0.condition.column) }.map(\.name))
            || keyNames(old, []) != keyNames(new, added)
        {
            rebuild = true
        }
        guard !steps.isEmpty else { return }
        plan.steps += steps
        plan.tables.append(.alter(old: old, new: new, sources: sources, rebuild: rebuild, keptEntityIDs: keptEntities))
    }

    /// Whether SQLite can add `column` to `table` in place (`ALTER TABLE … ADD COLUMN`): it takes
    /// NULL or a default, and is in no primary key or compound key.
    private static func addableInPlace(_ column: Column, _ table: Table) -> Bool {
        (column.isNullable || column.defaultValue != nil) && column.role != .primaryKey && !table.primaryKey.contains(column.name)
            && !table.foreignKeys.contains { $0.columns.count > 1 && $0.columns.contains(column.name) }
    }

    /// Whether SQLite (3.35 and later) can drop `column` of `table` in place: no key, check or
    /// index uses it.
    private static func droppableInPlace(_ column: Column, _ table: Table, _ indexes: [Index]) -> Bool {
        column.role != .primaryKey && !table.primaryKey.contains(column.name)
            && !table.foreignKeys.contains { $0.columns.contains(column.name) }
            && !table.checks.contains { $0.condition.column == column.name }
            && !indexes.contains { $0.table == table.name && $0.parts.contains { $0.column == column.name } }
    }

    /// Whether `condition` allows more values than an old one on its column (a list of entity
    /// numbers that grew with a new sub-entity).
    private static func isWidening(_ condition: Check.Condition, of old: [Check.Condition]) -> Bool {
        guard case .oneOf(let column, let values) = condition else { return false }
        return old.contains { previous in
            if case .oneOf(column, let previousValues) = previous { return Set(previousValues).isSubset(of: values) }
            return false
        }
    }

    /// A widened column's width check is looser by construction.
    private static func isWidened(_ condition: Check.Condition, _ widened: Set<String>) -> Bool {
        if case .integerWidth(let column, _) = condition { return widened.contains(column) }
        return false
    }

    /// A `--default` text as a value of `type`.
    static func value(_ text: String, for type: ColumnType) -> SQLValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let number = Int64(text), ColumnType.integerRange(type).contains(number) else { return nil }
            return .integer(number)
        case .double, .float:
            return Double(text).map(SQLValue.real)
        case .decimal:
            return Double(text) != nil ? .decimal(text) : nil
        case .text, .uri:
            return .text(text)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: return nil
            }
        default:
            return nil
        }
    }

    // MARK: - Indexes

    private func planIndexes(_ plan: inout MigrationPlan) {
        // Old indexes as they would read under the new table names.
        var tableNames: [String: String] = [:]
        for case .alter(let old, let new, _, _, _) in plan.tables { tableNames[old.name] = new.name }
        let dropped = Set(plan.tables.compactMap { if case .drop(let table) = $0 { table.name } else { nil } })
        let old = plan.oldSchema.indexes.filter { !dropped.contains($0.table) }.map { index in
            var copy = index
            copy.table = tableNames[index.table] ?? index.table
            return copy
        }
        for index in old where !plan.newSchema.indexes.contains(index) {
            plan.steps.append(.init(code: "drop-index", safety: .safe, subject: index.name, message: "index \(index.name) is dropped"))
        }
        let created = Set(plan.tables.compactMap { if case .create(let table) = $0 { table.name } else { nil } })
        for index in plan.newSchema.indexes where !old.contains(index) && !created.contains(index.table) {
            guard index.isUnique else {
                plan.steps.append(.init(code: "add-index", safety: .safe, subject: index.name, message: "new index \(index.name)"))
                continue
            }
            let alteration = plan.tables.lazy.compactMap { change -> (String, [String: MigrationPlan.ColumnSource])? in
                if case .alter(let old, let new, let sources, _, _) = change, new.name == index.table { return (old.name, sources) }
                return nil
            }.first
            let source = alteration?.0 ?? index.table
            let sources = alteration?.1 ?? [:]
            guard let preflight = Self.duplicates(index, in: source, sources, .sqlite),
                let postgresPreflight = Self.duplicates(index, in: source, sources, .postgres)
            else {
                // A new column starts NULL (or takes moved links, whose step checks them): no collision.
                plan.steps.append(.init(code: "add-index", safety: .safe, subject: index.name, message: "new unique index \(index.name) on a new column"))
                continue
            }
            plan.steps.append(
                .init(
                    code: "add-uniqueness-constraint", safety: .dataDependent, subject: index.name,
                    message: "new unique index \(index.name); duplicates stop the migration", preflight: preflight,
                    postgresPreflight: postgresPreflight))
        }
    }

    /// The query counting the rows of the old table `table` that would collide under the new
    /// unique `index` (rows with a NULL part never do), with the values each part will take;
    /// nil when a part is a new column without values.
    private static func duplicates(
        _ index: Index, in table: String, _ sources: [String: MigrationPlan.ColumnSource], _ dialect: SQLDialect
    ) -> String? {
        var columns: [String] = []
        for part in index.parts {
            switch sources[part.column] {
            case nil: columns.append(SQLNaming.quoted(part.column))
            case .column(let name)?, .converted(let name)?, .renumbered(let name, _)?: columns.append(SQLNaming.quoted(name))
            case .coalesced(let name, let value)?: columns.append("coalesce(\(SQLNaming.quoted(name)), \(dialect.literal(value)))")
            case .value(let value)?: columns.append(dialect.literal(value))
            case .nothing?: return nil
            }
        }
        var filter = columns.map { "\($0) IS NOT NULL" }
        if var entityIDs = index.entityIDs {
            // The rows' entity numbers before any renumbering.
            if case .renumbered(_, let numbers)? = sources["_entity"] {
                let wanted = Set(entityIDs)
                entityIDs = numbers.filter { wanted.contains($0.value) }.map(\.key).sorted()
            }
            if entityIDs.isEmpty { return "SELECT 0" }  // no stored rows of those entities
            filter.append("\"_entity\" IN (" + entityIDs.map(String.init).joined(separator: ", ") + ")")
        }
        return "SELECT count(*) FROM (SELECT 1 FROM \(SQLNaming.quoted(table)) WHERE \(filter.joined(separator: " AND ")) GROUP BY "
            + columns.joined(separator: ", ") + " HAVING count(*) > 1) AS \"duplicates\""
    }
}

extension ColumnType {
    static func integerRange(_ type: ColumnType) -> ClosedRange<Int64> {
        switch type {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }
}

extension Check.Condition {
    /// The column the condition is about.
    var column: String {
        switch self {
        case .oneOf(let column, _), .range(let column, _, _), .length(let column, _, _), .integerWidth(let column, _),
            .requiredFor(let column, _), .matches(let column, _), .isBoolean(let column), .byteCount(let column, _):
            column
        }
    }

    /// The same condition about the column `rename` gives for this one's.
    func renamingColumn(_ rename: (String) -> String) -> Check.Condition {
        switch self {
        case .oneOf(let column, let values): .oneOf(column: rename(column), values: values)
        case .range(let column, let minimum, let maximum): .range(column: rename(column), minimum: minimum, maximum: maximum)
        case .length(let column, let minimum, let maximum): .length(column: rename(column), minimum: minimum, maximum: maximum)
        case .integerWidth(let column, let type): .integerWidth(column: rename(column), type: type)
        case .requiredFor(let column, let entityIDs): .requiredFor(column: rename(column), entityIDs: entityIDs)
        case .matches(let column, let pattern): .matches(column: rename(column), pattern: pattern)
        case .isBoolean(let column): .isBoolean(column: rename(column))
        case .byteCount(let column, let bytes): .byteCount(column: rename(column), bytes: bytes)
        }
    }
}

extension Check.Condition {
    /// The same condition with entity numbers old → new (`_entity` checks, required sub-entity
    /// attributes).
    func renumberingEntities(_ numbers: [Int64: Int64]) -> Check.Condition {
        switch self {
        case .oneOf("_entity", let values): .oneOf(column: "_entity", values: values.map { numbers[$0] ?? $0 }.sorted())
        case .requiredFor(let column, let entityIDs): .requiredFor(column: column, entityIDs: entityIDs.map { numbers[$0] ?? $0 }.sorted())
        default: self
        }
    }
}
