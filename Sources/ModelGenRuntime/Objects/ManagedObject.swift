/// The base class of generated entity classes.
///
/// An object belongs to at most one `ObjectContext`, which tracks it by `objectID`. Generated
/// setters call `didChange(slot:)` so the context knows what to save.
open class ManagedObject {
    /// The identity of the object; temporary until its first save.
    public internal(set) var objectID: ObjectID
    /// The context the object lives in (`nil` once deleted and saved, or never inserted).
    public internal(set) weak var context: ObjectContext?
    /// The `_version` read from or last written to the store (optimistic locking).
    var version: Int64 = 0
    /// Slots changed since the last save.
    var changedSlots: Set<Int> = []

    public init() {
        objectID = ObjectID(entityID: 0, rowID: 0)
    }

    /// Records that the attribute in `slot` changed; generated setters call this.
    @_spi(Generated)
    public func didChange(slot: Int) {
        changedSlots.insert(slot)
        context?.noteUpdate(self)
    }

    /// Whether the object has unsaved changes.
    public var hasChanges: Bool { !changedSlots.isEmpty || objectID.isTemporary }
}
