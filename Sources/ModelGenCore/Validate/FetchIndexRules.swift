/// Fetch indexes (and legacy compound indexes) name stored attributes or to-one relationships.
enum FetchIndexRules {
    static func unknownProperty(_ name: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unknown-index-property", .error, "index names '\(name)', which is not a property of '\(entity)'")
    }
    static func toMany(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "to-many-in-index", .warning,
            "index names to-many relationship '\(name)', whose links are in another table; the element is left out (as Core Data does)"
        )
    }
    static func notStored(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unstored-property-in-index", .error, "index names '\(name)', which is transient or a fetched property")
    }
    static func missingName() -> DiagnosticMessage {
        DiagnosticMessage("missing-name", .error, "<fetchIndex> has no name")
    }
    static func emptyElement() -> DiagnosticMessage {
        DiagnosticMessage("empty-index-element", .error, "index element names neither a property nor an expression")
    }
    static func duplicateIndex(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("duplicate-fetch-index", .error, "fetch index '\(name)' is declared more than once")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for (entityIndex, entity) in model.entities.enumerated() {
            var names: Set<String> = []
            for index in entity.fetchIndexes {
                if !index.isLegacy {
                    if index.name.isEmpty {
                        diagnostics.report(missingName(), at: model.location(index.line, element: "fetchIndex"))
                    } else if !names.insert(index.name).inserted {
                        diagnostics.report(
                            duplicateIndex(index.name), at: model.location(index.line, attribute: "name"))
                    }
                }
                for element in index.elements {
                    check(element, legacy: index.isLegacy, entity: entityIndex, in: model, diagnostics)
                }
            }
        }
    }

    private static func check(
        _ element: FetchIndex.Element, legacy: Bool, entity: Int, in model: ObjectModel, _ diagnostics: DiagnosticEngine
    ) {
        let attributeName = legacy ? "value" : "property"
        guard let name = element.property, !name.isEmpty else {
            if element.expression == nil {
                diagnostics.report(
                    emptyElement(), at: model.location(element.line, element: legacy ? "index" : "fetchIndexElement"))
            }
            return
        }
        let location = model.location(element.line, attribute: attributeName)
        guard let ref = model.property(named: name, in: entity) else {
            diagnostics.report(
                unknownProperty(name, model.entities[entity].name), at: location,
                notes: model.suggestion(for: name, in: entity))
            return
        }
        if let relationship = model.relationship(ref) {
            if relationship.isToMany { diagnostics.report(toMany(name), at: location) }
        } else if let attribute = model.attribute(ref) {
            if attribute.isTransient { diagnostics.report(notStored(name), at: location) }
        } else {
            diagnostics.report(notStored(name), at: location)
        }
    }
}
