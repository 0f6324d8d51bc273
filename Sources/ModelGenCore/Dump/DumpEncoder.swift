/// A minimal `Encoder` that builds a `DumpValue` tree in encoding order.
final class DumpEncoder: Encoder {
    /// A mutable box for the value being built, shared with nested containers.
    final class Storage {
        var value: DumpValue = .null
    }

    let storage: Storage
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(storage: Storage = Storage(), codingPath: [any CodingKey] = []) {
        self.storage = storage
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = storage.value {} else { storage.value = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(storage: storage, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = storage.value {} else { storage.value = .array([]) }
        return UnkeyedContainer(storage: storage, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(storage: storage, codingPath: codingPath)
    }

    static func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws -> DumpValue {
        switch value {
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as Double: return .double(number)
        default:
            let encoder = DumpEncoder(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.storage.value
        }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let storage: Storage
        let codingPath: [any CodingKey]

        private func append(_ key: Key, _ value: DumpValue) {
            guard case .object(var members) = storage.value else { return }
            storage.value = .null  // drop the second reference so the append does not copy
            members.append((key.stringValue, value))
            storage.value = .object(members)
        }

        mutating func encodeNil(forKey key: Key) throws { append(key, .null) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { append(key, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { append(key, .string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { append(key, .double(value)) }
        mutating func encode(_ value: Float, forKey key: Key) throws { append(key, .double(Double(value))) }
        mutating func encode(_ value: Int, forKey key: Key) throws { append(key, .integer(Int64(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { append(key, .integer(value)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            append(key, try DumpEncoder.encode(value, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("nested containers are not used by modelgen's dump types")
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("nested containers are not used by modelgen's dump types")
        }

        mutating func superEncoder() -> any Encoder { preconditionFailure("superEncoder is not supported") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("superEncoder is not supported") }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let storage: Storage
        let codingPath: [any CodingKey]

        var count: Int {
            if case .array(let items) = storage.value { return items.count }
            return 0
        }

        private func append(_ value: DumpValue) {
            guard case .array(var items) = storage.value else { return }
            storage.value = .null  // drop the second reference so the append does not copy
            items.append(value)
            storage.value = .array(items)
        }

        mutating func encodeNil() throws { append(.null) }
        mutating func encode(_ value: Bool) throws { append(.bool(value)) }
        mutating func encode(_ value: String) throws { append(.string(value)) }
        mutating func encode(_ value: Double) throws { append(.double(value)) }
        mutating func encode(_ value: Int) throws { append(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { append(.integer(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            append(try DumpEncoder.encode(value, codingPath: codingPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            preconditionFailure("nested containers are not used by modelgen's dump types")
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("nested containers are not used by modelgen's dump types")
        }

        mutating func superEncoder() -> any Encoder { preconditionFailure("superEncoder is not supported") }
    }

    private struct SingleContainer: SingleValueEncodingContainer {
        let storage: Storage
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { storage.value = .null }
        mutating func encode(_ value: Bool) throws { storage.value = .bool(value) }
        mutating func encode(_ value: String) throws { storage.value = .string(value) }
        mutating func encode(_ value: Double) throws { storage.value = .double(value) }
        mutating func encode(_ value: Int) throws { storage.value = .integer(Int64(value)) }
        mutating func encode(_ value: Int64) throws { storage.value = .integer(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            storage.value = try DumpEncoder.encode(value, codingPath: codingPath)
        }
    }
}
