/// The identity of an object in a store: its entity and its row.
///
/// An object inserted but not yet saved has a temporary identifier (a negative row); saving
/// gives it its permanent one, as in Core Data. `Sendable`, so it can cross to other contexts.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    // The row first: 12 bytes, so a `ManagedObject` packs its flags into the rest of the word.
    /// The row's `_pk` (negative while temporary).
    public let rowID: Int64
    /// The entity's `_entity` number.
    public let entityID: Int32

    public init(entityID: Int32, rowID: Int64) {
        self.entityID = entityID
        self.rowID = rowID
    }

    public var isTemporary: Bool { rowID < 0 }

    public var description: String { "\(isTemporary ? "t" : "p")\(entityID):\(abs(rowID))" }
}
