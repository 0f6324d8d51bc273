/// The data a template is rendered with: JSON-like values.
///
/// Contexts are built once, before rendering (all decisions are made in Swift); rendering only
/// looks values up, so no context is ever copied. Not `indirect`: lists and objects already hold
/// their elements out of line, and a boxed case cost an allocation per value (a context of 2,000
/// entities has ~750,000 of them).
public enum MustacheValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([MustacheValue])
    case object([String: MustacheValue])

    /// Whether a section over this value renders (Mustache's truthiness).
    var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let flag): flag
        case .list(let items): !items.isEmpty
        case .number, .string, .object: true
        }
    }

    /// The text an interpolation of this value produces.
    var text: String {
        switch self {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { String(Int64(number)) } else { String(number) }
        case .string(let text): text
        case .list, .object: ""
        }
    }
}

extension MustacheValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: MustacheValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension MustacheValue: Decodable {
    /// Reads JSON (the Mustache spec files): booleans, numbers, strings, arrays, objects, null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([MustacheValue].self) {
            self = .list(items)
        } else {
            self = .object(try container.decode([String: MustacheValue].self))
        }
    }
}
