/// Render (SQLite): a `MigrationPlan` as the statements that migrate a SQLite database, in one
/// transaction.
///
/// Renames are in-place `ALTER TABLE … RENAME`; every other table change is SQLite's documented
/// table rebuild (the old table renamed aside with `legacy_alter_table` on, so references from
/// other tables keep naming the table; the new shape created under the final name; rows copied;
/// the old table dropped; indexes recreated), with foreign keys off during the transaction and
/// `foreign_key_check` at its end. Preflight queries and the foreign-key check insert their counts
/// into a temporary table; a temporary trigger per check stops the script at the first count that
/// is not 0 with an error naming the step and what in the data stops it (SQLite's `RAISE` takes
/// only a literal message, hence one trigger per step), and the table's CHECK refuses anything
/// but 0 as well. A plain SQL runner stops there and the transaction is rolled back.
public struct SQLiteMigrationRenderer: MigrationRenderer {
    public init() {}

    /// The statements, each without its trailing `;`, in order.
    public func statements(_ plan: MigrationPlan) -> [String] {
        let emitter = SQLEmitter(dialect: .sqlite)
        var statements = ["PRAGMA foreign_keys = OFF", "PRAGMA legacy_alter_table = ON", "BEGIN IMMEDIATE"]
        let preflights = plan.steps.filter { $0.preflight != nil }
        statements.append(
            #"CREATE TEMP TABLE "_modelgen_preflight" ("step" TEXT NOT NULL, "failures" INTEGER NOT NULL CHECK ("failures" = 0))"#
        )
        let checks =
            preflights.map {
                ("\($0.code) \($0.subject): \($0.message)", SQLDialect.sqlite.preflightQuery($0.preflight!))
            }
            + [(Self.foreignKeyStep, "")]
        for (index, check) in checks.enumerated() {
            statements.append(Self.stopTrigger(index, step: check.0))
        }
        for (step, query) in checks.dropLast() {
            statements.append(
                #"INSERT INTO temp."_modelgen_preflight" VALUES ("# + SQLNaming.literal(step) + ", (\(query)))")
        }
        // Rows moving to another table wait in temporary tables while the tables change.
        statements += plan.rowCopies.map(\.setAside)
        var rebuilt: Set<String> = []
        var created: Set<String> = []
        var keptAside: [String] = []
        // Tables whose links move elsewhere are dropped once the links are copied.
        let linkSources = Set(plan.linkCopies.map(\.table))
        var laterDrops: [String] = []
        for case .drop(let table) in plan.tables {
            let drop = "DROP TABLE \(SQLNaming.quoted(table.name))"
            if linkSources.contains(table.name) { laterDrops.append(drop) } else { statements.append(drop) }
        }
        // Renamed tables first, with `legacy_alter_table` off so the keys of other tables follow
        // them (the rebuild below renames its old tables aside with it on, so keys stay put).
        for case .alter(let old, let new, _, _, _) in plan.tables where old.name != new.name {
            statements += [
                "PRAGMA legacy_alter_table = OFF",
                "ALTER TABLE \(SQLNaming.quoted(old.name)) RENAME TO \(SQLNaming.quoted(new.name))",
                "PRAGMA legacy_alter_table = ON",
            ]
        }
        for case .alter(let old, let new, let sources, let planned, let kept) in plan.tables {
            // A table whose links move elsewhere is rebuilt, so its old shape stays aside for the copy.
            let rebuild = planned || linkSources.contains(old.name)
            guard rebuild else {
                for column in new.columns {
                    if case .column(let previous) = sources[column.name], previous != column.name {
                        statements.append(
                            "ALTER TABLE \(SQLNaming.quoted(new.name)) RENAME COLUMN \(SQLNaming.quoted(previous)) TO \(SQLNaming.quoted(column.name))"
                        )
                    }
                }
                // Columns dropped and added in place (the planner rebuilds when SQLite cannot).
                let keptColumns = Set(sources.values.compactMap(\.oldName))
                for column in old.columns where !keptColumns.contains(column.name) {
                    statements.append(
                        "ALTER TABLE \(SQLNaming.quoted(new.name)) DROP COLUMN \(SQLNaming.quoted(column.name))")
                }
                for column in new.columns where sources[column.name] == .nothing {
                    statements.append(emitter.addColumn(column, to: new))
                }
                continue
            }
            rebuilt.insert(new.name)
            let aside = SQLNaming.quoted("_modelgen_old_" + old.name)
            statements.append("ALTER TABLE \(SQLNaming.quoted(new.name)) RENAME TO \(aside)")
            var deferred: [(String, ForeignKey)] = []
            statements.append(emitter.createTable(new, created: [], deferred: &deferred).withoutTerminator)
            var targets: [String] = []
            var values: [String] = []
            for column in new.columns {
                let expression: String
                switch sources[column.name] ?? .nothing {
                case .column(let name): expression = SQLNaming.quoted(name)
                case .converted(let name):
                    let from = old.column(named: name)?.type ?? column.type
                    expression = SQLDialect.sqlite.rules.conversion(SQLNaming.quoted(name), from: from, to: column.type)
                case .coalesced(let name, let value):
                    expression = "coalesce(\(SQLNaming.quoted(name)), \(SQLDialect.sqlite.literal(value)))"
                case .value(let value): expression = SQLDialect.sqlite.literal(value)
                case .generated(let value): expression = SQLDialect.sqlite.rules.generated(value)
                case .renumbered(let name, let numbers):
                    let quoted = SQLNaming.quoted(name)
                    expression =
                        "CASE \(quoted)" + numbers.keys.sorted().map { " WHEN \($0) THEN \(numbers[$0]!)" }.joined()
                        + " ELSE \(quoted) END"
                case .nothing: continue
                }
                targets.append(SQLNaming.quoted(column.name))
                values.append(expression)
            }
            if !targets.isEmpty {
                statements.append(
                    "INSERT INTO \(SQLNaming.quoted(new.name)) (\(targets.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(aside)"
                        + (kept.map { " WHERE \"_entity\" IN (" + $0.map(String.init).joined(separator: ", ") + ")" }
                            ?? ""))
            }
            if linkSources.contains(old.name) {
                keptAside.append(old.name)
            } else {
                statements.append("DROP TABLE \(aside)")
            }
        }
        for case .create(let table) in plan.tables {
            created.insert(table.name)
            var deferred: [(String, ForeignKey)] = []
            statements.append(emitter.createTable(table, created: [], deferred: &deferred).withoutTerminator)
        }
        for copy in plan.rowCopies { statements += [copy.copy, "DROP TABLE \(copy.holding)"] }
        for copy in plan.linkCopies {
            let from =
                keptAside.contains(copy.table)
                ? SQLNaming.quoted("_modelgen_old_" + copy.table) : SQLNaming.quoted(copy.table)
            statements.append(copy.statement(from: from))
        }
        statements += laterDrops
        for table in keptAside { statements.append("DROP TABLE \(SQLNaming.quoted("_modelgen_old_" + table))") }
        // Indexes: rebuilt and new tables get all of theirs; the others what changed.
        for step in plan.steps where step.code == .dropIndex {
            guard let index = plan.oldSchema.indexes.first(where: { $0.name == step.subject }) else { continue }
            let table = Self.newName(of: index.table, plan)
            if let table, rebuilt.contains(table) { continue }
            if table == nil { continue }  // dropped with its table
            statements.append("DROP INDEX \(SQLNaming.quoted(index.name))")
        }
        let changed = Set(
            plan.steps.filter { $0.code == .addIndex || $0.code == .addUniquenessConstraint }.map(\.subject))
        for index in plan.newSchema.indexes
        where rebuilt.contains(index.table) || created.contains(index.table) || changed.contains(index.name) {
            statements.append(emitter.createIndex(index).withoutTerminator)
        }
        let metadata = SQLNaming.quoted(MetadataTable.name)
        statements.append("DELETE FROM \(metadata)")
        statements.append(emitter.metadataRows(plan.newSchema, SchemaSnapshot.make(plan.newSchema)).withoutTerminator)
        statements.append(
            #"INSERT INTO temp."_modelgen_preflight" VALUES ("# + SQLNaming.literal(Self.foreignKeyStep)
                + ", (SELECT count(*) FROM pragma_foreign_key_check))")
        statements.append(#"DROP TABLE temp."_modelgen_preflight""#)
        statements += ["COMMIT", "PRAGMA legacy_alter_table = OFF", "PRAGMA foreign_keys = ON"]
        return statements
    }

    /// The check at the end of every migration: no row's keys lead nowhere.
    static let foreignKeyStep = "foreign keys: rows whose keys lead to no row (PRAGMA foreign_key_check)"

    /// The trigger that stops the migration when the count of `step` is not 0.
    static func stopTrigger(_ index: Int, step: String) -> String {
        "CREATE TEMP TRIGGER \(SQLNaming.quoted("_modelgen_preflight_\(index)")) BEFORE INSERT ON \"_modelgen_preflight\" "
            + "WHEN NEW.\"step\" = \(SQLNaming.literal(step)) AND NEW.\"failures\" <> 0 "
            + "BEGIN SELECT RAISE(ABORT, \(SQLNaming.literal("modelgen migration stopped by " + step))); END"
    }

    /// The whole migration as a script, with the plan's steps as comments.
    public func script(_ plan: MigrationPlan) -> String {
        var text = "-- Migration generated by modelgen \(ModelGenVersion.current). Dialect: SQLite.\n"
        text += "-- From \(plan.oldSchema.versionName?.commentSafe ?? plan.oldSchema.modelName.commentSafe) to "
        text += "\(plan.newSchema.versionName?.commentSafe ?? plan.newSchema.modelName.commentSafe).\n"
        for step in plan.steps {
            text += "-- [\(step.safety.rawValue)] \(step.code) \(step.subject): \(step.message.commentSafe)\n"
        }
        return text + "\n" + statements(plan).map { $0 + ";\n" }.joined()
    }

    /// The name a table of the old schema has in the new one (nil: dropped).
    private static func newName(of table: String, _ plan: MigrationPlan) -> String? {
        for change in plan.tables {
            switch change {
            case .alter(let old, let new, _, _, _) where old.name == table: return new.name
            case .drop(let old) where old.name == table: return nil
            default: continue
            }
        }
        return table
    }
}
