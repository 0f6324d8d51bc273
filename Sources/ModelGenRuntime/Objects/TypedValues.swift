import Foundation

/// How the Swift value of a transformable attribute becomes the bytes of its column and back.
///
/// Generated code uses `.json` for a `customClassName` that names a `Codable` type, and
/// `.transformer(named:)` when the model also names a `valueTransformerName` of its own:
///
/// ```swift
/// ValueTransformers.register("ColorTransformer", for: Color.self,
///     encode: { color in Data(color.hex.utf8) },
///     decode: { data in try Color(hex: String(decoding: data, as: UTF8.self)) })
/// ```
public struct ValueCoding<Value>: Sendable {
    let encode: @Sendable (Value) throws -> Data
    let decode: @Sendable (Data) throws -> Value

    public init(encode: @escaping @Sendable (Value) throws -> Data, decode: @escaping @Sendable (Data) throws -> Value)
    {
        self.encode = encode
        self.decode = decode
    }
}

extension ValueCoding where Value: Codable & SendableMetatype {
    /// JSON, keys sorted (the same value is always the same bytes).
    public static var json: ValueCoding {
        ValueCoding(
            encode: { value in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return try encoder.encode(value)
            },
            decode: { data in try JSONDecoder().decode(Value.self, from: data) })
    }
}

extension ValueCoding where Value: SendableMetatype {
    /// The transformer registered under `name` for `Value` (`ValueTransformers.register`), looked
    /// up when a value is read or written; an error names the transformer when none is.
    public static func transformer(named name: String) -> ValueCoding {
        ValueCoding(
            encode: { value in try ValueTransformers.coding(named: name, for: Value.self).encode(value) },
            decode: { data in try ValueTransformers.coding(named: name, for: Value.self).decode(data) })
    }
}

/// The value transformers a program registers by the names its model gives them
/// (`valueTransformerName`), for transformable attributes whose `customClassName` is a Swift type.
/// Register before the first object is read or saved; registering a name again replaces it.
public enum ValueTransformers {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered: [String: any Sendable] = [:]

    /// Registers `encode` and `decode` as the transformer called `name` for values of `type`.
    public static func register<Value>(
        _ name: String, for type: Value.Type, encode: @escaping @Sendable (Value) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Value
    ) {
        lock.withLock { registered[name] = ValueCoding(encode: encode, decode: decode) }
    }

    /// Removes the transformer called `name`.
    public static func unregister(_ name: String) {
        _ = lock.withLock { registered.removeValue(forKey: name) }
    }

    static func coding<Value>(named name: String, for type: Value.Type) throws(DatabaseError) -> ValueCoding<Value> {
        let found = lock.withLock { registered[name] }
        guard let found else {
            throw DatabaseError(
                .conversion,
                "no value transformer '\(name)' is registered: call ValueTransformers.register(\"\(name)\", for: \(Value.self).self, …)"
            )
        }
        guard let coding = found as? ValueCoding<Value> else {
            throw DatabaseError(
                .conversion, "the value transformer '\(name)' is registered for another type than \(Value.self)")
        }
        return coding
    }
}

/// How an attribute whose Swift type is the program's own (a `RawRepresentable` type, or a
/// transformable's `Codable` type) converts to the value its column stores and back: what the
/// runtime uses where it handles values without knowing their types (predicates evaluated in
/// memory, uniqueness, validation, dynamic access, `category` entities).
public struct ValueConversion: Sendable, Hashable {
    /// The Swift type's name, for messages.
    public let typeName: String
    /// Whether the value is of the Swift type.
    let isTyped: @Sendable (Any) -> Bool
    /// The value the column stores (a raw value, or bytes).
    let stored: @Sendable (Any) throws(DatabaseError) -> Any
    /// The Swift value of a stored value.
    let typed: @Sendable (Any) throws(DatabaseError) -> Any

