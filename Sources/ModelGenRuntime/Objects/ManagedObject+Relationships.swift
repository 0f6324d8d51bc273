import Foundation

/// The objects of a loaded to-many relationship, in order. Membership is tested by a scan while
/// the list is short, and through a set, built when first needed, once it is longer: most lists
/// are short, and a prefetch makes many of them at once.
final class LinkList {
    private(set) var objects: [ManagedObject]
    private var members: Set<ObjectIdentifier>?
    /// The longest list searched by a scan.
    private static let scanLimit = 16

    init(_ objects: [ManagedObject] = []) {
        self.objects = []
        for object in objects { append(object) }
    }

    /// A list of `objects`, which hold each object once (one owner's rows of a relationship).
    init(distinct objects: [ManagedObject]) { self.objects = objects }

    func contains(_ object: ManagedObject) -> Bool {
        if let members { return members.contains(ObjectIdentifier(object)) }
        if objects.count <= Self.scanLimit { return objects.contains { $0 === object } }
        let built = Set(objects.map(ObjectIdentifier.init))
        members = built
        return built.contains(ObjectIdentifier(object))
    }

    func append(_ object: ManagedObject) {
        guard !contains(object) else { return }
        objects.append(object)
        members?.insert(ObjectIdentifier(object))
    }

    func remove(_ object: ManagedObject) {
        guard contains(object) else { return }
        members?.remove(ObjectIdentifier(object))
        if let index = objects.lastIndex(where: { $0 === object }) { objects.remove(at: index) }
    }
}

// MARK: - What generated relationship properties call

extension ManagedObject {
    /// The destination of to-one relationship `index`.
    @_spi(Generated)
    public final func toOne<Destination: ManagedObject>(_ index: Int, as type: Destination.Type = Destination.self)
        -> Destination?
    {
        let destination = answer(reading: index) { () throws(DatabaseError) in try loadedToOne(index) }
        return destination.map { unsafeDowncast($0, to: Destination.self) }
    }

    /// The destinations of to-many relationship `index`, in order.
    @_spi(Generated)
    public final func toMany<Destination: ManagedObject>(_ index: Int, as type: Destination.Type = Destination.self)
        -> [Destination]
    {
        let objects = answer(reading: index) { () throws(DatabaseError) in try loadedToMany(index).objects }
        // Every destination is a `Destination`: the list's array is one of them as it is.
        return unsafeBitCast(objects, to: [Destination].self)
    }

    /// What a relationship getter, which cannot throw, answers: `read`'s result. When the
    /// database server is gone (`.connectionLost`, after the read itself tried a new session),
    /// it reads again as the store reconnects, for up to `OpenOptions.getterReconnectWait`; a
    /// read that still fails, or fails otherwise (a misuse, such as an object whose context is
    /// gone), stops the program with the error, since a getter has no wrong answer to give
    /// instead. `loadRelationships()` is the same read as a call that throws.
    private func answer<T>(reading index: Int, _ read: () throws(DatabaseError) -> T) -> T {
        let entity = Self.entityDescription
        return waitingForServer(read) { failure in
            "\(entity.name).\(entity.relationships[index].name) could not be read: \(failure) (a relationship getter cannot throw; loadRelationships() throws instead)"
        }
    }

