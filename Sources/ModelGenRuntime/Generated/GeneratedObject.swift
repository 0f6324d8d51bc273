/// The compile-time handshake: every generated file declares a type conforming to this protocol,
/// so a generator and a runtime of different contract versions do not compile together (the error
/// names the missing protocol, i.e. the version the generated code expects).
public protocol GeneratedCodeVersion_0_1 {}
