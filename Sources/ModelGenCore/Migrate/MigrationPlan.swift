/// Migrate: the plan that turns a database of one model version into one of another.
///
/// Input: both versions' `ObjectModel` (for renaming IDs) and `RelationalSchema`. Output: a
/// `MigrationPlan` — steps with a safety class and a stable code, each table's change, and the
/// preflight queries that must find nothing before the data is touched. Rendering to SQL is per
/// engine (`SQLiteMigrationRenderer`).
public struct MigrationPlan: Sendable {
    /// How safe a step is for the data, from least to most in need of a decision.
    public enum Safety: String, Sendable, Comparable, CaseIterable, Encodable {
        /// Nothing stored changes meaning (a new optional column, an index, a rename).
        case safe
        /// Rows are copied into a new table shape; every value is kept.
        case rewrite
        /// Works only if the stored data fits (a preflight query checks it first).
        case dataDependent = "data-dependent"
        /// Stored data is dropped; needs `allowDataLoss`.
        case lossy
        /// A value must be supplied (a required column without a default).
        case needsInput = "needs-input"
        /// Cannot be migrated automatically.
        case refused

        public static func < (lhs: Safety, rhs: Safety) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// One change the plan makes, as a person reviewing it sees it.
    public struct Step: Sendable, Equatable, Encodable {
        /// A step's stable code (`add-column`, `drop-entity`, `narrow-integer`). Each is declared
        /// beside the planner code that emits it (`extension MigrationPlan.Step.Code` at the end of
        /// that file), as diagnostics are.
        public struct Code: Hashable, Sendable, Encodable, ExpressibleByStringLiteral, CustomStringConvertible {
            public let rawValue: String

            public init(stringLiteral value: String) { rawValue = value }
            public var description: String { rawValue }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(rawValue)
            }
        }

        public var code: Code
        public var safety: Safety
        /// `table` or `table.column`.
        public var subject: String
        public var message: String
        /// What the data must not hold for the step to run, when the data decides.
        public var preflight: Preflight?

        public init(code: Code, safety: Safety, subject: String, message: String, preflight: Preflight? = nil) {
            self.code = code
            self.safety = safety
            self.subject = subject
            self.message = message
            self.preflight = preflight
        }

        /// What `modelgen diff --format json` shows of a step (the preflight as SQLite's query).
        enum CodingKeys: String, CodingKey {
            case code, safety, subject, message, preflight
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(safety, forKey: .safety)
            try container.encode(subject, forKey: .subject)
            try container.encode(message, forKey: .message)
            try container.encodeIfPresent(preflight.map(SQLDialect.sqlite.preflightQuery), forKey: .preflight)
        }
    }

    /// What a data-dependent step counts before any data is touched, as a value: each engine's
    /// renderer writes it in its own SQL (`SQLDialect.preflightQuery`), and a count that is not 0
    /// stops the migration, naming the step.
    public enum Preflight: Sendable, Equatable {
        /// Rows of `table` where `column` is NULL (a column becoming required).
        case nulls(table: String, column: String)
        /// Rows whose `column` holds a value that does not convert exactly from `from` to `to`.
        case inexactValues(table: String, column: String, from: ColumnType, to: ColumnType)
        /// Rows of `table` whose key `column` points at a row of `source` of one of the entities
        /// `entityIDs` (rows that are dropped or leave `source`).
        case keysInto(table: String, column: String, source: String, entityIDs: [Int64])
        /// Groups of rows of `table` that a new unique index finds equal: `values` are what each of
        /// its parts holds after the migration; only rows of `entityIDs` (old numbers) when given.
        case duplicates(table: String, values: [IndexValue], entityIDs: [Int64]?)
        /// Rows with more than one link, of links moving into a key column.
        case multipleLinks(LinkCopy)

        /// Where a part of a new unique index takes its value from.
        public enum IndexValue: Sendable, Equatable {
            case column(String)
            case coalesced(String, SQLValue)
            case value(SQLValue)
        }
    }