    /// `body`'s result, read again while the server is gone for up to the store's
    /// `getterReconnectWait`; otherwise the program stops with `message` of the last error.
    private func waitingForServer<T>(
        _ body: () throws(DatabaseError) -> T, orStop message: (DatabaseError) -> String
    ) -> T {
        var failure: DatabaseError
        do {
            return try body()
        } catch {
            failure = error
        }
        let wait = context?.store.getterReconnectWait ?? 0
        let deadline = Date().addingTimeInterval(wait)
        var pause: TimeInterval = 0.05
        while failure.code == .connectionLost && Date() < deadline {
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 1)
            do {
                return try body()
            } catch {
                failure = error
            }
        }
        preconditionFailure(message(failure))
    }

    /// Reads every relationship of the object that is not loaded yet, so that reading them
    /// afterwards needs no database: the same reads as the relationship getters, as a call that
    /// throws. A getter cannot throw, so where the database cannot answer it stops the program
    /// (see `OpenOptions.getterReconnectWait`); load first where that must not happen. A merge
    /// that finds relationships changed elsewhere unloads them again.
    /// - Throws: `.connectionLost` when the server cannot be reached (retryable), `.misuse` when
    ///   the object's context is gone.
    public final func loadRelationships() throws {
        for (index, relationship) in Self.entityDescription.relationships.enumerated() {
            if relationship.isToMany {
                _ = try loadedToMany(index)
            } else {
                _ = try loadedToOne(index)
            }
        }
    }

    /// Sets to-one relationship `index`, keeping the inverse in step.
    @_spi(Generated)
    public final func setToOne(_ destination: ManagedObject?, _ index: Int) {
        perform { () throws(DatabaseError) in try assignToOne(destination, index) }
    }

    /// Replaces the destinations of to-many relationship `index`, keeping inverses in step.
    @_spi(Generated)
    public final func setToMany(_ destinations: [ManagedObject], _ index: Int) {
        perform { () throws(DatabaseError) in try assignToMany(destinations, index) }
    }

    /// Adds `destination` to to-many relationship `index` (at the end, if ordered).
    @_spi(Generated)
    public final func addToMany(_ destination: ManagedObject, _ index: Int) {
        perform { () throws(DatabaseError) in try link(destination, index) }
    }

    /// Removes `destination` from to-many relationship `index`.
    @_spi(Generated)
    public final func removeFromToMany(_ destination: ManagedObject, _ index: Int) {
        perform { () throws(DatabaseError) in try unlink(destination, index) }
    }

    /// Runs a change a property setter cannot throw from. A refused change (a destination of
    /// another context: `.misuse`) leaves everything as it was and is thrown by the context's next
    /// save; a relationship that cannot be read from the store (the change reads the inverse's
    /// side before it changes anything) is read again as a getter's is, or stops the program.
    private func perform(_ body: () throws(DatabaseError) -> Void) {
        do {
            try body()
        } catch {
            if error.code == .misuse, let context {
                context.recordedError = context.recordedError ?? error
                return
            }
            guard error.code == .connectionLost else {
                preconditionFailure("a relationship of \(Self.entityDescription.name) could not be changed: \(error)")
            }
            waitingForServer(body) { failure in
                "a relationship of \(Self.entityDescription.name) could not be changed: \(failure)"
            }
        }
    }

    // MARK: - Loading

    /// Makes sure `links` has a state per relationship.
    @inline(__always)
    final func prepareLinks() {
        if links.isEmpty {
            let entity = type(of: self).entityDescription
            let count = entity.relationships.count
            if count > 0 {
                var made = [Link](repeating: .unloaded, count: count)
                if heldKey != Self.noHeldKey, let (index, _) = entity.singleForeignKey {
                    made[index] = .key(heldKey == Self.heldNull ? nil : heldKey)
                }
                heldKey = Self.noHeldKey
                links = made
                context?.hasLinks = true
            }
        }
    }

    final func loadedToOne(_ index: Int) throws(DatabaseError) -> ManagedObject? {
        prepareLinks()
        switch links[index] {
        case .toOne(let destination): return destination
        case .key(nil): return nil
        case .toMany: return nil
        case .key(let row?):
            guard let context else { throw contextGone(index) }
            let destination = try context.object(row: row, of: type(of: self).entityDescription.relationships[index])
            links[index] = .toOne(destination)
            return destination
        case .unloaded:
            guard !objectID.isTemporary else { return nil }
            guard let context else { throw contextGone(index) }
            let destination = try context.loadToOne(of: self, index)
            links[index] = .toOne(destination)
            return destination
        }
    }

    final func loadedToMany(_ index: Int) throws(DatabaseError) -> LinkList {
        prepareLinks()
        if case .toMany(let list) = links[index] { return list }
        let list: LinkList
        if !objectID.isTemporary {
            guard let context else { throw contextGone(index) }
            list = LinkList(try context.loadToMany(of: self, index))
        } else {
            list = LinkList()
        }
        links[index] = .toMany(list)
        return list
    }

    /// A saved object without a context (its context was released, or it was deleted and the
    /// deletion saved) cannot read a relationship it has not read yet: said, not answered empty.
    private func contextGone(_ index: Int) -> DatabaseError {
        let entity = type(of: self).entityDescription
        return DatabaseError(
            .misuse,
            "\(entity.name).\(entity.relationships[index].name) cannot be read: the object's context is gone (keep the context while you use its objects)",
            entity: entity.name, property: entity.relationships[index].name)
    }

    // MARK: - Changing, with inverses

    private var relationships: [RelationshipDescription] { type(of: self).entityDescription.relationships }

    func setRelationship(_ value: Any?, at index: Int, entity: EntityDescription) throws(DatabaseError) {
        let relationship = entity.relationships[index]
        func wrongType() -> DatabaseError {
            DatabaseError(
                .wrongType,
                "\(entity.name).\(relationship.name) takes \(relationship.isToMany ? "a collection of objects" : "an object")",
                entity: entity.name, property: relationship.name)
        }
        if relationship.isToMany {
            let objects: [ManagedObject]
            if let array = value as? [ManagedObject] {
                objects = array
            } else if let set = value as? any Collection, let array = Array(set) as? [ManagedObject] {
                objects = array
            } else if value == nil {
                objects = []
            } else {
                throw wrongType()
            }
            try checkDestinations(objects, relationship)
            try assignToMany(objects, index)
        } else {
            guard value == nil || value is ManagedObject else { throw wrongType() }
            let object = value as? ManagedObject
            try checkDestinations(object.map { [$0] } ?? [], relationship)
            try assignToOne(object, index)
        }
    }

    private func checkDestinations(_ objects: [ManagedObject], _ relationship: RelationshipDescription)
        throws(DatabaseError)
    {
        for object in objects {
            let destination = type(of: object).entityDescription
            guard
                destination.entityID == relationship.destinationEntityID
                    || Self.isKind(destination, of: relationship.destinationEntityID, context)
            else {
                throw DatabaseError(
                    .wrongType, "\(relationship.name) cannot lead to a \(destination.name)",
                    entity: Self.entityDescription.name,
                    property: relationship.name)
            }
        }
    }

    private static func isKind(_ entity: EntityDescription, of entityID: Int32, _ context: ObjectContext?) -> Bool {
        context?.store.entity(entityID)?.includes(entity.entityID) ?? false
    }

    /// Refuses a destination that lives in another context (or in none while this object has
    /// one, or the other way round): its inverse would change there and the link would be saved
    /// as nothing here. Core Data refuses it too.
    private func checkSameContext(_ destination: ManagedObject, _ index: Int) throws(DatabaseError) {
        guard destination.context !== context else { return }
        let entity = Self.entityDescription
        throw DatabaseError(
            .misuse,
            "\(entity.name).\(relationships[index].name) cannot lead to an object of another context (\(type(of: destination).entityDescription.name) \(destination.objectID)); fetch it in this context first",
            entity: entity.name, property: relationships[index].name)
    }

    final func assignToOne(_ destination: ManagedObject?, _ index: Int) throws(DatabaseError) {
        if let destination { try checkSameContext(destination, index) }
        let old = try loadedToOne(index)
        if old === destination { return }
        if let inverse = relationships[index].inverse {
            if let old { try old.detachInverse(inverse, from: self) }
            if let destination { try destination.attachInverse(inverse, to: self, index) }
        }
        setLink(.toOne(destination), index)
    }

    final func assignToMany(_ destinations: [ManagedObject], _ index: Int) throws(DatabaseError) {
        for destination in destinations { try checkSameContext(destination, index) }
        let current = try loadedToMany(index)
        let wanted = LinkList(destinations)
        for object in current.objects where !wanted.contains(object) { try unlink(object, index) }
        for object in wanted.objects where !current.contains(object) { try link(object, index) }
        if relationships[index].isOrdered,
            current.objects.map(ObjectIdentifier.init) != wanted.objects.map(ObjectIdentifier.init)
        {
            links[index] = .toMany(wanted)
            noteRelationshipChange(index)
        }
    }

    final func link(_ destination: ManagedObject, _ index: Int) throws(DatabaseError) {
        try checkSameContext(destination, index)
        let list = try loadedToMany(index)
        if list.contains(destination) { return }
        if let inverse = relationships[index].inverse { try destination.attachInverse(inverse, to: self, index) }
        list.append(destination)
        noteLinkChange(destination, index, added: true)
    }

    final func unlink(_ destination: ManagedObject, _ index: Int) throws(DatabaseError) {
        let list = try loadedToMany(index)
        guard list.contains(destination) else { return }
        if let inverse = relationships[index].inverse { try destination.detachInverse(inverse, from: self) }
        list.remove(destination)
        noteLinkChange(destination, index, added: false)
    }

    /// Makes relationship `index` of this object (the inverse of `owner`'s relationship
    /// `ownerIndex`) lead to `owner`; a to-one inverse first leaves its previous owner.
    private func attachInverse(_ index: Int, to owner: ManagedObject, _ ownerIndex: Int) throws(DatabaseError) {
        if relationships[index].isToMany {
            let list = try loadedToMany(index)
            guard !list.contains(owner) else { return }
            list.append(owner)
            noteLinkChange(owner, index, added: true)
        } else {
            let previous = try loadedToOne(index)
            if previous === owner { return }
            if let previous {
                // `previous` loses this object from its relationship `ownerIndex`, without recursion.
                if previous.relationships[ownerIndex].isToMany {
                    let list = try previous.loadedToMany(ownerIndex)
                    list.remove(self)
                    previous.noteLinkChange(self, ownerIndex, added: false)
                } else {
                    previous.setLink(.toOne(nil), ownerIndex)
                }
            }
            setLink(.toOne(owner), index)
        }
    }

    /// Removes `owner` from relationship `index` of this object (the inverse side).
    private func detachInverse(_ index: Int, from owner: ManagedObject) throws(DatabaseError) {
        if relationships[index].isToMany {
            let list = try loadedToMany(index)
            guard list.contains(owner) else { return }
            list.remove(owner)
            noteLinkChange(owner, index, added: false)
        } else if try loadedToOne(index) === owner {
            setLink(.toOne(nil), index)
        }
    }

    private func setLink(_ link: Link, _ index: Int) {
        prepareLinks()
        links[index] = link
        // Noted whatever the storage: a save writes only foreign keys from the mask, and it must
        // validate the object (a required to-one taken away by its partner's new link).
        noteRelationshipChange(index)
    }

    private func noteLinkChange(_ destination: ManagedObject, _ index: Int, added: Bool) {
        switch relationships[index].storage {
        case .joinTable:
            context?.noteLinkChange(self, destination, index, added: added)
            // Listed as updated even when unordered: the save must run, and other contexts must
            // hear of the change.
            noteRelationshipChange(index)
        default:
            // An ordered one-to-many: the members' positions are written at the save. Any
            // other: nothing of this row is written, but the save validates the object's counts
            // (a member added or taken away through its own to-one).
            noteRelationshipChange(index)
        }
    }

    /// Records that relationship `index` must be written at the next save.
    final func noteRelationshipChange(_ index: Int) {
        relationshipMask |= EntityDescription.bit(index)
        if Self.entityDescription.isObserved { modelGenRelationshipDidChange(index) }
        // A child context lists its unsaved objects too (after they are pushed, they are updates).
        if !isListedAsUpdated && (objectID.rowID > 0 || isInChildContext), let context { context.noteUpdate(self) }
    }
}
