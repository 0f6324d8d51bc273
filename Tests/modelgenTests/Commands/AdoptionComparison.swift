import Foundation
import TestSupport

/// Compares a modelgen store made by `modelgen import` with the Core Data store it came from,
/// read raw. Names are mapped by Core Data's rule alone (`Z` + the name without underscores,
/// upper-cased: `is_folder` ↔ `ZISFOLDER`, `parent_pk` ↔ `ZPARENT`, `parent_position` ↔
/// `Z_FOK_PARENT`, a join column `favorites_pk` ↔ `Z_<n>FAVORITES`); a table the current version
/// renamed is found as the one Core Data table holding exactly its keys.
struct AdoptionComparison {
    struct Totals: CustomStringConvertible {
        var objects = 0
        var values = 0
        var links = 0
        var orders = 0
        /// NULLs the migration filled with a required attribute's default.
        var filled = 0
        /// Links the migration made from other data (no join table of the store holds them).
        var derived = 0
        var failures: [String] = []

        static func += (lhs: inout Totals, rhs: Totals) {
            lhs.objects += rhs.objects
            lhs.values += rhs.values
            lhs.links += rhs.links
            lhs.orders += rhs.orders
            lhs.filled += rhs.filled
            lhs.derived += rhs.derived
            lhs.failures += rhs.failures
        }

        var description: String {
            "\(objects) objects, \(values) values, \(links) links, \(orders) ordered lists equal to the source read raw (\(filled) NULLs given a required attribute's default, \(derived) links made by the migration); \(failures.count) differences"
        }
    }

    let source: RawSQLite
    let sourceTables: [String: [String]]
    let label: String
    let directory: URL
    /// The target's columns that require a value (`table.column`).
    let required: Set<String>
    /// Whether the import dropped relationships (with `--allow-data-loss`).
    let droppedRelationships: Bool

