/// The `userInfo` sort keys of sorted-array wrappers (`modelgen.sortKey` on a to-many relationship,
/// `modelgen.defaultSortKey` on an entity) must name comparable stored attributes of the entity
/// they sort; the generator leaves other keys out, so each is reported.
enum SortKeyRules {
    static func unknownKey(_ key: String, _ owner: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unknown-sort-key", .warning,
            "sort key '\(key)' of \(owner) is not a stored attribute of '\(entity)' that can be ordered; the sorted wrapper leaves it out"
        )
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for entity in model.entities {
            if let spec = entity.userInfo["modelgen.defaultSortKey"], let index = model.entityID(named: entity.name) {
                for key in unknownKeys(spec, in: index, model) {
                    diagnostics.report(
                        unknownKey(key, "entity '\(entity.name)'", entity.name),
                        at: model.location(entity.line, attribute: "name"))
                }
            }
            for relationship in entity.relationships where relationship.isToMany {
                guard let spec = relationship.userInfo["modelgen.sortKey"], let destination = relationship.destination
                else { continue }
                for key in unknownKeys(spec, in: destination, model) {
                    diagnostics.report(
                        unknownKey(key, "relationship '\(relationship.name)'", model.entities[destination].name),
                        at: model.location(relationship.line, attribute: "name"))
                }
            }
        }
    }

    /// The keys of `spec` (`-year,title`) that are not orderable stored attributes of `entity`.
    static func unknownKeys(_ spec: String, in entity: Int, _ model: ObjectModel) -> [String] {
        SortKey.parse(spec).compactMap { sortKey in
            guard let ref = model.property(named: sortKey.key, in: entity), let attribute = model.attribute(ref),
                !attribute.isTransient, orderable.contains(attribute.type)
            else { return sortKey.key }
            return nil
        }
    }

    private static let orderable: Set<AttributeType> = [
        .integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date, .binary, .uuid, .uri,
    ]
}

/// One key of a sort-key spec in `userInfo`: `-year,title` is `year` descending, then `title`
/// (a leading `+` is ascending, the default).
struct SortKey: Equatable {
    var key: String
    var ascending: Bool

    static func parse(_ spec: String) -> [SortKey] {
        spec.split(separator: ",").map { part in
            var key = String(part).trimmingCharacters(in: " \t")
            var ascending = true
            if key.hasPrefix("-") {
                ascending = false
                key.removeFirst()
            } else if key.hasPrefix("+") {
                key.removeFirst()
            }
            return SortKey(key: key, ascending: ascending)
        }
    }
}
