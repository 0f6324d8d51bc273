import Foundation

extension ManagedObject {
    // MARK: - Dynamic access helpers for generated `setValue(_:atSlot:)`

    /// `value` as a `Value` for the attribute in `slot`; integers of other widths are converted
    /// when they fit.
    /// - Throws: `.wrongType` for `nil` or a value of another type.
    @_spi(Generated)
    public final func checkedValue<Value>(_ value: Any?, _ type: Value.Type, slot: Int) throws(DatabaseError) -> Value {
        if let typed = value as? Value { return typed }
        if let converted = Self.convertedInteger(value, to: Value.self) { return converted }
        throw wrongType(value, Value.self, slot: slot)
    }

    /// `value` as a `Value?` for the optional attribute in `slot`.
    /// - Throws: `.wrongType` for a value of another type.
    @_spi(Generated)
    public final func checkedOptionalValue<Value>(_ value: Any?, _ type: Value.Type, slot: Int) throws(DatabaseError)
        -> Value?
    {
        guard let value = unwrappedValue(value) else { return nil }
        return try checkedValue(value, Value.self, slot: slot)
    }

    /// `value` as the program's own `Value` for the attribute in `slot` (a `RawRepresentable` or
    /// `Codable` type): the value itself, or its stored form converted.
    /// - Throws: `.wrongType` for `nil` or a value of another type, `.conversion` for a stored
    ///   form that is no value of `Value`.
    @_spi(Generated)
    public final func checkedConvertedValue<Value>(_ value: Any?, _ type: Value.Type, slot: Int) throws(DatabaseError)
        -> Value
    {
        if let typed = value as? Value { return typed }
        guard let present = unwrappedValue(value), let conversion = Self.entityDescription.attributes[slot].conversion
        else {
            throw wrongType(value, Value.self, slot: slot)
        }
        do {
            if let typed = try conversion.typed(present) as? Value { return typed }
        } catch {
            throw Statement.located(error, slot, Self.entityDescription, "setting a value")
        }
        throw wrongType(value, Value.self, slot: slot)
    }

    /// `value` as a `Value?` for the optional (in Swift) attribute in `slot`.
    @_spi(Generated)
    public final func checkedOptionalConvertedValue<Value>(_ value: Any?, _ type: Value.Type, slot: Int)
        throws(DatabaseError) -> Value?
    {
        guard let value = unwrappedValue(value) else { return nil }
        return try checkedConvertedValue(value, Value.self, slot: slot)
    }

    static func convertedInteger<Value>(_ value: Any?, to type: Value.Type) -> Value? {
        guard let number = value as? any BinaryInteger, let integerType = Value.self as? any FixedWidthInteger.Type
        else { return nil }
        return exactInteger(integerType, number) as? Value
    }

    private static func exactInteger<Integer: FixedWidthInteger, Number: BinaryInteger>(
        _ type: Integer.Type, _ number: Number
    ) -> Integer? {
        Integer(exactly: number)
    }

    private func wrongType<Value>(_ value: Any?, _: Value.Type, slot: Int) -> DatabaseError {
        let entity = Self.entityDescription
        let name = slot < entity.attributes.count ? entity.attributes[slot].name : "slot \(slot)"
        return DatabaseError(
            .wrongType,
            "\(entity.name).\(name) takes values of type \(Value.self), not \(value.map { "\(type(of: $0))" } ?? "nil")",
            entity: entity.name, property: name)
    }

    // MARK: - Storage of `category` entities (the user's class, the generated extension)

    /// The attribute in `slot` of an object whose class keeps no typed storage.
    @_spi(Generated)
    public final func storedValue<Value>(atSlot slot: Int, default defaultValue: @autoclosure () -> Value) -> Value {
        prepareDynamicValues()
        return dynamicValues[slot] as? Value ?? defaultValue()
    }

    /// Sets the attribute in `slot` of an object whose class keeps no typed storage.
    @_spi(Generated)
    public final func setStoredValue<Value>(_ value: Value, atSlot slot: Int) {
        prepareDynamicValues()
        dynamicValues[slot] = unwrappedValue(value)
        didChange(slot: slot)
    }

    /// Gives the runtime's storage a place for every attribute, holding the model's default (or
    /// `nil`, which is stored as `NULL`) until a value is set or read.
    final func prepareDynamicValues() {
        let count = Self.entityDescription.attributes.count
        guard dynamicValues.count < count else { return }
        let generated = Self.self as? any GeneratedEntity.Type
        dynamicValues += (dynamicValues.count..<count).map { generated?.modelGenInitialValue(atSlot: $0) }
    }