    init(source path: String, label: String, required: Set<String>, droppedRelationships: Bool) throws {
        self.required = required
        self.droppedRelationships = droppedRelationships
        // A private copy of the file set: the corpus file is never opened.
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("source.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        source = try RawSQLite(path: copy)
        sourceTables = try source.tables()
        self.label = label
    }

    /// A key as text, whichever reader gave it (`1`, `1.0`).
    static func key(_ text: String?) -> String { text.flatMap(Double.init).map { "\($0)" } ?? text ?? "" }

    static func coreDataName(_ name: String) -> String {
        "Z" + name.replacingOccurrences(of: "_", with: "").uppercased()
    }

    /// Compares the target's tables (`tables`, read through `read(table, columns)`).
    func compare(
        with tables: [String: [String]], read: (String, [String]) throws -> [[String?]]
    ) throws -> Totals {
        defer { try? FileManager.default.removeItem(at: directory) }
        var totals = Totals()
        var claimed: Set<String> = []
        var matchedJoins: Set<String> = []
        let entityTables = tables.filter { $0.value.contains("_pk") && !$0.key.hasPrefix("_") }
        // Plain names first, so a renamed table is looked for among the tables left.
        for (table, columns) in entityTables.sorted(by: { ($0.key, $0.value.count) < ($1.key, $1.value.count) })
        where sourceTables[Self.coreDataName(table)] != nil {
            claimed.insert(Self.coreDataName(table))
            try compareEntityTable(table, columns, Self.coreDataName(table), read, &totals)
        }
        for (table, columns) in entityTables.sorted(by: { $0.key < $1.key })
        where sourceTables[Self.coreDataName(table)] == nil {
            let keys = Set(try read(table, ["_pk"]).map { Self.key($0[0]) })
            let candidates = try sourceTables.keys.sorted().filter { name in
                guard !claimed.contains(name), name.hasPrefix("Z"), !name.hasPrefix("Z_"),
                    sourceTables[name]?.contains("Z_PK") == true
                else { return false }
                return Set(try source.rows("SELECT Z_PK FROM \(name)").map { Self.key($0[0]) }).isSuperset(of: keys)
            }
            guard !keys.isEmpty, candidates.count == 1 else { continue }
            claimed.insert(candidates[0])
            try compareEntityTable(table, columns, candidates[0], read, &totals)
        }
        for (table, columns) in tables.sorted(by: { $0.key < $1.key })
        where !columns.contains("_pk") && !table.hasPrefix("_") {
            if let stored = try compareJoinTable(table, columns, read, &totals) { matchedJoins.insert(stored) }
        }
        // Every join table of the store with rows arrived, unless the migration dropped links.
        for (stored, columns) in sourceTables.sorted(by: { $0.key < $1.key })
        where stored.hasPrefix("Z_") && !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(stored)
            && !matchedJoins.contains(stored) && columns.filter({ !$0.hasPrefix("Z_FOK") }).count == 2
        {
            let count = try source.rows("SELECT count(*) FROM \(stored)").first?.first ?? nil
            if Self.key(count) != Self.key("0"), !droppedRelationships {
                totals.failures.append("\(label): the links of \(stored) are in no table of the new store")
            }
        }
        return totals
    }

    /// Objects (keys and entities), attribute values, to-one keys and ordered positions.
    private func compareEntityTable(
        _ table: String, _ columns: [String], _ stored: String, _ read: (String, [String]) throws -> [[String?]],
        _ totals: inout Totals
    ) throws {
        let storedColumns = sourceTables[stored] ?? []
        var pairs: [(target: String, source: String)] = []
        var orders: [(position: String, owner: String, source: String, sourceOwner: String)] = []
        for column in columns where !["_pk", "_entity", "_version"].contains(column) {
            if column.hasSuffix("_position") {
                let owner = String(column.dropLast("_position".count))
                let fok = "Z_FOK_" + Self.coreDataName(owner).dropFirst()
                if storedColumns.contains(fok), columns.contains(owner + "_pk") {
                    orders.append((column, owner + "_pk", fok, Self.coreDataName(owner)))
                }
                continue
            }
            let name = Self.coreDataName(column.hasSuffix("_pk") ? String(column.dropLast(3)) : column)
            if storedColumns.contains(name) { pairs.append((column, name)) }
        }
        let targetRows = try read(table, ["_pk", "_entity"] + pairs.map(\.target))
        let sourceRows = try source.rows(
            "SELECT \((["Z_PK", "Z_ENT"] + pairs.map(\.source)).joined(separator: ", ")) FROM \(stored)")
        let byKey = Dictionary(sourceRows.map { (Self.key($0[0]), $0) }, uniquingKeysWith: { first, _ in first })
        var entityOf: [String: String] = [:]
        var codeOf: [String: String] = [:]
        for row in targetRows {
            let key = Self.key(row[0])
            guard let original = byKey[key] else {
                totals.failures.append("\(label): \(table) \(key) is in no row of \(stored)")
                continue
            }
            totals.objects += 1
            // Rows of one Core Data entity are all of one entity here, and different ones differ.
            let (code, entity) = (Self.key(row[1]), Self.key(original[1]))
            if let seen = entityOf[code], seen != entity || codeOf[entity].map({ $0 != code }) == true {
                totals.failures.append("\(label): \(table) \(key) is entity \(code), Z_ENT \(entity)")
            }
            entityOf[code] = entity
            codeOf[entity] = code
            for (offset, pair) in pairs.enumerated() {
                totals.values += 1
                // NULL where this version requires a value: the migration gave its default.
                if original[offset + 2] == nil, row[offset + 2] != nil, required.contains(table + "." + pair.target) {
                    totals.filled += 1
                    continue
                }
                if !Self.same(row[offset + 2], original[offset + 2]) {
                    totals.failures.append(
                        "\(label): \(table) \(key).\(pair.target) is \(row[offset + 2] ?? "nil"), \(stored).\(pair.source) \(original[offset + 2] ?? "nil")"
                    )
                }
            }
        }
        // Every row of each Core Data entity that arrived arrived whole.
        let arrived = Set(targetRows.map { Self.key($0[0]) })
        for row in sourceRows where codeOf[Self.key(row[1])] != nil && !arrived.contains(Self.key(row[0])) {
            totals.failures.append(
                "\(label): \(stored) \(Self.key(row[0])) (Z_ENT \(Self.key(row[1]))) is missing from \(table)")
        }
        for order in orders {
            let target = try read(table, ["_pk", order.owner, order.position])
            let stored = try source.rows("SELECT Z_PK, \(order.sourceOwner), \(order.source) FROM \(stored)")
            if Self.lists(target) != Self.lists(stored) {
                totals.failures.append("\(label): the order of \(table).\(order.position) differs from \(order.source)")
            }
            totals.orders += Self.lists(target).count
        }
    }

    /// Each owner's members in order (by position, then key).
    static func lists(_ rows: [[String?]]) -> [String: [String]] {
        var lists: [String: [(Double, Double, String)]] = [:]
        for row in rows {
            guard row[1] != nil, let position = row[2].flatMap(Double.init), row[0] != nil else { continue }
            lists[key(row[1]), default: []].append((position, Double(key(row[0])) ?? 0, key(row[0])))
        }
        return lists.mapValues { $0.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2) }
    }

