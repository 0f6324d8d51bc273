/// Counts of to-many relationships.
enum RelationshipRules {
    static func invertedCounts(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "inverted-relationship-counts", .error,
            "minimum count of relationship '\(name)' is greater than its maximum")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany {
                if relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
                    diagnostics.report(
                        invertedCounts(relationship.name), at: model.location(relationship.line, attribute: "minCount"))
                }
            }
        }
    }
}
