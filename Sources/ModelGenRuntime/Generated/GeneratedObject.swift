/// The compile-time handshake: every generated file declares a type conforming to this protocol,
/// so a generator and a runtime of different contract versions do not compile together (the error
/// names the missing protocol, i.e. the version the generated code expects).
public protocol GeneratedCodeVersion_0_1 {}

/// What the generated extension of a `category` entity supplies: the class is the user's, so the
/// metadata and key-path lookup come through this protocol instead of overrides, and the
/// attributes live in the runtime's per-object storage.
public protocol GeneratedEntity: ManagedObject {
    @_spi(Generated) static var modelGenEntity: EntityDescription { get }
    @_spi(Generated) static func modelGenSlot(for keyPath: AnyKeyPath) -> Int?
}
