import TestSupport

@testable import ModelGenCore

/// What a database says its schema is, reduced to sets of names, so a schema built from DDL can
/// be compared with the `RelationalSchema` it came from.
struct SchemaFacts: Equatable, CustomStringConvertible {
    var tables: Set<String> = []
    /// `table.column`
    var columns: Set<String> = []
    /// `table.column` of NOT NULL columns (primary-key columns included)
    var notNull: Set<String> = []
    /// `table(a,b)` of unique indexes (primary keys excluded)
    var unique: Set<String> = []
    /// `table(a)->other(b) ON DELETE action`
    var foreignKeys: Set<String> = []
    /// names of all indexes created with CREATE INDEX
    var indexes: Set<String> = []
    /// `table.name` of CHECK constraints
    var checks: Set<String> = []

    var description: String {
        "tables \(tables.sorted())\ncolumns \(columns.sorted())\nnotNull \(notNull.sorted())\nunique \(unique.sorted())\nforeignKeys \(foreignKeys.sorted())\nindexes \(indexes.sorted())\nchecks \(checks.sorted())"
    }

    /// The differences with `other`, one line per kind that differs.
    func differences(from other: SchemaFacts) -> [String] {
        var lines: [String] = []
        func compare(_ name: String, _ mine: Set<String>, _ theirs: Set<String>) {
            if mine != theirs {
                lines.append(
                    "\(name): missing \(theirs.subtracting(mine).sorted()), unexpected \(mine.subtracting(theirs).sorted())"
                )
            }
        }
        compare("tables", tables, other.tables)
        compare("columns", columns, other.columns)
        compare("notNull", notNull, other.notNull)
        compare("unique", unique, other.unique)
        compare("foreignKeys", foreignKeys, other.foreignKeys)
        compare("indexes", indexes, other.indexes)
        compare("checks", checks, other.checks)
        return lines
    }

    /// What the schema promises on `dialect` (which renders some checks and not others).
    init(expected schema: RelationalSchema, dialect: SQLDialect) {
        let emitter = SQLEmitter(dialect: dialect)
        for table in schema.tables {
            tables.insert(table.name)
            for check in table.checks where emitter.renderedCondition(check.condition, in: table) != nil {
                checks.insert("\(table.name).\(check.name)")
            }
            for column in table.columns {
                columns.insert("\(table.name).\(column.name)")
                if !column.isNullable { notNull.insert("\(table.name).\(column.name)") }
            }
            for key in table.foreignKeys {
                foreignKeys.insert(
                    "\(table.name)(\(key.columns.joined(separator: ",")))->\(key.referencedTable)(\(key.referencedColumns.joined(separator: ","))) ON DELETE \(key.onDelete.rawValue)"
                )
            }
        }
        for index in schema.indexes {
            indexes.insert(index.name)
            if index.isUnique { unique.insert("\(index.table)(\(index.parts.map(\.column).joined(separator: ",")))") }
        }
    }

    init() {}

    /// What a SQLite database has.
    init(sqlite database: SQLiteDatabase) throws {
        for row in try database.rows(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        {
            let table = row[0]!
            tables.insert(table)
            // SQLite keeps CHECKs only in the table's SQL: `CONSTRAINT "name" CHECK`, on the table
            // or on a column added in place.
            for name in Self.checkNames(in: row[1] ?? "") { checks.insert("\(table).\(name)") }
            let quoted = SQLNaming.literal(table)
            for column in try database.rows("SELECT name, \"notnull\", pk FROM pragma_table_xinfo(\(quoted))") {
                columns.insert("\(table).\(column[0]!)")
                if column[1] == "1" || column[2] != "0" { notNull.insert("\(table).\(column[0]!)") }
            }
            for index in try database.rows("SELECT name, \"unique\", origin FROM pragma_index_list(\(quoted))")
            where index[2] != "pk" {
                let parts = try database.rows(
                    "SELECT name FROM pragma_index_info(\(SQLNaming.literal(index[0]!))) ORDER BY seqno")
                if index[1] == "1" { unique.insert("\(table)(\(parts.map { $0[0]! }.joined(separator: ",")))") }
                if index[2] == "c" { indexes.insert(index[0]!) }
            }
            let keys = try database.rows(
                "SELECT id, \"from\", \"table\", \"to\", on_delete FROM pragma_foreign_key_list(\(quoted)) ORDER BY id, seq"
            )
            for id in Set(keys.map { $0[0]! }) {
                let parts = keys.filter { $0[0] == id }
                foreignKeys.insert(
                    "\(table)(\(parts.map { $0[1]! }.joined(separator: ",")))->\(parts[0][2]!)(\(parts.map { $0[3]! }.joined(separator: ","))) ON DELETE \(parts[0][4]!)"
                )
            }
        }
    }

    /// The names of the `CONSTRAINT "…" CHECK` clauses in CREATE TABLE text.
    static func checkNames(in sql: String) -> [String] {
        var names: [String] = []
        var rest = Substring(sql)
        while let start = rest.range(of: "CONSTRAINT \"") {
            let afterQuote = rest[start.upperBound...]
            var name = ""
            var index = afterQuote.startIndex
            // A quoted identifier: `""` is a quote inside it.
            while index < afterQuote.endIndex {
                let character = afterQuote[index]
                let next = afterQuote.index(after: index)
                if character == "\"" {
                    if next < afterQuote.endIndex && afterQuote[next] == "\"" {
                        name.append("\"")
                        index = afterQuote.index(after: next)
                        continue
                    }
                    index = next
                    break
                }
                name.append(character)
                index = next
            }
            rest = afterQuote[index...]
            if rest.drop(while: { $0 == " " }).hasPrefix("CHECK") { names.append(name) }
        }
        return names
    }

    /// What a PostgreSQL schema has.
    init(postgres cluster: PostgresCluster, schema: String) throws {
        let namespace = SQLNaming.literal(schema)
        for row in try cluster.rows(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(namespace) AND c.relkind = 'r'"
        ) {
            tables.insert(row[0])
        }
        for row in try cluster.rows(
            """
            SELECT c.relname, a.attname, a.attnotnull FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(namespace) AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
            """)
        {
            columns.insert("\(row[0]).\(row[1])")
            if row[2] == "t" { notNull.insert("\(row[0]).\(row[1])") }
        }
        for row in try cluster.rows(
            """
            SELECT t.relname, ic.relname, i.indisunique, i.indisprimary,
                   (SELECT string_agg(a.attname, ',' ORDER BY k.ordinality) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ordinality)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
            FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = \(namespace)
            """)
        {
            guard row[3] == "f" else { continue }
            indexes.insert(row[1])
            if row[2] == "t" { unique.insert("\(row[0])(\(row[4]))") }
        }
        for row in try cluster.rows(
            """
            SELECT t.relname, c.conname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
            JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = \(namespace) AND c.contype = 'c'
            """)
        {
            checks.insert("\(row[0]).\(row[1])")
        }
        for row in try cluster.rows(
            """
            SELECT t.relname, r.relname, c.confdeltype,
                   (SELECT string_agg(a.attname, ',' ORDER BY k.ordinality) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ordinality)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum),
                   (SELECT string_agg(a.attname, ',' ORDER BY k.ordinality) FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ordinality)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum)
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
            JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = \(namespace) AND c.contype = 'f'
            """)
        {
            let action =
                ["a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"][row[2]]
                ?? row[2]
            foreignKeys.insert("\(row[0])(\(row[3]))->\(row[1])(\(row[4])) ON DELETE \(action)")
        }
    }
}
