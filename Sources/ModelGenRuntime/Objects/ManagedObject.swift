/// The base class of generated entity classes.
///
/// An object belongs to at most one `ObjectContext`, which tracks it by `objectID`. Generated
/// classes override the `@_spi(Generated)` members to read and bind their typed stored properties;
/// their setters call `didChange(slot:)` so the context knows what to save. Everything here is
/// dispatched through the class (no protocol casts, no per-object allocations beyond the object).
///
/// Programs use the generated subclasses; what all of them share is here:
///
/// ```swift
/// let student = Student(in: context, first_name: "Ada", id: UUID(), last_name: "Lovelace")
/// student.objectID            // the same object in any context: other.existingObject(with:)
/// try student.value(forKey: "last_name") as? String   // by name, for generic code
/// ```
open class ManagedObject: Hashable {
    // The object's bookkeeping is `@exclusivity(unchecked)`: a context and its objects are used by
    // one thread at a time and never hand these out `inout`, and the run-time exclusivity check on
    // every write would be a tenth of a fetch and of a save. It is packed so that a plain object is
    // small (quicker to make, touch and free; 100,000 of them are megabytes the kernel must hand
    // out): after the 16-byte header, `objectID` (12 bytes) and the low half of the version fill
    // two words, the context pointer carries the two list flags in its low bits, then the change
    // mask, the side object and the foreign key a fetched row brings: 48 bytes in all. That last
    // word spares, for each object of a table with one foreign key, the side object and a links
    // array — two allocations — until its relationships are used.

    /// The identity of the object; temporary until its first save.
    @exclusivity(unchecked) public internal(set) final var objectID: ObjectID
    /// The low 32 bits of `version` (the high ones live in `extras`, where they are rarely needed).
    @exclusivity(unchecked) private final var versionLow: UInt32 = 0
    /// The context, held unretained, with `isListedAsUpdated` in bit 0, `isListedAsDeleted` in
    /// bit 1 and `isInChildContext` in bit 2 (objects are at least 16-byte aligned, so a context's
    /// address has those bits clear).
    ///
    /// Not a weak reference (forming and destroying 100,000 of them costs a tenth of a fetch): an
    /// object has a context only while it is registered or inserted there, and the context
    /// clears this for all of them when it goes away.
    @exclusivity(unchecked) private final var contextBits: UInt = 0

    /// The list flags (kept when the context changes).
    private static let flagBits: UInt = 3
    /// Every bit that is not the address.
    private static let lowBits: UInt = 7

    /// Set while the object sits in its context's list of updated objects.
    final var isListedAsUpdated: Bool {
        @inline(__always) get { contextBits & 1 != 0 }
        @inline(__always) set { contextBits = newValue ? contextBits | 1 : contextBits & ~1 }
    }

    /// Set while the object's context is a child context (whose unsaved objects are listed as
    /// updated once pushed to the parent).
    final var isInChildContext: Bool {
        @inline(__always) get { contextBits & 4 != 0 }
    }

    /// Set while the object sits in its context's list of deleted objects.
    final var isListedAsDeleted: Bool {
        @inline(__always) get { contextBits & 2 != 0 }
        @inline(__always) set { contextBits = newValue ? contextBits | 2 : contextBits & ~2 }
    }