    /// Reads every attribute column into the dynamic storage (classes without generated `read`).
    final func readDynamic(from row: Statement, startingAt column: Int32) {
        let entity = Self.entityDescription
        prepareDynamicValues()
        for (slot, attribute) in entity.attributes.enumerated() {
            guard let position = entity.columns.firstIndex(of: attribute.column) else { continue }
            let index = column + Int32(position)
            guard !row.isNull(index) else {
                dynamicValues[slot] = nil
                continue
            }
            let stored = Self.read(attribute.type, row, index)
            guard let conversion = attribute.conversion else {
                dynamicValues[slot] = stored
                continue
            }
            do throws(DatabaseError) {
                dynamicValues[slot] = try conversion.typed(stored)
            } catch {
                row.noteConversionFailure(error, slot: slot)
            }
        }
    }

    /// Binds the attributes whose bit is set in `mask`, in slot order, from parameter `index`, and
    /// returns the next free index: through the generated `bind` chain where every value has typed
    /// storage, else slot by slot through `value(atSlot:)`, which reaches typed storage and the
    /// runtime's alike (a generated class binds its own slots after its base class's, which
    /// would put them out of order around a `category` entity's).
    final func bindAttributes(
        to statement: Statement, startingAt index: Int32, mask: UInt64, _ entity: EntityDescription
    ) -> Int32 {
        guard entity.bindsBySlot else { return bind(to: statement, startingAt: index, mask: mask) }
        var next = index
        for (slot, attribute) in entity.attributes.enumerated() where mask & EntityDescription.bit(slot) != 0 {
            var value = value(atSlot: slot)
            if let conversion = attribute.conversion, let present = unwrappedValue(value) {
                do throws(DatabaseError) {
                    value = try conversion.stored(present)
                } catch {
                    value = nil
                    statement.noteConversionFailure(error, slot: slot)
                }
            }
            Self.bind(value, attribute.type, to: statement, at: next)
            next += 1
        }
        return next
    }

    /// Binds a value as its type's generated binder does (`nil` or an empty optional: `NULL`).
    static func bind(_ value: Any?, _ type: ValueType, to statement: Statement, at index: Int32) {
        if let value = unwrappedValue(value), let typed = swiftValue(value, for: type) as? any ColumnValue {
            typed.bind(statement, index)
        } else {
            statement.bindNull(index)
        }
    }

    /// `value` as the Swift type of an attribute of `type` (integers of other widths converted when
    /// they fit), or `nil` when it is of another type.
    static func swiftValue(_ value: Any, for type: ValueType) -> Any? {
        switch type {
        case .int16: value as? Int16 ?? convertedInteger(value, to: Int16.self)
        case .int32: value as? Int32 ?? convertedInteger(value, to: Int32.self)
        case .int64: value as? Int64 ?? convertedInteger(value, to: Int64.self)
        case .bool: value as? Bool
        case .double: value as? Double
        case .float: value as? Float
        case .decimal: value as? Decimal
        case .string: value as? String
        case .date: value as? Date
        case .data: value as? Data
        case .uuid: value as? UUID
        case .url: value as? URL
        }
    }

    static func read(_ type: ValueType, _ row: Statement, _ column: Int32) -> Any {
        switch type {
        case .int16: Int16.read(row, column)
        case .int32: Int32.read(row, column)
        case .int64: Int64.read(row, column)
        case .bool: Bool.read(row, column)
        case .double: Double.read(row, column)
        case .float: Float.read(row, column)
        case .decimal: Decimal.read(row, column)
        case .string: String.read(row, column)
        case .date: Date.read(row, column)
        case .data: Data.read(row, column)
        case .uuid: UUID.read(row, column)
        case .url: URL.read(row, column)
        }
    }

    // MARK: - Transient attributes

    /// A transient attribute's value (kept in memory, never saved).
    @_spi(Generated)
    public final func transientValue(forKey key: String) -> Any? {
        // Set (perhaps to nil), or never set: the model's default.
        if let value = transientValues[key] { return value }
        return type(of: self).entityDescription.transients[key] ?? nil
    }

    /// Sets a transient attribute's value.
    @_spi(Generated)
    public final func setTransientValue(_ value: Any?, forKey key: String) { transientValues[key] = value }
}

extension SortedArray where Element: ManagedObject {
    /// `elements` sorted by `descriptors` (stable: equal elements keep their order; with no
    /// descriptors, the order given). A descriptor of a key path that is not a stored attribute
    /// (which a fetch refuses with its error) orders nothing here.
    public init(_ elements: [Element], sortedBy descriptors: [ObjectSortDescriptor<Element>]) {
        self.init(elements) { lhs, rhs in
            for descriptor in descriptors where descriptor.failure == nil {
                let order = StoredValue.order(
                    PredicateEvaluator.value(descriptor.slot, lhs), PredicateEvaluator.value(descriptor.slot, rhs),
                    caseInsensitive: descriptor.caseInsensitive)
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return false
        }
    }
}
