extension SQLEmitter {
    /// A check's condition in this dialect, or `nil` when the dialect enforces it by type (or
    /// cannot express it: regular expressions on SQLite are validated by the runtime).
    func renderedCondition(_ condition: Check.Condition, in table: Table) -> String? {
        switch condition {
        case .oneOf(let column, let values):
            return "\(SQLNaming.quoted(column)) IN (" + values.map(String.init).joined(separator: ", ") + ")"
        case .isBoolean(let column):
            return dialect == .sqlite ? "\(SQLNaming.quoted(column)) IN (0, 1)" : nil
        case .integerWidth(let column, let type):
            guard dialect == .sqlite else { return nil }
            let range = type == .integer16 ? (Int16.min.description, Int16.max.description) : (Int32.min.description, Int32.max.description)
            return "\(SQLNaming.quoted(column)) BETWEEN \(range.0) AND \(range.1)"
        case .byteCount(let column, let bytes):
            return dialect == .sqlite ? "length(\(SQLNaming.quoted(column))) = \(bytes)" : nil
        case .requiredFor(let column, let entityIDs):
            return "\"_entity\" NOT IN (" + entityIDs.map(String.init).joined(separator: ", ") + ") OR "
                + SQLNaming.quoted(column) + " IS NOT NULL"
        case .range(let column, let minimum, let maximum):
            let quoted = SQLNaming.quoted(column)
            var parts: [String] = []
            if let minimum { parts.append("\(quoted) >= \(dialect.literal(minimum))") }
            if let maximum { parts.append("\(quoted) <= \(dialect.literal(maximum))") }
            return parts.isEmpty ? nil : parts.joined(separator: " AND ")
        case .length(let column, let minimum, let maximum):
            let type = table.column(named: column)?.type
            let function = dialect == .sqlite ? "length" : (type == .blob ? "octet_length" : "char_length")
            let measured = "\(function)(\(SQLNaming.quoted(column)))"
            var parts: [String] = []
            if let minimum { parts.append("\(measured) >= \(minimum)") }
            if let maximum { parts.append("\(measured) <= \(maximum)") }
            return parts.isEmpty ? nil : parts.joined(separator: " AND ")
        case .matches(let column, let pattern):
            guard dialect == .postgres else { return nil }
            return "\(SQLNaming.quoted(column)) ~ " + SQLNaming.literal("^(?:" + Self.postgresPattern(pattern) + ")$")
        }
    }

    /// ICU (NSRegularExpression) syntax → PostgreSQL advanced regular expressions, for the
    /// constructs that differ: `\z` (end of input) is `\Z` in PostgreSQL.
    static func postgresPattern(_ pattern: String) -> String {
        var result = ""
        var escaped = false
        for character in pattern {
            if escaped {
                result += character == "z" ? "Z" : String(character)
                escaped = false
            } else {
                if character == "\\" { escaped = true }
                result.append(character)
            }
        }
        return result
    }
}
