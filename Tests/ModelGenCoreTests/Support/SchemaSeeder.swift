@testable import ModelGenCore

/// Rows for any relational schema: `rows` per table (`_pk` 1…rows), every column filled with a
/// value its type and CHECKs accept, distinct per row (so unique indexes hold), foreign keys
/// pointing at the row of the same number in their table. Tables whose entities are all abstract get no rows.
enum SchemaSeeder {
    static func statements(_ schema: RelationalSchema, dialect: SQLDialect, rows: Int = 2) -> [String] {
        let seeded = Set(schema.tables.filter { entityNumbers($0) != [] }.map(\.name))
        var statements: [String] = []
        for table in schema.tables where table.kind != .metadata && seeded.contains(table.name) {
            for row in 1...rows {
                var names: [String] = []
                var values: [String] = []
                var skip = false
                for column in table.columns {
                    guard let value = value(column, in: table, row: row, seeded: seeded) else {
                        if !column.isNullable && column.defaultValue == nil { skip = true }
                        continue
                    }
                    names.append(SQLNaming.quoted(column.name))
                    values.append(dialect.literal(value))
                }
                if skip { continue }
                statements.append(
                    "INSERT INTO \(SQLNaming.quoted(table.name)) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))")
            }
        }
        return statements
    }

    /// The entity numbers a table's rows may have (nil: the table has no `_entity`).
    static func entityNumbers(_ table: Table) -> [Int64]? {
        for check in table.checks {
            if case .oneOf("_entity", let values) = check.condition { return values }
        }
        return table.columns.contains { $0.role == .entity } ? [] : nil
    }

    private static func value(_ column: Column, in table: Table, row: Int, seeded: Set<String>) -> SQLValue? {
        let number = Int64(row)
        if let key = table.foreignKeys.first(where: { $0.columns == [column.name] }) {
            guard seeded.contains(key.referencedTable) else { return nil }
            // Row n points at row n: one-to-one keys are unique.
            return .integer(number)
        }
        switch column.role {
        case .primaryKey: return .integer(number)
        case .entity:
            let numbers = entityNumbers(table) ?? []
            return numbers.isEmpty ? nil : .integer(numbers[(row - 1) % numbers.count])
        case .version: return .integer(1)
        case .position: return .integer(number)
        case .metadata: return nil
        default: break
        }
        let checks = table.checks.map(\.condition).filter { $0.column == column.name }
        var minimum: SQLValue?
        var maximum: SQLValue?
        var lengths: (Int64?, Int64?) = (nil, nil)
        for check in checks {
            if case .range(_, let low, let high) = check { (minimum, maximum) = (low, high) }
            if case .length(_, let low, let high) = check { lengths = (low, high) }
        }
        switch column.type {
        case .integer16, .integer32, .integer64, .key:
            var low = Int64(0), high = Int64(Int16.max)
            if case .integer(let value)? = minimum { low = value }
            if case .integer(let value)? = maximum { high = value }
            return .integer(min(high, low + number))
        case .double, .float, .decimal:
            var low = 0.0, high = 1e9
            if case .real(let value)? = minimum { low = value }
            if case .real(let value)? = maximum { high = value }
            if case .integer(let value)? = minimum { low = Double(value) }
            if case .integer(let value)? = maximum { high = Double(value) }
            let value = min(high, low + Double(row) / 4)
            return column.type == .decimal ? .decimal(String(value)) : .real(value)
        case .boolean:
            return .bool(row % 2 == 0)
        case .date:
            var low = 600_000_000.0
            if case .date(let value)? = minimum { low = value }
            return .date(low + Double(row))
        case .uuid:
            return .uuid("00000000-0000-4000-8000-" + String(String(row).reversed()).padding(toLength: 12, withPad: "0", startingAt: 0))
        case .text, .uri, .blob:
            var text = "v\(row)"
            let shortest = Int(lengths.0 ?? 0)
            if text.count < shortest { text += String(repeating: "x", count: shortest - text.count) }
            if let longest = lengths.1, text.count > Int(longest) { text = String(text.suffix(Int(longest))) }
            return .text(text)  // also for binary columns: both engines take text as bytes
        }
    }
}
