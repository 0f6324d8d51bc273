import Foundation

/// Reads and binds of attributes whose Swift type is the program's own, for generated code.
///
/// A read or bind cannot throw (it runs once per column of every row), so one that fails records
/// `conversionFailure` and leaves the value as it was; the fetch, refresh or save that made the
/// call throws `.conversion` naming the entity, attribute and row before the object is handed out
/// or the row written.
extension Statement {
    /// Reads the raw value in `column` into `value` (unchanged when it is no value of `Value`).
    public func readRawValue<Value: RawRepresentable>(_ column: Int32, into value: inout Value, slot: Int)
    where Value.RawValue: ColumnValue {
        let raw = Value.RawValue.read(self, column)
        if let typed = Value(rawValue: raw) {
            value = typed
        } else {
            noteUnknownRawValue(raw, slot: slot)
        }
    }

    /// Reads the raw value in `column` (`nil` for NULL) into `value`.
    public func readRawValue<Value: RawRepresentable>(_ column: Int32, into value: inout Value?, slot: Int)
    where Value.RawValue: ColumnValue {
        if isNull(column) {
            value = nil
            return
        }
        let raw = Value.RawValue.read(self, column)
        if let typed = Value(rawValue: raw) {
            value = typed
        } else {
            noteUnknownRawValue(raw, slot: slot)
        }
    }

    /// Binds `value`'s raw value to parameter `index`.
    public func bindRawValue<Value: RawRepresentable>(_ value: Value, at index: Int32)
    where Value.RawValue: ColumnValue {
        value.rawValue.bind(self, index)
    }

    /// Binds `value`'s raw value (NULL for `nil`) to parameter `index`.
    public func bindRawValue<Value: RawRepresentable>(_ value: Value?, at index: Int32)
    where Value.RawValue: ColumnValue {
        if let value { value.rawValue.bind(self, index) } else { bindNull(index) }
    }

    /// Decodes the bytes in `column` (`nil` for NULL) into `value` with `coding`.
    public func readCoded<Value>(_ column: Int32, into value: inout Value?, _ coding: ValueCoding<Value>, slot: Int) {
        if isNull(column) {
            value = nil
            return
        }
        do {
            value = try coding.decode(Data(bytes(column)))
        } catch {
            noteConversionFailure(ValueConversion.failure(error, decoding: Value.self), slot: slot)
        }
    }

    /// Binds the bytes `coding` makes of `value` (NULL for `nil`) to parameter `index`.
    public func bindCoded<Value>(_ value: Value?, at index: Int32, _ coding: ValueCoding<Value>, slot: Int) {
        guard let value else { return bindNull(index) }
        do {
            try coding.encode(value).bind(self, index)
        } catch {
            bindNull(index)
            noteConversionFailure(ValueConversion.failure(error, encoding: Value.self), slot: slot)
        }
    }

    private func noteUnknownRawValue(_ raw: some Any, slot: Int) {
        noteConversionFailure(
            DatabaseError(.conversion, "\(String(reflecting: raw)) is not a raw value of the attribute's type"),
            slot: slot)
    }

    /// Records the first failed conversion since the last check.
    func noteConversionFailure(_ error: DatabaseError, slot: Int) {
        if conversionFailure == nil { conversionFailure = (slot, error) }
    }

    /// Throws the conversion that failed while the current row was read into an object of
    /// `entity`, naming the attribute, its Swift type and the row.
    @inline(__always)
    func checkConversions(_ entity: EntityDescription, row: Int64) throws(DatabaseError) {
        guard let (slot, error) = conversionFailure else { return }
        conversionFailure = nil
        throw Self.located(error, slot, entity, "row \(row) of \(entity.table)")
    }

    /// `error` with the entity and attribute of `slot` named.
    static func located(_ error: DatabaseError, _ slot: Int, _ entity: EntityDescription, _ place: String)
        -> DatabaseError
    {
        guard slot < entity.attributes.count else { return error }
        let attribute = entity.attributes[slot]
        var located = error
        located.message =
            "\(entity.name).\(attribute.name) (\(attribute.conversion?.typeName ?? "\(attribute.type)")), \(place): \(error.message)"
        located.entity = entity.name
        located.property = attribute.name
        return located
    }
}
