/// The identity of an object in a store: its entity and its row.
///
/// An object inserted but not yet saved has a temporary identifier (a negative row); saving
/// gives it its permanent one, as in Core Data. `Sendable`, so it can cross to other contexts,
/// and it has a string form (`stringValue`) to put in a URL or a message to another process.
///
/// ```swift
/// let id = student.objectID                  // in the main context
/// let text = id.stringValue                  // "3/42": entity 3, row 42
/// let same = try background.existingObject(with: ObjectID(stringValue: text)!, as: Student.self)
/// ```
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

    /// The identifier as text: `entity/row` (`3/42`), a temporary one `entity/t<n>` (`3/t1`),
    /// which only the context that made it resolves. Stable for a store of the same model version:
    /// the entity number is the model's and the row number never changes.
    public var stringValue: String { "\(entityID)/\(isTemporary ? "t\(-rowID)" : "\(rowID)")" }

    /// The identifier `stringValue` gave; `nil` for text that is not one.
    public init?(stringValue: String) {
        let parts = stringValue.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let entity = Int32(parts[0]) else { return nil }
        let temporary = parts[1].hasPrefix("t")
        guard let row = Int64(temporary ? parts[1].dropFirst() : parts[1]), row > 0 else { return nil }
        self.init(entityID: entity, rowID: temporary ? -row : row)
        // Only the canonical spelling (no sign, no leading zeros): one identifier, one text.
        guard self.stringValue == stringValue else { return nil }
    }
}
