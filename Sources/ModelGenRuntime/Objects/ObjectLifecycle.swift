/// The moments of an object's life that user code can act on, as Core Data's `awakeFromInsert`,
/// `awakeFromFetch`, `willSave`, `didSave` and `validateFor…` overrides. Generated classes are
/// final, so an entity's class takes part by conforming, in the user's own file:
///
/// ```swift
/// extension Note: ObjectLifecycle {
///     public func awakeFromInsert() { created = Date() }
///     public func willSave() { if hasChanges { modified = Date() } }
///     public func validateForDelete() throws {
///         if isPinned { throw DatabaseError(.validation, "a pinned note cannot be deleted", entity: "Note") }
///     }
/// }
/// ```
///
/// Every method has an empty default; classes that do not conform cost nothing (the runtime
/// decides once per entity whether to call them).
public protocol ObjectLifecycle: ManagedObject {
    /// After the object is inserted into a context (before the caller sets its values).
    func awakeFromInsert()
    /// After the object is made from its row (by a fetch, a relationship, a lookup by identifier),
    /// and after it is read again (`refresh`, a merge).
    func awakeFromFetch()
    /// At the start of `save()`, for every object the save inserts, updates or deletes; changes
    /// made here are saved with the rest.
    func willSave()
    /// After the save committed, for every object it inserted, updated or deleted.
    func didSave()
    /// While a save validates an inserted object: a thrown error fails the save (an error that is
    /// not a `DatabaseError` becomes `.validation`, naming the entity and the error).
    func validateForInsert() throws
    /// While a save validates an updated object.
    func validateForUpdate() throws
    /// While a save validates a deleted object.
    func validateForDelete() throws
}

extension ObjectLifecycle {
    public func awakeFromInsert() {}
    public func awakeFromFetch() {}
    public func willSave() {}
    public func didSave() {}
    public func validateForInsert() throws {}
    public func validateForUpdate() throws {}
    public func validateForDelete() throws {}
}

extension ManagedObject {
    /// The object as `ObjectLifecycle` when its entity's class conforms (checked once per entity).
    @inline(__always)
    var lifecycle: (any ObjectLifecycle)? {
        type(of: self).entityDescription.hasLifecycle ? self as? any ObjectLifecycle : nil
    }
}

extension ObjectContext {
    /// Calls `willSave` on the objects a save is about to write that have hooks.
    func callWillSave() {
        guard store.hasLifecycleHooks else { return }
        for object in insertedObjects + updatedObjects + deletedObjects { object.lifecycle?.willSave() }
    }

    /// The error a `validateFor…` hook threw, as the runtime's.
    static func validationError(_ error: any Error, _ object: ManagedObject) -> DatabaseError {
        if let error = error as? DatabaseError { return error }
        let entity = type(of: object).entityDescription.name
        return DatabaseError(.validation, "\(entity) \(object.objectID.stringValue): \(error)", entity: entity)
    }
}
