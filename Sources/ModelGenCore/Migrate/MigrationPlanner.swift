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
        // A property that gained or lost a same-named sibling has its identity with its entity on
        // one side only: found by that.
        let oldDeclared = oldIDs.columnsByDeclaration(old)
        let newIdentities = newIDs.columns(new)
        var kept: Set<String> = []
        var convertedExactly: Set<String> = []
        for (column, identity) in zip(new.columns, newIdentities) {
            let subject = "\(new.name).\(column.name)"
            guard let previous = oldColumns[identity] ?? oldDeclared[newIDs.declaredColumn(column)] else {
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
                            message: "\(subject): \(previous.type.rawValue) → \(column.type.rawValue)"
                                + (conversion.sqlitePreflight == nil ? "" : "; a value that does not convert exactly stops the migration"),
                            preflight: conversion.sqlitePreflight,
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
                            code: "make-required", safety: .dataDependent, subject: subject,
                            message: "\(subject) becomes required; a row where it is NULL stops the migration",
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
            if let hint = Self.renameHint(dropped: column, new.columns.filter { sources[$0.name] == .nothing }) { message += "; " + hint }
            steps.append(.init(code: code, safety: .lossy, subject: "\(old.name).\(column.name)", message: message))
        }
        // Entity IDs: the rows' `_entity` follows its entity to its new number; rows of entities
        // that are gone are dropped.
        var keptEntities: [Int64]?
        var numbers: [Int64: Int64] = [:]
        let newNumbers = Dictionary(
            newIDs.mappings(new.name).map { (newIDs.entity($0.entity), Int64($0.entityID)) }, uniquingKeysWith: { first, _ in first })
        var gone: [String] = []
        for mapping in oldIDs.mappings(old.name) {
            if let number = newNumbers[oldIDs.entity(mapping.entity)] {
                numbers[Int64(mapping.entityID)] = number
            } else if !leavingEntities.contains(mapping.entity) {  // (leaving rows: the new table's step)
                gone.append(mapping.entity)
            }
        }
        let leaving = !leavingEntities.isEmpty
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
}
