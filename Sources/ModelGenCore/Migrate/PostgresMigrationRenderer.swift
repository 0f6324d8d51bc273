/// Render (PostgreSQL): a `MigrationPlan` as `ALTER` statements in one transaction (PostgreSQL's
/// DDL is transactional, so no table is rebuilt).
///
/// Order: preflights (a `DO` block raising an error when its query finds rows); dropped tables;
/// the altered tables' old CHECK and FOREIGN KEY constraints; renames; row changes (entity
/// renumbering, rows of removed sub-entities, keys of relationships whose destination changed);
/// column drops, additions and changes (`USING` casts for types); new tables; the new
/// constraints; indexes; the metadata rows.
public struct PostgresMigrationRenderer: MigrationRenderer {
    public init() {}

    public func statements(_ plan: MigrationPlan) -> [String] {
        let emitter = SQLEmitter(dialect: .postgres)
        let dialect = SQLDialect.postgres
        var statements = ["BEGIN", "SET CONSTRAINTS ALL DEFERRED"]
        for step in plan.steps {
            guard let preflight = step.preflight.map(dialect.preflightQuery) else { continue }
            let message = "\(step.code) \(step.subject): \(step.message)".replacingOccurrences(of: "%", with: "%%")
            statements.append(
                "DO $modelgen$ BEGIN IF (\(preflight)) > 0 THEN RAISE EXCEPTION \(SQLNaming.literal(message)); END IF; END $modelgen$"
            )
        }
        // Rows moving to another table wait in temporary tables while the tables change.
        statements += plan.rowCopies.map(\.setAside)
        // Tables and columns whose links move elsewhere are dropped once the links are copied.
        var laterDrops: [String] = []
        for case .drop(let table) in plan.tables {
            let drop = "DROP TABLE \(SQLNaming.quoted(table.name)) CASCADE"
            if plan.linkCopies.contains(where: { $0.table == table.name }) {
                laterDrops.append(drop)
            } else {
                statements.append(drop)
            }
        }
        var altered: [(old: Table, new: Table, sources: [String: MigrationPlan.ColumnSource], kept: [Int64]?)] = []
        for case .alter(let old, let new, let sources, _, let kept) in plan.tables {
            altered.append((old, new, sources, kept))
        }
        // Old constraints go first: they name old columns and may not hold while rows change.
        for (old, new, _, _) in altered where Self.constraintsChange(old, new) {
            for check in old.checks where emitter.renderedCondition(check.condition, in: old) != nil {
                statements.append(
                    "ALTER TABLE \(SQLNaming.quoted(old.name)) DROP CONSTRAINT IF EXISTS \(SQLNaming.quoted(check.name))"
                )
            }
            for key in old.foreignKeys {
                statements.append(
                    "ALTER TABLE \(SQLNaming.quoted(old.name)) DROP CONSTRAINT IF EXISTS \(SQLNaming.quoted(SQLEmitter.foreignKeyName(key, table: old.name)))"
                )
            }
        }
        for (old, new, sources, kept) in altered {
            let table = SQLNaming.quoted(new.name)
            if old.name != new.name {
                statements.append("ALTER TABLE \(SQLNaming.quoted(old.name)) RENAME TO \(table)")
            }
            for column in new.columns {
                if let previous = Self.oldColumn(of: column, in: old, sources)?.name, previous != column.name {
                    statements.append(
                        "ALTER TABLE \(table) RENAME COLUMN \(SQLNaming.quoted(previous)) TO \(SQLNaming.quoted(column.name))"
                    )
                }
            }
            if let kept {
                statements.append(
                    "DELETE FROM \(table) WHERE \"_entity\" NOT IN (" + kept.map(String.init).joined(separator: ", ")
                        + ")")
            }
            let kept = Set(new.columns.compactMap { sources[$0.name]?.oldName })
            for column in old.columns where !kept.contains(column.name) {
                if plan.linkCopies.contains(where: {
                    $0.table == old.name && ($0.keyColumn == column.name || $0.rowColumn == column.name)
                }) {
                    laterDrops.append("ALTER TABLE \(table) DROP COLUMN \(SQLNaming.quoted(column.name))")
                    continue
                }
                statements.append("ALTER TABLE \(table) DROP COLUMN \(SQLNaming.quoted(column.name))")
            }
            for column in new.columns {
                let name = SQLNaming.quoted(column.name)
                switch sources[column.name] ?? .nothing {
                case .nothing, .value, .generated:
                    var definition = "ALTER TABLE \(table) ADD COLUMN \(name) \(dialect.typeName(column.type))"
                    if let filled = Self.fill(sources[column.name], dialect) {
                        // A volatile default (`gen_random_uuid()`) is evaluated once per row.
                        definition += " NOT NULL DEFAULT \(filled)"
                        statements.append(definition)
                        statements.append(
                            column.defaultValue.map {
                                "ALTER TABLE \(table) ALTER COLUMN \(name) SET DEFAULT \(dialect.literal($0))"
                            }
                                ?? "ALTER TABLE \(table) ALTER COLUMN \(name) DROP DEFAULT")
                        if column.isNullable {
                            statements.append("ALTER TABLE \(table) ALTER COLUMN \(name) DROP NOT NULL")
                        }
                        continue
                    }
                    if let value = column.defaultValue { definition += " DEFAULT \(dialect.literal(value))" }
                    if !column.isNullable { definition += " NOT NULL" }
                    statements.append(definition)
                    continue
                case .converted(let previous):
                    let type = dialect.typeName(column.type)
                    let from = old.column(named: previous)?.type ?? column.type
                    let using = dialect.rules.conversion(name, from: from, to: column.type)
                    statements.append("ALTER TABLE \(table) ALTER COLUMN \(name) TYPE \(type) USING \(using)")
                case .coalesced(_, let value):
                    statements.append("UPDATE \(table) SET \(name) = \(dialect.literal(value)) WHERE \(name) IS NULL")
                case .renumbered(_, let numbers):
                    statements.append(
                        "UPDATE \(table) SET \(name) = CASE \(name)"
                            + numbers.keys.sorted().map { " WHEN \($0) THEN \(numbers[$0]!)" }.joined()
                            + " ELSE \(name) END")
                case .column:
                    break
                }
                guard let oldColumn = Self.oldColumn(of: column, in: old, sources) else { continue }
                if oldColumn.defaultValue != column.defaultValue {
                    statements.append(
                        column.defaultValue.map {
                            "ALTER TABLE \(table) ALTER COLUMN \(name) SET DEFAULT \(dialect.literal($0))"
                        }
                            ?? "ALTER TABLE \(table) ALTER COLUMN \(name) DROP DEFAULT")
                }
                if oldColumn.isNullable != column.isNullable {
                    statements.append(
                        "ALTER TABLE \(table) ALTER COLUMN \(name) \(column.isNullable ? "DROP" : "SET") NOT NULL")
                }
            }
        }
        var created: Set<String> = []
        // Keys to tables made later are added once every new table exists (added right after
        // their own table, they named a table not made yet).
        var deferred: [(String, ForeignKey)] = []
        for case .create(let table) in plan.tables {
            statements.append(emitter.createTable(table, created: created, deferred: &deferred).withoutTerminator)
            created.insert(table.name)
        }
        for (name, key) in deferred {
            statements.append("ALTER TABLE \(SQLNaming.quoted(name)) ADD \(emitter.foreignKeyClause(key, table: name))")
        }
        for copy in plan.rowCopies { statements += [copy.copy, "DROP TABLE \(copy.holding)"] }
        for copy in plan.linkCopies {
            let table = altered.first { $0.old.name == copy.table }?.new.name ?? copy.table
            statements.append(copy.statement(from: SQLNaming.quoted(table)))
        }
        statements += laterDrops
        for (old, new, _, _) in altered where Self.constraintsChange(old, new) {
            let table = SQLNaming.quoted(new.name)
            for check in new.checks {
                guard let condition = emitter.renderedCondition(check.condition, in: new) else { continue }
                statements.append(
                    "ALTER TABLE \(table) ADD CONSTRAINT \(SQLNaming.quoted(check.name)) CHECK (\(condition))")
            }
            for key in new.foreignKeys {
                statements.append("ALTER TABLE \(table) ADD \(emitter.foreignKeyClause(key, table: new.name))")
            }
        }
        // Checked now: PostgreSQL does not index a table with checks still pending (rows copied
        // into a new join table), and nothing below changes rows.
        statements.append("SET CONSTRAINTS ALL IMMEDIATE")
        for step in plan.steps where step.code == .dropIndex {
            statements.append("DROP INDEX IF EXISTS \(SQLNaming.quoted(step.subject))")
        }
        var changed = Set(
            plan.steps.filter { $0.code == .addIndex || $0.code == .addUniquenessConstraint }.map(\.subject))
        // Indexes on a column that was dropped and added again went with the old column.
        for (_, new, sources, _) in altered {
            let remade = Set(
                new.columns.filter { column in
                    switch sources[column.name] {
                    case .nothing?, .value?, .generated?, nil: true
                    default: false
                    }
                }.map(\.name))
            for index in plan.newSchema.indexes
            where index.table == new.name && index.parts.contains(where: { remade.contains($0.column) }) {
                changed.insert(index.name)
            }
        }
        for index in plan.newSchema.indexes where created.contains(index.table) || changed.contains(index.name) {
            statements.append(emitter.createIndex(index).withoutTerminator)
        }
        let metadata = SQLNaming.quoted(MetadataTable.name)
        statements.append("DELETE FROM \(metadata)")
        statements.append(emitter.metadataRows(plan.newSchema, SchemaSnapshot.make(plan.newSchema)).withoutTerminator)
        statements.append("COMMIT")
        return statements
    }

