/// Diff → Plan: compares two versions' relational schemas, matching tables and columns by
/// renaming identifier (`SchemaIdentities`), and decides each change's step and safety class.
public struct MigrationPlanner: Sendable {
    /// Values for new required columns without a model default: `Entity.attribute` → text.
    public var defaults: [String: String]

    public init(defaults: [String: String] = [:]) {
        self.defaults = defaults
    }

    public func plan(
        from old: ObjectModel, _ oldSchema: RelationalSchema, to new: ObjectModel, _ newSchema: RelationalSchema
    )
        -> MigrationPlan
    {
        let oldIDs = SchemaIdentities(model: old, schema: oldSchema)
        var newIDs = SchemaIdentities(model: new, schema: newSchema)
        var plan = MigrationPlan(oldSchema: oldSchema, newSchema: newSchema, steps: [], tables: [])
        planHierarchies(oldIDs, &newIDs, &plan)
        var oldByIdentity: [String: Table] = [:]
        for table in oldSchema.tables where table.kind != .metadata {
            oldByIdentity[oldIDs.tables[table.name]!] = table
        }
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
                let moved = oldIDs.mappings(copy.from).filter { copy.entities[Int64($0.entityID)] != nil }.map(\.entity)
                    .sorted()
                plan.steps.append(
                    .init(
                        code: .moveRows, safety: .rewrite, subject: table.name,
                        message:
                            "the rows of \(moved.joined(separator: ", ")) move from \(copy.from) into the new table \(table.name), keeping their keys"
                    ))
                plan.tables.append(.create(table))
            } else {
                let code: MigrationPlan.Step.Code = table.kind == .join ? .addRelationship : .addEntity
                plan.steps.append(
                    .init(code: code, safety: .safe, subject: table.name, message: "new table \(table.name)"))
                plan.tables.append(.create(table))
            }
        }
        for table in oldSchema.tables where table.kind != .metadata && !matched.contains(oldIDs.tables[table.name]!) {
            let code: MigrationPlan.Step.Code = table.kind == .join ? .dropRelationship : .dropEntity
            let copies = plan.rowCopies.filter { $0.from == table.name }
            // A split hierarchy's rows live on in the new tables; only the others are lost.
            let lost = oldIDs.mappings(table.name).filter { mapping in
                !mapping.isAbstract && !copies.contains { $0.entities[Int64(mapping.entityID)] != nil }
            }.map(\.entity).sorted()
            if !copies.isEmpty && lost.isEmpty {
                plan.steps.append(
                    .init(
                        code: .splitHierarchy, safety: .rewrite, subject: table.name,
                        message: "table \(table.name) is dropped once its rows have moved"))
            } else {
                var message =
                    copies.isEmpty
                    ? "table \(table.name) and its rows are dropped"
                    : "table \(table.name) and the rows of \(lost.joined(separator: ", ")) are dropped"
                if let hint = Self.renameHint(dropped: table, plan, oldIDs, newIDs) { message += "; " + hint }
                plan.steps.append(.init(code: code, safety: .lossy, subject: table.name, message: message))
            }
            plan.tables.append(.drop(table))
        }
        planLinkCopies(oldIDs, newIDs, &plan)
        planIndexes(&plan)
        return plan
    }

    /// Whether SQLite can add `column` to `table` in place (`ALTER TABLE … ADD COLUMN`): it takes
    /// NULL or a default, and is in no primary key or compound key.
    static func addableInPlace(_ column: Column, _ table: Table) -> Bool {
        (column.isNullable || column.defaultValue != nil) && column.role != .primaryKey
            && !table.primaryKey.contains(column.name)
            && !table.foreignKeys.contains { $0.columns.count > 1 && $0.columns.contains(column.name) }
    }

    /// Whether SQLite (3.35 and later) can drop `column` of `table` in place: no key, check or
    /// index uses it.
    static func droppableInPlace(_ column: Column, _ table: Table, _ indexes: [Index]) -> Bool {
        column.role != .primaryKey && !table.primaryKey.contains(column.name)
            && !table.foreignKeys.contains { $0.columns.contains(column.name) }
            && !table.checks.contains { $0.condition.column == column.name }
            && !indexes.contains { $0.table == table.name && $0.parts.contains { $0.column == column.name } }
    }

    /// Whether `condition` allows more values than an old one on its column (a list of entity
    /// numbers that grew with a new sub-entity).
    static func isWidening(_ condition: Check.Condition, of old: [Check.Condition]) -> Bool {
        guard case .oneOf(let column, let values) = condition else { return false }
        return old.contains { previous in
            if case .oneOf(column, let previousValues) = previous { return Set(previousValues).isSubset(of: values) }
            return false
        }
    }

    /// A widened column's width check is looser by construction.
    static func isWidened(_ condition: Check.Condition, _ widened: Set<String>) -> Bool {
        if case .integerWidth(let column, _) = condition { return widened.contains(column) }
        return false
    }

    /// What a `--default` text fills a column of `type` with: `uuid()` (a UUID column) and
    /// `now()` (a date column) make a value per row; any other text is a constant.
    static func fill(_ text: String, for type: ColumnType) -> MigrationPlan.ColumnSource? {
        if let generated = MigrationPlan.GeneratedValue(rawValue: text),
            (generated == .uuid && type == .uuid) || (generated == .now && type == .date)
        {
            return .generated(generated)
        }
        return value(text, for: type).map(MigrationPlan.ColumnSource.value)
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
        case .date:
            return (DateText.iso8601Interval(text) ?? DateText.referenceInterval(text)).map(SQLValue.date)
        case .uuid:
            return ValueReader.isUUID(text) ? .uuid(text.uppercased()) : nil
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

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let addEntity: Self = "add-entity"
    static let addRelationship: Self = "add-relationship"
    static let dropEntity: Self = "drop-entity"
    static let dropRelationship: Self = "drop-relationship"
    static let moveRows: Self = "move-rows"
    static let splitHierarchy: Self = "split-hierarchy"
}
