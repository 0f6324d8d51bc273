/// What a save checks before it writes a row (`SaveOperation.check`).
extension ObjectContext {
    /// A required typed attribute whose Swift type is optional, set to `nil` (one never set is
    /// reported as such).
    private static func checkRequiredConverted(
        _ object: ManagedObject, _ entity: EntityDescription, into problems: inout [DatabaseError]
    ) {
        for slot in entity.requiredConverted
        where object.changedMask & EntityDescription.bit(slot) != 0 && unwrappedValue(object.value(atSlot: slot)) == nil
        {
            let name = entity.attributes[slot].name
            problems.append(
                DatabaseError(.validation, "\(entity.name).\(name) is required", entity: entity.name, property: name))
        }
    }

    /// Checks what a save would store: required attributes of new objects, attribute rules and
    /// relationship counts. Entities without any of those are skipped a run of objects at a time.
    /// Every problem is reported, as Core Data does: one is thrown as it is, several as one
    /// `.validation` error listing them all (entity and property of the first).
    func validate(updated: [ManagedObject]) throws(DatabaseError) {
        var problems: [DatabaseError] = []
        func check(_ body: () throws(DatabaseError) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        let inserted = insertedObjects
        Self.forEachRun(of: inserted) { entity, run in
            if entity.isAbstract {
                problems.append(
                    DatabaseError(
                        .misuse,
                        "\(entity.name) is abstract: insert objects of its sub-entities instead (\(run.count) inserted)",
                        entity: entity.name))
            }
            guard
                !entity.requiredWithoutDefault.isEmpty || !entity.ruledAttributes.isEmpty
                    || !entity.relationships.isEmpty
                    || !entity.requiredConverted.isEmpty
            else { return }
            for object in inserted[run] {
                Self.checkRequiredConverted(object, entity, into: &problems)
                for (slot, attribute) in entity.requiredWithoutDefault
                where object.changedMask & (slot < 63 ? 1 << UInt64(slot) : 1 << 63) == 0 {
                    problems.append(
                        DatabaseError(
                            .validation, "\(entity.name).\(attribute) is required and was never set",
                            entity: entity.name,
                            property: attribute))
                }
                if !entity.ruledAttributes.isEmpty {
                    check { () throws(DatabaseError) in try AttributeValidator.validate(object, entity) }
                }
                if !entity.relationships.isEmpty {
                    check { () throws(DatabaseError) in try validateRelationships(object) }
                }
            }
        }
        Self.forEachRun(of: updated) { entity, run in
            guard !entity.ruledAttributes.isEmpty || !entity.relationships.isEmpty || !entity.requiredConverted.isEmpty
            else { return }
            for object in updated[run] {
                Self.checkRequiredConverted(object, entity, into: &problems)
                if !entity.ruledAttributes.isEmpty && object.changedMask != 0 {
                    check { () throws(DatabaseError) in try AttributeValidator.validate(object, entity) }
                }
                if !entity.relationships.isEmpty {
                    check { () throws(DatabaseError) in try validateRelationships(object) }
                }
            }
        }
        if store.hasLifecycleHooks { validateWithHooks(inserted: inserted, updated: updated, into: &problems) }
        guard let first = problems.first else { return }
        guard problems.count > 1 else { throw first }
        // A relationship's loading failing is not a validation problem: it goes as it is.
        if let failure = problems.first(where: { $0.code != .validation }) { throw failure }
        throw DatabaseError(
            .validation, "\(problems.count) problems: " + problems.map(\.message).joined(separator: "; "),
            entity: first.entity,
            property: first.property)
    }

    /// Runs the `validateFor…` hooks of the objects a save writes.
    private func validateWithHooks(
        inserted: [ManagedObject], updated: [ManagedObject], into problems: inout [DatabaseError]
    ) {
        func run(_ object: ManagedObject, _ hook: (any ObjectLifecycle) throws -> Void) {
            guard let lifecycle = object.lifecycle else { return }
            do { try hook(lifecycle) } catch { problems.append(Self.validationError(error, object)) }
        }
        for object in inserted { run(object) { try $0.validateForInsert() } }
        for object in updated { run(object) { try $0.validateForUpdate() } }
        for object in deletedObjects { run(object) { try $0.validateForDelete() } }
    }
}