    /// The whole migration as a script, with the plan's steps as comments.
    public func script(_ plan: MigrationPlan) -> String {
        var text = "-- Migration generated by modelgen \(ModelGenVersion.current). Dialect: PostgreSQL.\n"
        for step in plan.steps {
            text += "-- [\(step.safety.rawValue)] \(step.code) \(step.subject): \(step.message.commentSafe)\n"
        }
        return text + "\n" + statements(plan).map { $0 + ";\n" }.joined()
    }

    /// Whether an altered table's constraints are dropped and made again: whenever anything but
    /// its name changes (their names and the columns they name follow the table).
    private static func constraintsChange(_ old: Table, _ new: Table) -> Bool {
        old.checks != new.checks || old.foreignKeys != new.foreignKeys || old.name != new.name
            || old.columns != new.columns
    }

    private static func oldColumn(of column: Column, in old: Table, _ sources: [String: MigrationPlan.ColumnSource])
        -> Column?
    {
        sources[column.name]?.oldName.flatMap(old.column(named:))
    }

    /// What fills a new required column's existing rows: a `--default` constant or a value made
    /// per row; nil for a column filled by its own default or NULL.
    private static func fill(_ source: MigrationPlan.ColumnSource?, _ dialect: SQLDialect) -> String? {
        switch source {
        case .value(let value)?: dialect.literal(value)
        case .generated(let value)?: dialect.rules.generated(value)
        default: nil
        }
    }
}
