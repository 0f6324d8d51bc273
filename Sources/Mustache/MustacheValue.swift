/// The data a template is rendered with: JSON-like values.
///
/// Contexts are built once, before rendering (all decisions are made in Swift). Templates render
/// against a `MustacheTree`, the same values held flat; a `MustacheValue` is turned into one
/// (large contexts are better built as trees directly, with `MustacheTreeBuilder`).
public enum MustacheValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([MustacheValue])
    case object(MustacheObject)
}

extension MustacheValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: MustacheValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .object(MustacheObject(elements))
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
            let members = try container.decode([String: MustacheValue].self)
            // Sorted by key: the order a JSON object's members are read in is not significant.
            self = .object(MustacheObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        }
    }
}

/// The members of a context object, in the order they were given.
///
/// A list of pairs, not a dictionary: a context object has a few tens of members at most, built
/// once and looked up by name while rendering, where comparing names (short, mostly stored inline)
/// is cheaper than hashing them, and making one costs a single allocation. When a name appears
/// twice, the later member wins, as in a dictionary literal.
public struct MustacheObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The members as given: (name, value).
    public private(set) var members: [(String, MustacheValue)]

    public init(_ members: [(String, MustacheValue)]) {
        self.members = members
    }

    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self.init(elements)
    }

    /// The member named `key` (the last one, when there are several).
    public subscript(key: String) -> MustacheValue? {
        get {
            // Lengths first: most names that differ differ in length, and comparing lengths is
            // much cheaper than comparing strings.
            let length = key.utf8.count
            return members.withUnsafeBufferPointer { members in
                var index = members.count
                while index > 0 {
                    index -= 1
                    if members[index].0.utf8.count == length, members[index].0 == key { return members[index].1 }
                }
                return nil
            }
        }
        set {
            members.removeAll { $0.0 == key }
            if let newValue { members.append((key, newValue)) }
        }
    }

    /// Every name once with its value (the winning member), in the order of first appearance.
    public var uniqueMembers: [(key: String, value: MustacheValue)] {
        var seen = Set<String>()
        var result: [(key: String, value: MustacheValue)] = []
        for (key, _) in members where seen.insert(key).inserted { result.append((key, self[key]!)) }
        return result
    }

    /// Equal when they have the same names with equal values, in any order.
    public static func == (lhs: MustacheObject, rhs: MustacheObject) -> Bool {
        let left = lhs.uniqueMembers
        let right = rhs.uniqueMembers
        guard left.count == right.count else { return false }
        return left.allSatisfy { rhs[$0.key] == $0.value }
    }
}
