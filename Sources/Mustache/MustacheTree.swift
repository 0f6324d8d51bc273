/// A context held flat: every value a node in one array, every string's bytes in one buffer,
/// object members and list items in two more. Rendering walks it by index — no reference counting,
/// no allocation per value — and building one appends to four arrays instead of allocating a
/// string, an array or an object per value (a 2,000-entity model's contexts have ~750,000 values).
///
/// Build one with `MustacheTreeBuilder`, or from a `MustacheValue` (`init(_:)`); `value` turns it
/// back into a `MustacheValue` (for printing a context).
public struct MustacheTree: Sendable {
    /// A value of the tree, by its place in `nodes`; meaningful only in the builder (and then
    /// the tree) that made it.
    public struct Ref: Hashable, Sendable {
        let index: Int
    }

    enum Kind: UInt8, Sendable {
        case null, bool, number, string, list, object
    }

    /// One value: a string's bytes are `bytes[start..<start + count]`, an object's members
    /// `members[start..<start + count]`, a list's items `items[start..<start + count]`; a
    /// number's bit pattern is in `start`, a bool is `count != 0`.
    struct Node: Sendable {
        var kind: Kind
        var start: Int
        var count: Int
    }

    struct Member: Sendable {
        var key: Int32
        var value: Int
    }

    var nodes: [Node] = []
    var bytes = TextBuffer()
    var members: [Member] = []
    var items: [Int] = []
    /// The value templates render against.
    public internal(set) var root = Ref(index: 0)

    /// The tree of `value` (an object's members keep their order, repeated names included).
    public init(_ value: MustacheValue) {
        var builder = MustacheTreeBuilder()
        self = builder.finish(root: builder.add(value))
    }

    init() {}

    /// The value at `ref`, as a `MustacheValue`.
    public func value(_ ref: Ref) -> MustacheValue {
        let node = nodes[ref.index]
        switch node.kind {
        case .null: return .null
        case .bool: return .bool(node.count != 0)
        case .number: return .number(Double(bitPattern: UInt64(bitPattern: Int64(node.start))))
        case .string:
            return .string(
                bytes.withUnsafeBufferPointer {
                    String(
                        decoding: UnsafeBufferPointer(rebasing: $0[node.start..<node.start + node.count]), as: UTF8.self
                    )
                })
        case .list: return .list(items[node.start..<node.start + node.count].map { value(Ref(index: $0)) })
        case .object:
            return .object(
                MustacheObject(
                    members[node.start..<node.start + node.count].map {
                        (MustacheKey(id: $0.key).name, value(Ref(index: $0.value)))
                    }))
        }
    }

    /// The whole tree as a `MustacheValue`.
    public var value: MustacheValue { value(root) }

    // MARK: - Rendering

    /// Whether a section over `index` renders (Mustache's truthiness); `nil` is a missing value.
    func isTruthy(_ index: Int?) -> Bool {
        guard let index else { return false }
        let node = nodes[index]
        switch node.kind {
        case .null: return false
        case .bool: return node.count != 0
        case .list: return node.count > 0
        case .number, .string, .object: return true
        }
    }

    /// The member `key` of the object at `index` (the last one, when there are several).
    @inline(__always)
    func member(_ key: Int32, of index: Int) -> Int? {
        let node = nodes[index]
        guard node.kind == .object else { return nil }
        return members.withUnsafeBufferPointer { members in
            var position = node.start + node.count
            while position > node.start {
                position -= 1
                if members[position].key == key { return members[position].value }
            }
            return nil
        }
    }

    /// Appends the text an interpolation of `index` produces.
    func appendText(_ index: Int, escapingHTML: Bool, to output: inout TextBuffer) {
        let node = nodes[index]
        switch node.kind {
        case .null, .list, .object: return
        case .bool: output.append(node.count != 0 ? "true" : "false")
        case .number:
            let number = Double(bitPattern: UInt64(bitPattern: Int64(node.start)))
            if number.rounded() == number, abs(number) < 1e15 {
                output.append(integer: Int64(number))
            } else {
                output.append(string: String(number))
            }
        case .string:
            bytes.withUnsafeBufferPointer { bytes in
                let text = UnsafeBufferPointer(rebasing: bytes[node.start..<node.start + node.count])
                if escapingHTML { Self.appendEscapingHTML(text, to: &output) } else { output.append(bytes: text) }
            }
        }
    }

    static func appendEscapingHTML(_ text: UnsafeBufferPointer<UInt8>, to output: inout TextBuffer) {
        // The four characters are ASCII and never part of another character.
        for byte in text {
            switch byte {
            case UInt8(ascii: "&"): output.append("&amp;")
            case UInt8(ascii: "<"): output.append("&lt;")
            case UInt8(ascii: ">"): output.append("&gt;")
            case UInt8(ascii: "\""): output.append("&quot;")
            default: output.append(byte: byte)
            }
        }
    }
}

extension MustacheKey {
    init(id: Int32) { self.id = id }
}

/// Builds a `MustacheTree` bottom up: a member's or item's value is added first, then put into
/// the object or list being built.
///
/// ```swift
/// var builder = MustacheTreeBuilder()
/// let object = builder.beginObject()
/// builder.member(nameKey, builder.string("Ada"))
/// let tree = builder.finish(root: builder.endObject(object))
/// ```
/// Objects and lists nest: one begun while another is open is ended before it.
public struct MustacheTreeBuilder {
    private var tree = MustacheTree()
    /// Members of the open objects, innermost last (moved to the tree when their object ends).
    private var openMembers: [MustacheTree.Member] = []
    /// Items of the open lists, innermost last.
    private var openItems: [Int] = []