    /// Where a column of a rebuilt table takes its values from.
    public enum ColumnSource: Sendable, Equatable {
        /// The old table's column of this name.
        case column(String)
        /// The old column, converted (`CAST`) to the new column's type.
        case converted(String)
        /// The old column, with NULLs replaced by a value (a column becoming required).
        case coalesced(String, SQLValue)
        /// `_entity`, renumbered old → new (entity IDs follow the model's entities).
        case renumbered(String, [Int64: Int64])
        /// A constant (a `--default` given for a new required column).
        case value(SQLValue)
        /// A value made for each row (`--default Entity.id=uuid()`).
        case generated(GeneratedValue)
        /// Nothing: the column's default, or NULL.
        case nothing

        /// The old column the values come from, if any.
        public var oldName: String? {
            switch self {
            case .column(let name), .converted(let name), .coalesced(let name, _), .renumbered(let name, _): name
            case .value, .generated, .nothing: nil
            }
        }
    }

    /// A value the migration makes for each row it copies, in the engine's own SQL
    /// (`SQLDialectRules.generated`).
    public enum GeneratedValue: String, Sendable, Equatable {
        /// A random (version 4) UUID per row: `uuid()`.
        case uuid = "uuid()"
        /// The time the migration runs: `now()`.
        case now = "now()"
    }

    /// What happens to one table.
    public enum TableChange: Sendable {
        case create(Table)
        case drop(Table)
        /// The table keeps its data under a new shape; `sources` has an entry per new column.
        /// `rebuild`: more than renames, so SQLite copies the rows into a new table.
        /// `keptEntityIDs`: when some sub-entities are gone, the old `_entity` values whose rows
        /// are copied (the others are dropped).
        case alter(old: Table, new: Table, sources: [String: ColumnSource], rebuild: Bool, keptEntityIDs: [Int64]?)
    }

    /// The links of a relationship whose storage changes (a to-one's key column, a join table, or
    /// the key on the other side), copied from where the old schema keeps them to where the new
    /// one does, after the new tables and columns exist and before the old storage is dropped.
    /// Each link is a pair (row, key): `rowColumn` of `table` names a row of the side that holds
    /// the key afterwards (for a join table: the side `Target.joinTable.rowColumn` takes),
    /// `keyColumn` the row it links to.
    public struct LinkCopy: Sendable, Equatable {
        public enum Target: Sendable, Equatable {
            /// A new join table: `rowColumn` takes the rows, `keyColumn` the keys.
            case joinTable(String, rowColumn: String, keyColumn: String)
            /// A new key column of an entity table (its new name): the row whose `_pk` is a
            /// link's row gets the link's key (at most one link per row, and per key when the
            /// column is unique, as in a one-to-one: the step's preflight).
            case foreignKey(table: String, column: String, isUnique: Bool)
        }

        /// The old table holding the links (kept until they are copied) and its two columns.
        public var table: String
        public var rowColumn: String
        public var keyColumn: String
        public var target: Target

        /// The query both engines run to read the links, with `from` naming the old table where
        /// the migration finds it.
        func selectLinks(from: String) -> String {
            let row = SQLNaming.quoted(rowColumn)
            let key = SQLNaming.quoted(keyColumn)
            return "SELECT \(row), \(key) FROM \(from) WHERE \(row) IS NOT NULL AND \(key) IS NOT NULL"
        }

        /// The statement that writes the links, reading them from `from`.
        func statement(from: String) -> String {
            switch target {
            case .joinTable(let join, let rowTarget, let keyTarget):
                return
                    "INSERT INTO \(SQLNaming.quoted(join)) (\(SQLNaming.quoted(rowTarget)), \(SQLNaming.quoted(keyTarget))) "
                    + selectLinks(from: from)
            case .foreignKey(let table, let column, _):
                let links = SQLNaming.quoted("_modelgen_links")
                return
                    "UPDATE \(SQLNaming.quoted(table)) SET \(SQLNaming.quoted(column)) = (SELECT \(links).\(SQLNaming.quoted(keyColumn)) FROM "
                    + "\(from) AS \(links) WHERE \(links).\(SQLNaming.quoted(rowColumn)) = \(SQLNaming.quoted(table)).\"_pk\" "
                    + "AND \(links).\(SQLNaming.quoted(keyColumn)) IS NOT NULL)"
            }
        }

