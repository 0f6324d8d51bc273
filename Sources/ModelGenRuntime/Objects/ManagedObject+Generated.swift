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
    public final func checkedOptionalValue<Value>(_ value: Any?, _ type: Value.Type, slot: Int) throws(DatabaseError) -> Value? {
        guard let value, !((value as? any OptionalProtocol)?.isNil ?? false) else { return nil }
        return try checkedValue(value, Value.self, slot: slot)
    }

    private static func convertedInteger<Value>(_ value: Any?, to type: Value.Type) -> Value? {
        guard let number = value as? any BinaryInteger, let integerType = Value.self as? any FixedWidthInteger.Type else { return nil }
        return exactInteger(integerType, number) as? Value
    }

    private static func exactInteger<Integer: FixedWidthInteger, Number: BinaryInteger>(_ type: Integer.Type, _ number: Number) -> Integer? {
        Integer(exactly: number)
    }

    private func wrongType<Value>(_ value: Any?, _: Value.Type, slot: Int) -> DatabaseError {
        let entity = Self.entityDescription
        let name = slot < entity.attributes.count ? entity.attributes[slot].name : "slot \(slot)"
        return DatabaseError(
            .wrongType, "\(entity.name).\(name) takes values of type \(Value.self), not \(value.map { "\(type(of: $0))" } ?? "nil")",
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
        dynamicValues[slot] = (value as Any?).flatMap { ($0 as? any OptionalProtocol).map { $0.isNil ? nil : $0.wrapped } ?? $0 }
        didChange(slot: slot)
    }

    final func prepareDynamicValues() {
        if dynamicValues.count < Self.entityDescription.attributes.count {
            dynamicValues += Array(repeating: nil, count: Self.entityDescription.attributes.count - dynamicValues.count)
        }
    }

    /// Reads every attribute column into the dynamic storage (classes without generated `read`).
    final func readDynamic(from row: Statement, startingAt column: Int32) {
        let entity = Self.entityDescription
        prepareDynamicValues()
        for (slot, attribute) in entity.attributes.enumerated() {
            guard let position = entity.columns.firstIndex(of: attribute.column) else { continue }
            let index = column + Int32(position)
            dynamicValues[slot] = row.isNull(index) ? nil : Self.read(attribute.type, row, index)
        }
    }

    /// Binds the dynamic storage (classes without generated `bind`).
    final func bindDynamic(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 {
        prepareDynamicValues()
        var next = index
        for (slot, attribute) in Self.entityDescription.attributes.enumerated() where mask & EntityDescription.bit(slot) != 0 {
            if let value = dynamicValues[slot], let stored = StoredValue.from(value, for: attribute.type) {
                stored.bind(to: statement, at: next)
            } else {
                statement.bindNull(next)
            }
            next += 1
        }
        return next
    }

    private static func read(_ type: ValueType, _ row: Statement, _ column: Int32) -> Any {
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
    public final func transientValue(forKey key: String) -> Any? { transientValues[key] ?? nil }

    /// Sets a transient attribute's value.
    @_spi(Generated)
    public final func setTransientValue(_ value: Any?, forKey key: String) { transientValues[key] = value }
}

extension SortedArray where Element: ManagedObject {
    /// `elements` sorted by `descriptors` (stable: equal elements keep their order; with no
    /// descriptors, the order given).
    public init(_ elements: [Element], sortedBy descriptors: [ObjectSortDescriptor<Element>]) {
        self.init(elements) { lhs, rhs in
            for descriptor in descriptors {
                let order = StoredValue.order(
                    PredicateEvaluator.value(descriptor.slot, lhs), PredicateEvaluator.value(descriptor.slot, rhs),
                    caseInsensitive: descriptor.caseInsensitive)
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return false
        }
    }
}