    /// A `RawRepresentable` type stored as its raw value.
    public static func rawValue<Value: RawRepresentable & SendableMetatype>(_ type: Value.Type) -> ValueConversion
    where Value.RawValue: ColumnValue & SendableMetatype {
        ValueConversion(
            typeName: "\(Value.self)", isTyped: { $0 is Value },
            stored: { value throws(DatabaseError) in
                guard let typed = value as? Value else {
                    throw DatabaseError(.wrongType, "\(Swift.type(of: value)) is not \(Value.self)")
                }
                return typed.rawValue
            },
            typed: { value throws(DatabaseError) in
                if let typed = value as? Value { return typed }
                guard
                    let raw = value as? Value.RawValue ?? ManagedObject.convertedInteger(value, to: Value.RawValue.self)
                else {
                    throw DatabaseError(
                        .wrongType, "\(Swift.type(of: value)) is neither \(Value.self) nor its raw value")
                }
                guard let typed = Value(rawValue: raw) else {
                    throw DatabaseError(.conversion, "\(String(reflecting: raw)) is not a raw value of \(Value.self)")
                }
                return typed
            })
    }

    /// A transformable's Swift type, stored as the bytes `coding` makes.
    public static func coded<Value: SendableMetatype>(_ coding: ValueCoding<Value>) -> ValueConversion {
        ValueConversion(
            typeName: "\(Value.self)", isTyped: { $0 is Value },
            stored: { value throws(DatabaseError) in
                guard let typed = value as? Value else {
                    throw DatabaseError(.wrongType, "\(Swift.type(of: value)) is not \(Value.self)")
                }
                do { return try coding.encode(typed) } catch {
                    throw ValueConversion.failure(error, encoding: Value.self)
                }
            },
            typed: { value throws(DatabaseError) in
                if let typed = value as? Value { return typed }
                guard let data = value as? Data ?? (value as? [UInt8]).map({ Data($0) }) else {
                    throw DatabaseError(
                        .wrongType, "\(Swift.type(of: value)) is neither \(Value.self) nor its stored bytes")
                }
                do { return try coding.decode(data) } catch {
                    throw ValueConversion.failure(error, decoding: Value.self)
                }
            })
    }

    /// The error of a failed encoding (a transformer's own `DatabaseError` stays as it is).
    static func failure<Value>(_ error: any Error, encoding _: Value.Type) -> DatabaseError {
        (error as? DatabaseError) ?? DatabaseError(.conversion, "\(Value.self) could not be encoded: \(error)")
    }

    /// The error of a failed decoding.
    static func failure<Value>(_ error: any Error, decoding _: Value.Type) -> DatabaseError {
        (error as? DatabaseError) ?? DatabaseError(.conversion, "the stored bytes are not a \(Value.self): \(error)")
    }

    public static func == (lhs: ValueConversion, rhs: ValueConversion) -> Bool { lhs.typeName == rhs.typeName }
    public func hash(into hasher: inout Hasher) { hasher.combine(typeName) }
}

extension ManagedObject {
    /// The value in `slot` as its column stores it: a typed attribute's raw value or bytes
    /// (`nil` when it cannot be encoded; a save reports that), else the value itself.
    final func storedForm(atSlot slot: Int, _ entity: EntityDescription) -> Any? {
        let value = value(atSlot: slot)
        guard entity.hasConversions, let conversion = entity.attributes[slot].conversion,
            let present = unwrappedValue(value)
        else {
            return value
        }
        return try? conversion.stored(present)
    }
}

/// The value of a typed attribute's model default `raw`. A default that is no value of `Value`
/// (the program's type and the model disagree) stops the program, naming both.
@_spi(Generated)
public func rawValueDefault<Value: RawRepresentable>(_ type: Value.Type, _ raw: Value.RawValue, _ attribute: String)
    -> Value
{
    guard let value = Value(rawValue: raw) else {
        preconditionFailure(
            "the model's default value of \(attribute) is not a raw value of \(Value.self): add it to \(Value.self) or change the model"
        )
    }
    return value
}
