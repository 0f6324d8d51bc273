/// Uniqueness constraints name stored attributes or to-one relationships of the entity (own or inherited).
enum UniquenessConstraintRules {
    static func unknownProperty(_ name: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unknown-constraint-property", .error,
            "uniqueness constraint names '\(name)', which is not a property of '\(entity)'")
    }
    static func toMany(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "to-many-in-uniqueness-constraint", .error,
            "uniqueness constraint names to-many relationship '\(name)'; only attributes and to-one relationships can be unique"
        )
    }
    static func notStored(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unstored-property-in-uniqueness-constraint", .error,
            "uniqueness constraint names '\(name)', which is transient or a fetched property")
    }
    static func empty() -> DiagnosticMessage {
        DiagnosticMessage(
            "empty-uniqueness-constraint", .warning, "uniqueness constraint names no property; it is ignored")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for (entityIndex, entity) in model.entities.enumerated() {
            for constraint in entity.uniquenessConstraints {
                if constraint.properties.isEmpty {
                    diagnostics.report(empty(), at: model.location(constraint.line, element: "uniquenessConstraint"))
                }
                for (name, line) in zip(constraint.properties, constraint.propertyLines) {
                    let location = model.location(line, attribute: "value")
                    guard let ref = model.property(named: name, in: entityIndex) else {
                        diagnostics.report(
                            unknownProperty(name, entity.name), at: location,
                            notes: model.suggestion(for: name, in: entityIndex))
                        continue
                    }
                    if let relationship = model.relationship(ref) {
                        if relationship.isToMany {
                            diagnostics.report(toMany(name), at: location)
                        } else if relationship.isTransient {
                            diagnostics.report(notStored(name), at: location)
                        }
                    } else if let attribute = model.attribute(ref) {
                        if attribute.isTransient { diagnostics.report(notStored(name), at: location) }
                    } else {
                        diagnostics.report(notStored(name), at: location)
                    }
                }
            }
        }
    }
}
