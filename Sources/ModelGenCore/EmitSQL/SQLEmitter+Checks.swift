import Mustache

extension SQLEmitter {
    /// A check's condition in this dialect, or `nil` when the dialect enforces it by type (or
    /// cannot express it: regular expressions on SQLite are validated by the runtime).
    func renderedCondition(_ condition: Check.Condition, in table: Table) -> String? {
        guard rendersCondition(condition) else { return nil }
        var output = TextBuffer()
        appendCondition(condition, in: table, to: &output)
        return output.text
    }

    /// Whether `renderedCondition` gives a condition (decided without writing it).
    func rendersCondition(_ condition: Check.Condition) -> Bool {
        switch condition {
        case .oneOf, .requiredFor: true
        case .isBoolean, .integerWidth, .byteCount: dialect.rules.needsStorageChecks
        case .range(_, let minimum, let maximum): minimum != nil || maximum != nil
        case .length(_, let minimum, let maximum): minimum != nil || maximum != nil
        case .matches: dialect.rules.checksPatterns
        }
    }

    /// `renderedCondition` written straight into `output` (a large schema has tens of thousands
    /// of checks); only for a condition that `rendersCondition`.
    func appendCondition(_ condition: Check.Condition, in table: Table, to output: inout TextBuffer) {
        func appendNumbers(_ values: [Int64]) {
            for (position, value) in values.enumerated() {
                if position > 0 { output.append(", ") }
                output.append(integer: value)
            }
        }
        switch condition {
        case .oneOf(let column, let values):
            output.append(identifier: column)
            output.append(" IN (")
            appendNumbers(values)
            output.append(")")
        case .isBoolean(let column):
            output.append(identifier: column)
            output.append(" IN (0, 1)")
        case .integerWidth(let column, let type):
            output.append(identifier: column)
            output.append(" BETWEEN ")
            output.append(integer: type == .integer16 ? Int64(Int16.min) : Int64(Int32.min))
            output.append(" AND ")
            output.append(integer: type == .integer16 ? Int64(Int16.max) : Int64(Int32.max))
        case .byteCount(let column, let bytes):
            output.append("length(")
            output.append(identifier: column)
            output.append(") = ")
            output.append(integer: Int64(bytes))
        case .requiredFor(let column, let entityIDs):
            output.append("\"_entity\" NOT IN (")
            appendNumbers(entityIDs)
            output.append(") OR ")
            output.append(identifier: column)
            output.append(" IS NOT NULL")
        case .range(let column, let minimum, let maximum):
            if let minimum {
                output.append(identifier: column)
                output.append(" >= ")
                output.append(string: dialect.literal(minimum))
            }
            if let maximum {
                if minimum != nil { output.append(" AND ") }
                output.append(identifier: column)
                output.append(" <= ")
                output.append(string: dialect.literal(maximum))
            }
        case .length(let column, let minimum, let maximum):
            let type = table.column(named: column)?.type
            let function = dialect.rules.lengthFunction(for: type)
            if let minimum {
                output.append(string: function)
                output.append(identifier: column)
                output.append(") >= ")
                output.append(integer: Int64(minimum))
            }
            if let maximum {
                if minimum != nil { output.append(" AND ") }
                output.append(string: function)
                output.append(identifier: column)
                output.append(") <= ")
                output.append(integer: Int64(maximum))
            }
        case .matches(let column, let pattern):
            output.append(identifier: column)
            output.append(" ~ ")
            output.append(sqlLiteral: "^(?:" + Self.postgresPattern(pattern) + ")$")
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
