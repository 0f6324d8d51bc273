/// A minimal `Encoder` that builds a `DumpValue` tree in encoding order, with nested containers
/// (the synthesized `Codable` of enums with associated values uses them).
final class DumpEncoder: Encoder {
    /// A node of the tree being built; containers share nodes by reference and the tree is turned
    /// into a `DumpValue` once encoding is done.
    final class Node {
        enum Content {
            case value(DumpValue)
            case object([(String, Node)])
            case array([Node])
        }

        var content: Content = .value(.null)

        var value: DumpValue {
            switch content {
            case .value(let value): value
            case .object(let members): .object(members.map { ($0.0, $0.1.value) })
            case .array(let items): .array(items.map(\.value))
            }
        }

        func becomeObject() {
            if case .object = content { return }
            content = .object([])
        }

        func becomeArray() {
            if case .array = content { return }
            content = .array([])
        }

        func append(_ key: String, _ node: Node) {
            guard case .object(var members) = content else { return }
            content = .value(.null)  // drop the second reference so the append does not copy
            members.append((key, node))
            content = .object(members)
        }

        func append(_ node: Node) {
            guard case .array(var items) = content else { return }
            content = .value(.null)
            items.append(node)
            content = .array(items)
        }

        var count: Int {
            if case .array(let items) = content { return items.count }
            return 0
        }
    }

    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: Node = Node(), codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }

    static func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws -> Node {
        let node = Node()
        switch value {
        case let text as String: node.content = .value(.string(text))
        case let flag as Bool: node.content = .value(.bool(flag))
        case let number as Int: node.content = .value(.integer(Int64(number)))
        case let number as Int64: node.content = .value(.integer(number))
        case let number as Double: node.content = .value(.double(number))
        default: try value.encode(to: DumpEncoder(node: node, codingPath: codingPath))
        }
        return node
    }

    private static func leaf(_ value: DumpValue) -> Node {
        let node = Node()
        node.content = .value(value)
        return node
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.append(key.stringValue, leaf(.null)) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { node.append(key.stringValue, leaf(.bool(value))) }
        mutating func encode(_ value: String, forKey key: Key) throws {
            node.append(key.stringValue, leaf(.string(value)))
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            node.append(key.stringValue, leaf(.double(value)))
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            node.append(key.stringValue, leaf(.double(Double(value))))
        }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            node.append(key.stringValue, leaf(.integer(Int64(value))))
        }
        mutating func encode(_ value: Int64, forKey key: Key) throws {
            node.append(key.stringValue, leaf(.integer(value)))
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            node.append(key.stringValue, try DumpEncoder.encode(value, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = Node()
            child.becomeObject()
            node.append(key.stringValue, child)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node()
            child.becomeArray()
            node.append(key.stringValue, child)
            return UnkeyedContainer(node: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { DumpEncoder(node: node, codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = Node()
            node.append(key.stringValue, child)
            return DumpEncoder(node: child, codingPath: codingPath + [key])
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        var count: Int { node.count }

        mutating func encodeNil() throws { node.append(leaf(.null)) }
        mutating func encode(_ value: Bool) throws { node.append(leaf(.bool(value))) }
        mutating func encode(_ value: String) throws { node.append(leaf(.string(value))) }
        mutating func encode(_ value: Double) throws { node.append(leaf(.double(value))) }
        mutating func encode(_ value: Int) throws { node.append(leaf(.integer(Int64(value)))) }
        mutating func encode(_ value: Int64) throws { node.append(leaf(.integer(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            node.append(try DumpEncoder.encode(value, codingPath: codingPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = Node()
            child.becomeObject()
            node.append(child)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Node()
            child.becomeArray()
            node.append(child)
            return UnkeyedContainer(node: child, codingPath: codingPath)
        }

        mutating func superEncoder() -> any Encoder {
            let child = Node()
            node.append(child)
            return DumpEncoder(node: child, codingPath: codingPath)
        }
    }

    private struct SingleContainer: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .value(.null) }
        mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
        mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
        mutating func encode(_ value: Double) throws { node.content = .value(.double(value)) }
        mutating func encode(_ value: Int) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.content = .value(.integer(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            node.content = try DumpEncoder.encode(value, codingPath: codingPath).content
        }
    }
}
