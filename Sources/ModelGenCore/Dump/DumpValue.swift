/// A tree of plain values that keeps the order in which properties were encoded, so that dumps
/// are deterministic and read in declaration order.
public indirect enum DumpValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([DumpValue])
    case object([(String, DumpValue)])

    public static func == (lhs: DumpValue, rhs: DumpValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Encodes any `Encodable` value into a tree.
    public static func from(_ value: some Encodable) throws -> DumpValue {
        try DumpEncoder.encode(value, codingPath: []).value
    }

    // MARK: - Rendering

    /// JSON on one line, without spaces.
    public var compactJSON: String {
        var output = ""
        renderCompactJSON(into: &output)
        return output
    }

    private func renderCompactJSON(into output: inout String) {
        switch self {
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.renderCompactJSON(into: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                output += Self.quoted(key) + ":"
                value.renderCompactJSON(into: &output)
            }
            output += "}"
        default:
            output += scalarText
        }
    }

    /// Pretty-printed JSON with two-space indentation and a trailing newline.
    public var json: String {
        var output = ""
        renderJSON(into: &output, indent: "")
        return output + "\n"
    }

    private func renderJSON(into output: inout String, indent: String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .double(let value): output += Self.number(value)
        case .string(let value): output += Self.quoted(value)
        case .array(let items):
            guard !items.isEmpty else {
                output += "[]"
                return
            }
            output += "[\n"
            for (index, item) in items.enumerated() {
                output += indent + "  "
                item.renderJSON(into: &output, indent: indent + "  ")
                output += index == items.count - 1 ? "\n" : ",\n"
            }
            output += indent + "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{\n"
            for (index, (key, value)) in members.enumerated() {
                output += indent + "  " + Self.quoted(key) + ": "
                value.renderJSON(into: &output, indent: indent + "  ")
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += indent + "}"
        }
    }

    /// An indented, YAML-like text form: `key: value`, lists as `- item`.
    public var text: String {
        var output = ""
        renderText(into: &output, indent: "")
        return output
    }

    private func renderText(into output: inout String, indent: String) {
        switch self {
        case .object(let members):
            for (key, value) in members {
                output += indent + key + ":"
                value.renderNested(into: &output, indent: indent)
            }
        case .array(let items):
            for item in items {
                output += indent + "-"
                item.renderNested(into: &output, indent: indent)
            }
        default:
            output += indent + scalarText + "\n"
        }
    }

    private func renderNested(into output: inout String, indent: String) {
        switch self {
        case .object(let members) where !members.isEmpty:
            output += "\n"
            renderText(into: &output, indent: indent + "  ")
        case .array(let items) where !items.isEmpty:
            output += "\n"
            renderText(into: &output, indent: indent + "  ")
        default:
            output += " " + scalarText + "\n"
        }
    }

    private var scalarText: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .double(let value): Self.number(value)
        case .string(let value): Self.quoted(value)
        case .array: "[]"
        case .object: "{}"
        }
    }

    static func number(_ value: Double) -> String {
        if value.isFinite, value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return value.isFinite ? String(value) : "null"
    }

    static func quoted(_ text: String) -> String {
        if !text.hasByteNeedingEscape() { return "\"" + text + "\"" }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