    /// The context the object lives in (`nil` once deleted and saved, never inserted, or when
    /// the context is gone).
    public internal(set) final var context: ObjectContext? {
        get {
            guard let pointer = UnsafeRawPointer(bitPattern: contextBits & ~Self.lowBits) else { return nil }
            return Unmanaged<ObjectContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        set {
            let address = newValue.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0
            contextBits = address | (contextBits & Self.flagBits) | (newValue?.childBit ?? 0)
        }
    }

    /// The `_version` read from or last written to the store (optimistic locking). While the
    /// object is unsaved it has no version, and the field holds `pendingRow` instead.
    final var version: Int64 {
        @inline(__always) get {
            guard let extras else { return Int64(versionLow) }
            return Int64(bitPattern: UInt64(extras.versionHigh) << 32 | UInt64(versionLow))
        }
        @inline(__always) set {
            versionLow = UInt32(truncatingIfNeeded: newValue)
            let high = UInt32(truncatingIfNeeded: UInt64(bitPattern: newValue) >> 32)
            if high != 0 || extras != nil { ensuredExtras.versionHigh = high }
        }
    }

    /// The `_pk` a save assigned to this unsaved object, while the save runs (kept where the
    /// version of a saved object is: an unsaved one has none).
    final var pendingRow: Int64 {
        @inline(__always) get { version }
        @inline(__always) set { version = newValue }
    }

    /// Bit `n` set: the attribute in slot `n` changed since the last save (slots ≥ 64 share bit 63).
    @exclusivity(unchecked) final var changedMask: UInt64 = 0
    /// The row's key of the entity's one foreign key (`EntityDescription.singleForeignKey`) as
    /// last read, until `links` is made (which takes it over): `noHeldKey` when none waits,
    /// `heldNull` for NULL. Most fetched objects never make their links array at all.
    @exclusivity(unchecked) final var heldKey: Int64 = ManagedObject.noHeldKey
    static let noHeldKey = Int64.min
    static let heldNull = Int64.min + 1
    /// Rarely used state, allocated on first use, so a plain object stays small and quick to
    /// make and free.
    final class Extras {
        var links: [Link] = []
        var relationshipMask: UInt64 = 0
        var dynamicValues: [Any?] = []
        var transientValues: [String: Any?] = [:]
        /// The high 32 bits of `version`.
        var versionHigh: UInt32 = 0
    }

    @exclusivity(unchecked) private final var extras: Extras?

    @inline(__always)
    private final var ensuredExtras: Extras {
        if let extras { return extras }
        let made = Extras()
        extras = made
        return made
    }

    /// The state of each relationship, by index (empty until first used).
    final var links: [Link] {
        get { extras?.links ?? [] }
        _modify { yield &ensuredExtras.links }
        set { if extras != nil || !newValue.isEmpty { ensuredExtras.links = newValue } }
    }
    /// Bit `n` set: relationship `n` changed in a way the save must write (kept with the links).
    final var relationshipMask: UInt64 {
        @inline(__always) get { extras?.relationshipMask ?? 0 }
        set { if extras != nil || newValue != 0 { ensuredExtras.relationshipMask = newValue } }
    }
    /// Attribute values of classes without typed storage (`category` entities), by slot.
    final var dynamicValues: [Any?] {
        get { extras?.dynamicValues ?? [] }
        _modify { yield &ensuredExtras.dynamicValues }
        set { ensuredExtras.dynamicValues = newValue }
    }

    /// Values of transient attributes.
    final var transientValues: [String: Any?] {
        get { extras?.transientValues ?? [:] }
        _modify { yield &ensuredExtras.transientValues }
        set { ensuredExtras.transientValues = newValue }
    }

    /// The state of one relationship of one object.
    enum Link {
        /// Not read yet (for an unsaved object: empty).
        case unloaded
        /// An owning to-one as read from the row: the destination's `_pk` (not materialized yet).
        case key(Int64?)
        case toOne(ManagedObject?)
        case toMany(LinkList)
    }

    /// Makes a new object the one of a fetched row: its identity, its `_version` and its context
    /// (held unretained, as `context` holds it).
    @inline(__always)
    final func adopt(id: ObjectID, version: Int64, context: Unmanaged<ObjectContext>) {
        objectID = id
        self.version = version
        contextBits = UInt(bitPattern: context.toOpaque()) | context._withUnsafeGuaranteedRef(\.childBit)
    }

    /// The row this object has (or, during a save, will have).
    var rowForSave: Int64 { objectID.isTemporary ? pendingRow : objectID.rowID }

    public required init() {
        objectID = ObjectID(entityID: 0, rowID: 0)
    }

    /// The entity of this class; generated classes override it.
    @_spi(Generated)
    open class var entityDescription: EntityDescription {
        guard let generated = self as? any GeneratedEntity.Type else {
            preconditionFailure("\(self) is not generated code of an entity; only generated classes are entities")
        }
        return generated.modelGenEntity
    }

    /// The slot of the stored attribute `keyPath` leads to (`\Student.lastName`); generated classes
    /// override it with a switch over their key paths.
    @_spi(Generated)
    open class func slot(for keyPath: AnyKeyPath) -> Int? {
        (self as? any GeneratedEntity.Type)?.modelGenSlot(for: keyPath)
    }

    /// The index of the relationship `keyPath` leads to (`\Grade.student`); generated classes
    /// override it with a switch over their key paths.
    @_spi(Generated)
    open class func relationshipIndex(for keyPath: AnyKeyPath) -> Int? {
        (self as? any GeneratedEntity.Type)?.modelGenRelationshipIndex(for: keyPath)
    }

    /// Reads the attribute columns, which start at `column` in the statement's row.
    @_spi(Generated)
    open func read(from row: Statement, startingAt column: Int32) {
        if self is any GeneratedEntity { readDynamic(from: row, startingAt: column) }
    }

    /// Binds the attributes whose bit is set in `mask` (all when `mask` is `.max`), in slot order,
    /// from parameter `index`; returns the next free parameter index. Generated classes bind their
    /// typed storage after their base class's; this base has none. (Entities with a `category`
    /// entity in their lineage are bound slot by slot instead: `bindAttributes`.)
    @_spi(Generated)
    open func bind(to statement: Statement, startingAt index: Int32, mask: UInt64) -> Int32 { index }

    /// Tells observers that values and relationships may have changed outside the setters (the
    /// row was read again: a merge, a refresh, a rollback). Generated `observable` classes
    /// override it; the runtime calls it only for entities whose `isObserved` is set.
    @_spi(Generated)
    open func modelGenValuesDidChange() {}

    /// Tells observers that relationship `index` changed (its own setter, or the other side's).
    @_spi(Generated)
    open func modelGenRelationshipDidChange(_ index: Int) {}

    /// The value of the attribute in `slot` (`nil` for an unset optional).
    @_spi(Generated)
    open func value(atSlot slot: Int) -> Any? {
        guard self is any GeneratedEntity else { return nil }
        prepareDynamicValues()
        return slot < dynamicValues.count ? dynamicValues[slot] : nil
    }

    /// Sets the attribute in `slot`; throws `.wrongType` when `value` does not fit.
    @_spi(Generated)
    open func setValue(_ value: Any?, atSlot slot: Int) throws(DatabaseError) {
        let entity = Self.entityDescription
        guard self is any GeneratedEntity, slot < entity.attributes.count else {
            throw DatabaseError(.unknownKey, "\(type(of: self)) has no attribute in slot \(slot)")
        }
        let attribute = entity.attributes[slot]
        guard let unwrapped = unwrappedValue(value) else {
            guard attribute.isOptional else {
                throw DatabaseError(
                    .wrongType, "\(entity.name).\(attribute.name) is required", entity: entity.name,
                    property: attribute.name)
            }
            prepareDynamicValues()
            dynamicValues[slot] = nil
            didChange(slot: slot)
            return
        }
        // Kept as the attribute's Swift type, as generated storage keeps it (an integer of another
        // width is converted when it fits; a typed attribute's stored form is converted).
        if let conversion = attribute.conversion {
            let typed: Any
            if conversion.isTyped(unwrapped) {
                typed = unwrapped
            } else {
                do throws(DatabaseError) {
                    typed = try conversion.typed(unwrapped)
                } catch {
                    throw Statement.located(error, slot, entity, "setting a value")
                }
            }
            prepareDynamicValues()
            dynamicValues[slot] = typed
            didChange(slot: slot)
            return
        }
        guard let typed = Self.swiftValue(unwrapped, for: attribute.type) else {
            throw DatabaseError(
                .wrongType,
                "\(entity.name).\(attribute.name) takes values of type \(attribute.type), not \(type(of: unwrapped))",
                entity: entity.name,
                property: attribute.name)
        }
        prepareDynamicValues()
        dynamicValues[slot] = typed
        didChange(slot: slot)
    }

    /// Records that the attribute in `slot` changed; generated setters call this.
    @_spi(Generated)
    @inline(__always)
    public final func didChange(slot: Int) {
        changedMask |= slot < 63 ? 1 << UInt64(slot) : 1 << 63
        // A child context lists its unsaved objects too (after they are pushed, they are updates).
        if !isListedAsUpdated && (objectID.rowID > 0 || isInChildContext), let context { context.noteUpdate(self) }
    }

    /// Whether the object has unsaved changes.
    public var hasChanges: Bool { changedMask != 0 || relationshipMask != 0 || objectID.isTemporary }

    // MARK: - Identity

    /// Objects are equal only to themselves (one object per row per context).
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: - Dynamic access

    /// The value of the property called `key` (a relationship gives the object, or an array of
    /// objects for a to-many).
    /// - Throws: `.unknownKey` when the entity has no such property; `.sqlite` when a relationship
    ///   cannot be read.
    public func value(forKey key: String) throws -> Any? {
        let entity = type(of: self).entityDescription
        if let index = entity.relationshipIndex(of: key) {
            return entity.relationships[index].isToMany
                ? try loadedToMany(index).objects as Any : try loadedToOne(index) as Any?
        }
        guard let slot = entity.slot(of: key) else {
            if entity.transients.keys.contains(key) { return transientValue(forKey: key) }
            throw DatabaseError(
                .unknownKey, "\(entity.name) has no property '\(key)'", entity: entity.name, property: key)
        }
        return value(atSlot: slot)
    }

    /// Sets the property called `key`.
    /// - Throws: `.unknownKey` for an unknown key, `.wrongType` for a value of the wrong type.
    public func setValue(_ value: Any?, forKey key: String) throws {
        let entity = type(of: self).entityDescription
        if let index = entity.relationshipIndex(of: key) {
            try setRelationship(value, at: index, entity: entity)
            return
        }
        guard let slot = entity.slot(of: key) else {
            if entity.transients.keys.contains(key) {
                setTransientValue(unwrappedValue(value), forKey: key)
                return
            }
            throw DatabaseError(
                .unknownKey, "\(entity.name) has no property '\(key)'", entity: entity.name, property: key)
        }
        try setValue(value, atSlot: slot)
    }
}