    /// A many-to-many: the pairs of the target's join table equal those of the Core Data join
    /// table whose columns are named after the same relationships.
    private func compareJoinTable(
        _ table: String, _ columns: [String], _ read: (String, [String]) throws -> [[String?]], _ totals: inout Totals
    ) throws -> String? {
        let keys = columns.filter { $0.hasSuffix("_pk") }
        guard keys.count == 2 else { return nil }
        let names = keys.map { Self.coreDataName(String($0.dropLast(3))).dropFirst() }
        // The target names one column after the relationship (its members) and one after the
        // owner entity or the inverse; the Core Data table has a column per relationship.
        for (stored, storedColumns) in sourceTables where stored.hasPrefix("Z_") && stored != "Z_PRIMARYKEY" {
            let keyColumns = storedColumns.filter { !$0.hasPrefix("Z_FOK") }
            guard keyColumns.count == 2 else { continue }
            func relationship(_ column: String) -> String {
                String(column.drop { $0 == "Z" || $0 == "_" || $0.isNumber }).replacing(/[0-9]+$/, with: "")
            }
            guard
                let memberIndex = names.firstIndex(where: { name in keyColumns.contains { relationship($0) == name } }),
                let memberColumn = keyColumns.first(where: { relationship($0) == names[memberIndex] })
            else { continue }
            let otherColumn = keyColumns.first { $0 != memberColumn }!
            let target = Set(
                try read(table, [keys[1 - memberIndex], keys[memberIndex]]).map {
                    "\(Self.key($0[0]))→\(Self.key($0[1]))"
                })
            let source = Set(
                try self.source.rows("SELECT \(otherColumn), \(memberColumn) FROM \(stored)").map {
                    "\(Self.key($0[0]))→\(Self.key($0[1]))"
                })
            guard !target.isEmpty || !source.isEmpty else { continue }
            if target == source {
                totals.links += target.count
                return stored
            }
        }
        // No join table of the store names either relationship: the links were made by the
        // migration (from data of the store's own version), not copied.
        let named = sourceTables.keys.contains { stored in
            stored.hasPrefix("Z_")
                && sourceTables[stored]!.contains { column in
                    names.contains { column.range(of: "^Z_[0-9]+\($0)[0-9]*$", options: .regularExpression) != nil }
                }
        }
        let count = try read(table, keys).count
        if count > 0, named {
            totals.failures.append("\(label): the \(count) links of \(table) match no join table of the store")
        } else {
            totals.derived += count
        }
        return nil
    }

    /// Two values equal: numbers by value (dates to 0.1 ms, floats to a Float's precision), text
    /// and bytes exactly; an ISO 8601 text the migration made a date, read by Foundation.
    static func same(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        if a == b { return true }
        guard let x = Double(a), let y = Double(b) ?? isoDate(b) else { return false }
        return abs(x - y) < 1e-4 || (abs(x) < 1e5 && Float(x) == Float(y))
    }

    /// Seconds since 2001 of a text such as `2017-06-07T18:11:11.297Z`, as Foundation reads it.
    static func isoDate(_ text: String) -> Double? {
        (isoWithFraction.date(from: text) ?? iso.date(from: text))?.timeIntervalSinceReferenceDate
    }

    nonisolated(unsafe) private static let isoWithFraction: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    nonisolated(unsafe) private static let iso = ISO8601DateFormatter()

    // MARK: - PostgreSQL

    /// A SELECT giving each value as the SQLite reader would (numbers, hex bytes, dates as
    /// seconds since 2001, booleans as 0 and 1), hex-encoded so that any text survives `psql`.
    static func postgresSelect(_ table: String, _ columns: [String], types: [String: String]) -> String {
        let list = columns.map { column -> String in
            let quoted = "\"\(column)\""
            let text: String
            switch types[table + "." + column] ?? "" {
            case "boolean": text = "(\(quoted))::int::text"
            case let type where type.hasPrefix("timestamp"):
                text = "(extract(epoch from \(quoted)) - 978307200)::text"
            case "bytea": text = "encode(\(quoted), 'hex')"
            case "uuid": text = "replace(\(quoted)::text, '-', '')"
            default: text = "\(quoted)::text"
            }
            return "CASE WHEN \(quoted) IS NULL THEN 'N' ELSE 'V' || encode(convert_to(\(text), 'UTF8'), 'hex') END"
        }
        return "SELECT \(list.joined(separator: ", ")) FROM \"\(table)\""
    }

    static func decodePostgres(_ field: String) -> String? {
        guard field.first == "V" else { return nil }
        var bytes: [UInt8] = []
        var index = field.index(after: field.startIndex)
        while index < field.endIndex, let next = field.index(index, offsetBy: 2, limitedBy: field.endIndex) {
            bytes.append(UInt8(field[index..<next], radix: 16) ?? 0)
            index = next
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