    public init() {}

    /// Where an open object's members begin.
    public struct ObjectMark {
        let start: Int
    }

    /// Where an open list's items begin.
    public struct ListMark {
        let start: Int
    }

    private mutating func node(_ kind: MustacheTree.Kind, _ start: Int, _ count: Int) -> MustacheTree.Ref {
        tree.nodes.append(MustacheTree.Node(kind: kind, start: start, count: count))
        return MustacheTree.Ref(index: tree.nodes.count - 1)
    }

    public mutating func null() -> MustacheTree.Ref { node(.null, 0, 0) }

    public mutating func bool(_ flag: Bool) -> MustacheTree.Ref { node(.bool, 0, flag ? 1 : 0) }

    public mutating func number(_ number: Double) -> MustacheTree.Ref {
        node(.number, Int(Int64(bitPattern: number.bitPattern)), 0)
    }

    public mutating func number(_ number: Int) -> MustacheTree.Ref { self.number(Double(number)) }

    public mutating func string(_ text: String) -> MustacheTree.Ref {
        let start = tree.bytes.count
        tree.bytes.append(string: text)
        return node(.string, start, tree.bytes.count - start)
    }

    /// The string `first` followed by `second`, made in place.
    public mutating func string(_ first: String, _ second: String) -> MustacheTree.Ref {
        let start = tree.bytes.count
        tree.bytes.append(string: first)
        tree.bytes.append(string: second)
        return node(.string, start, tree.bytes.count - start)
    }

    /// A string written in place: `write` appends its UTF-8 to the tree's bytes (no `String` made).
    public mutating func string(writing write: (inout TextBuffer) -> Void) -> MustacheTree.Ref {
        let start = tree.bytes.count
        write(&tree.bytes)
        return node(.string, start, tree.bytes.count - start)
    }

    public mutating func beginObject() -> ObjectMark { ObjectMark(start: openMembers.count) }

    /// Adds a member to the innermost open object.
    public mutating func member(_ key: MustacheKey, _ value: MustacheTree.Ref) {
        openMembers.append(MustacheTree.Member(key: key.id, value: value.index))
    }

    public mutating func member(_ key: MustacheKey, _ text: String) { member(key, string(text)) }
    public mutating func member(_ key: MustacheKey, _ flag: Bool) { member(key, bool(flag)) }
    public mutating func member(_ key: MustacheKey, _ number: Int) { member(key, self.number(number)) }

    public mutating func endObject(_ mark: ObjectMark) -> MustacheTree.Ref {
        let start = tree.members.count
        tree.members.append(contentsOf: openMembers[mark.start...])
        openMembers.removeSubrange(mark.start...)
        return node(.object, start, tree.members.count - start)
    }

    public mutating func beginList() -> ListMark { ListMark(start: openItems.count) }

    /// Adds an item to the innermost open list.
    public mutating func item(_ value: MustacheTree.Ref) { openItems.append(value.index) }

    public mutating func endList(_ mark: ListMark) -> MustacheTree.Ref {
        let start = tree.items.count
        tree.items.append(contentsOf: openItems[mark.start...])
        openItems.removeSubrange(mark.start...)
        return node(.list, start, tree.items.count - start)
    }

    /// A list of values already added. (Not generic: generic code is not specialized across
    /// modules, and walking a lazy sequence unspecialized costs more than building the list.)
    public mutating func list(_ values: ArraySlice<MustacheTree.Ref>) -> MustacheTree.Ref {
        let start = tree.items.count
        tree.items.reserveCapacity(start + values.count)
        for value in values { tree.items.append(value.index) }
        return node(.list, start, values.count)
    }

    public mutating func list(_ values: [MustacheTree.Ref]) -> MustacheTree.Ref { list(values[...]) }

    /// Adds `value` and everything in it.
    public mutating func add(_ value: MustacheValue) -> MustacheTree.Ref {
        switch value {
        case .null: return null()
        case .bool(let flag): return bool(flag)
        case .number(let number): return self.number(number)
        case .string(let text): return string(text)
        case .list(let values):
            let mark = beginList()
            for value in values { item(add(value)) }
            return endList(mark)
        case .object(let object):
            let mark = beginObject()
            for (name, value) in object.members { member(MustacheKey(name), add(value)) }
            return endObject(mark)
        }
    }

    /// Reserves room for about `bytes` bytes of strings and `values` values.
    public mutating func reserveCapacity(bytes: Int, values: Int) {
        tree.bytes.reserveCapacity(tree.bytes.count + bytes)
        tree.nodes.reserveCapacity(values)
        tree.members.reserveCapacity(values)
        // The members and items of the objects and lists open at one time: a few levels of
        // them (grown from empty, they were reallocated several times per tree).
        openMembers.reserveCapacity(min(values, 128))
        openItems.reserveCapacity(min(values, 64))
    }

    /// The tree, rendered from `root`; the builder is left empty. Objects and lists still open
    /// are left out. (Mutating, not consuming: a consuming method would take the builder before
    /// an argument like `builder.endObject(mark)` changed it.)
    public mutating func finish(root: MustacheTree.Ref) -> MustacheTree {
        precondition(root.index < tree.nodes.count, "the root was not made by this builder")
        tree.root = root
        defer {
            tree = MustacheTree()
            openMembers = []
            openItems = []
        }
        return tree
    }
}