        /// For a key-column target: the check that no row has more than one link (and no key,
        /// when the column is unique), which would stop the migration.
        var preflight: Preflight? {
            guard case .foreignKey = target else { return nil }
            return .multipleLinks(self)
        }

        /// The query counting rows with more than one link, in the old table (the same SQL on
        /// every engine); only for a key-column target.
        var multipleLinksQuery: String {
            guard case .foreignKey(_, _, let isUnique) = target else { return "SELECT 0" }
            let shared = { (column: String) in
                "(SELECT count(*) FROM (SELECT 1 FROM (\(selectLinks(from: SQLNaming.quoted(table)))) AS \"links\" GROUP BY "
                    + "\(SQLNaming.quoted(column)) HAVING count(*) > 1) AS \"shared\")"
            }
            return "SELECT " + (isUnique ? shared(rowColumn) + " + " + shared(keyColumn) : shared(rowColumn))
        }
    }

    /// Rows of some entities moving from an old table to a new one, keeping their `_pk` (a
    /// hierarchy split: a sub-entity becoming a root, or a root entity removed from above its
    /// sub-entities). The rows are set aside before anything changes and copied once the new table
    /// exists.
    public struct RowCopy: Sendable, Equatable {
        /// The old table and the new one.
        public var from: String
        public var to: String
        /// The old `_entity` numbers of the rows that move, and each one's new number.
        public var entities: [Int64: Int64]
        /// New column → the old column it takes its values from (the others get their default
        /// or NULL).
        public var columns: [String: String]

        /// The table the rows wait in, as SQL (a temporary table of the migration).
        var holding: String { SQLNaming.quoted("_modelgen_rows_" + to) }

        /// The statement that sets the rows aside (before anything changes).
        var setAside: String {
            "CREATE TEMP TABLE \(holding) AS SELECT * FROM \(SQLNaming.quoted(from)) WHERE \"_entity\" IN ("
                + entities.keys.sorted().map(String.init).joined(separator: ", ") + ")"
        }

        /// The statement that copies them into the new table.
        var copy: String {
            let targets = columns.keys.sorted()
            let values = targets.map { target -> String in
                let source = SQLNaming.quoted(columns[target]!)
                guard target == "_entity" else { return source }
                return "CASE \(source)" + entities.keys.sorted().map { " WHEN \($0) THEN \(entities[$0]!)" }.joined()
                    + " ELSE \(source) END"
            }
            return
                "INSERT INTO \(SQLNaming.quoted(to)) (\(targets.map(SQLNaming.quoted).joined(separator: ", "))) SELECT "
                + values.joined(separator: ", ") + " FROM \(holding)"
        }
    }

    public var oldSchema: RelationalSchema
    public var newSchema: RelationalSchema
    public var steps: [Step]
    public var tables: [TableChange]
    public var linkCopies: [LinkCopy] = []
    public var rowCopies: [RowCopy] = []

    /// Whether there is nothing to do.
    public var isEmpty: Bool { steps.isEmpty }

    /// The worst safety class of any step.
    public var safety: Safety { steps.map(\.safety).max() ?? .safe }

    /// The steps that stop the plan as given: lossy ones without `allowDataLoss`, needs-input
    /// and refused ones always.
    public func blockingSteps(allowDataLoss: Bool) -> [Step] {
        steps.filter { $0.safety == .refused || $0.safety == .needsInput || ($0.safety == .lossy && !allowDataLoss) }
    }
}

extension String {
    /// A DDL statement as `SQLEmitter` writes it, without its trailing `;` and line break (the
    /// renderers list statements bare).
    var withoutTerminator: String {
        var text = self
        while let last = text.last, last == "\n" || last == ";" { text.removeLast() }
        return text
    }
}
