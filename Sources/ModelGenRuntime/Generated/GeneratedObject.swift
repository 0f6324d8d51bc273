/// What generated entity classes implement for the runtime: read a row into typed stored
/// properties, bind them back, and reach them by slot for dynamic key access.
///
/// Only generated code conforms; its members are not meant to be called by users.
@_spi(Generated)
public protocol GeneratedObject: ManagedObject {
    static var entityDescription: EntityDescription { get }

    /// Reads the attribute columns, which start at `column` in the statement's row.
    func read(from row: Statement, startingAt column: Int32)

    /// Binds every attribute, in slot order, starting at parameter `index`.
    func bind(to statement: Statement, startingAt index: Int32)

    /// The value of the attribute in `slot` (`nil` for an unset optional).
    func value(atSlot slot: Int) -> Any?

    /// Sets the attribute in `slot`; throws `.wrongType` when `value` does not fit.
    func setValue(_ value: Any?, atSlot slot: Int) throws(DatabaseError)

    /// A fresh object with the model's defaults.
    init()
}

/// The compile-time handshake: generated files declare a type conforming to this protocol, so a
/// generator and a runtime of different contract versions do not compile together.
public protocol GeneratedCodeVersion_0_1 {}
