extension ResolutionContext {
    static func unresolvedDestination(_ relationship: String, _ destination: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unresolved-destination", .error,
            "relationship '\(relationship)' names destination '\(destination)', which does not exist")
    }
    static func missingDestination(_ relationship: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-destination", .error, "relationship '\(relationship)' has no destination entity")
    }
    static func unknownDeletionRule(_ rule: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-deletion-rule", .error, "unknown deletion rule '\(rule)'")
    }
    static func unresolvedInverse(_ relationship: String, _ inverse: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unresolved-inverse", .error,
            "relationship '\(relationship)' names inverse '\(inverse)', which is not a relationship of '\(entity)'")
    }
    static func inverseEntityMismatch(_ relationship: String, _ inverseEntity: String, _ destination: String)
        -> DiagnosticMessage
    {
        DiagnosticMessage(
            "inverse-entity-mismatch", .warning,
            "relationship '\(relationship)' names inverse entity '\(inverseEntity)' but its destination is '\(destination)'; the destination is used"
        )
    }
    static func inverseWithoutName(_ relationship: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "inverse-entity-without-name", .warning,
            "relationship '\(relationship)' names an inverse entity but no inverse relationship; it has no inverse")
    }
    static func inverseDestinationMismatch(
        _ relationship: String, _ entity: String, _ inverse: String, _ target: String
    )
        -> DiagnosticMessage
    {
        DiagnosticMessage(
            "inverse-destination-mismatch", .error,
            "inverse '\(inverse)' of relationship '\(relationship)' points to '\(target)', not to '\(entity)'")
    }
    static func inverseNotMutual(_ relationship: String, _ inverse: String, _ theirs: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "inverse-not-mutual", .warning,
            "relationship '\(relationship)' names '\(inverse)' as its inverse, but the inverse of '\(inverse)' is \(theirs); each keeps its own inverse, as in Core Data"
        )
    }

    func relationship(_ syntax: RelationshipSyntax) -> Relationship? {
        let line = syntax.line
        guard let name = syntax.name, !name.isEmpty else {
            diagnostics.report(ModelResolver.missingName("relationship"), at: location(line, element: "relationship"))
            return nil
        }
        guard let destination = syntax.destinationEntity, !destination.isEmpty else {
            diagnostics.report(Self.missingDestination(name), at: location(line, element: "relationship"))
            return nil
        }
        var rule = DeletionRule.nullify
        if let text = syntax.deletionRule {
            if let parsed = DeletionRule(rawValue: text) ?? (text == "NoAction" ? .noAction : nil) {
                rule = parsed
            } else {
                diagnostics.report(Self.unknownDeletionRule(text), at: location(line, attribute: "deletionRule"))
            }
        }
        let isOptional = values.bool(syntax.optional, "optional", line: line)
        let isToMany = values.bool(syntax.toMany, "toMany", line: line)
        let minCount = values.count(syntax.minCount, "minCount", line: line) ?? 0
        let maxCount = values.count(syntax.maxCount, "maxCount", line: line) ?? 0
        var inverseName = syntax.inverseName.flatMap { $0.isEmpty ? nil : $0 }
        let inverseEntity = syntax.inverseEntity.flatMap { $0.isEmpty ? nil : $0 }
        if inverseName == nil, inverseEntity != nil {
            diagnostics.report(Self.inverseWithoutName(name), at: location(line, attribute: "inverseEntity"))
            inverseName = nil
        }
        return Relationship(
            name: name,
            destinationName: destination,
            destination: nil,
            inverseName: inverseName,
            inverseEntityName: inverseEntity,
            inverse: nil,
            isOptional: isOptional,
            isTransient: values.bool(syntax.transient, "transient", line: line),
            isToMany: isToMany,
            isOrdered: isToMany && values.bool(syntax.ordered, "ordered", line: line),
            // A to-one's counts are implied by `optional` (old files write minCount="1" even on
            // optional to-ones, which Core Data ignores).
            minCount: isToMany ? minCount : (isOptional ? 0 : 1),
            maxCount: isToMany ? maxCount : 1,
            deletionRule: rule,
            isIndexed: values.bool(syntax.indexed, "indexed", line: line),
            elementID: syntax.elementID ?? syntax.renamingIdentifier,
            versionHashModifier: syntax.versionHashModifier,
            userInfo: UserInfoResolver.resolve(syntax.userInfo),
            line: line)
    }

    /// Resolves destinations, then inverses. An inverse is looked up among the destination's own
    /// and inherited relationships; each relationship keeps the inverse it names (as Core Data
    /// does), and a pair that does not name each other back is a warning.
    mutating func linkRelationships() {
        for entityIndex in entities.indices {
            for position in entities[entityIndex].relationships.indices {
                let relationship = entities[entityIndex].relationships[position]
                guard let destination = self.entityIndex[relationship.destinationName] else {
                    diagnostics.report(
                        Self.unresolvedDestination(relationship.name, relationship.destinationName),
                        at: location(relationship.line, attribute: "destinationEntity"),
                        notes: suggestion(for: relationship.destinationName, among: self.entityIndex.keys))
                    continue
                }
                entities[entityIndex].relationships[position].destination = destination
            }
        }
        // An inverse depends only on the destinations linked above, so runs of entities are
        // linked on all cores, each into a list of its own, and applied in model order. (The copy
        // of the context the jobs read is gone before anything is written.)
        let links: [[(entity: Int, position: Int, link: InverseLink)]] = {
            nonisolated(unsafe) let linker = self
            let runs = Parallel.runs(Array(entities.indices), minimumLength: 128)
            return Parallel.map(runs.count) { run in
                var links: [(entity: Int, position: Int, link: InverseLink)] = []
                for entity in runs[run] {
                    for position in linker.entities[entity].relationships.indices {
                        if let link = linker.inverseLink(entity: entity, position: position) {
                            links.append((entity, position, link))
                        }
                    }
                }
                return links
            }
        }()
        for (entity, position, link) in links.joined() {
            if let inverse = link.inverse { entities[entity].relationships[position].inverse = inverse }
            if !link.isMutual { entities[entity].relationships[position].isInverseMutual = false }
            for diagnostic in link.diagnostics { diagnostics.report(diagnostic) }
        }
    }

    /// What linking one relationship's inverse found.
    struct InverseLink {
        var inverse: RelationshipRef?
        var isMutual = true
        var diagnostics: [Diagnostic] = []
    }

    /// The inverse of relationship `position` of entity `entityIndex`, or `nil` when it names none.
    private func inverseLink(entity entityIndex: Int, position: Int) -> InverseLink? {
        let relationship = entities[entityIndex].relationships[position]
        guard let destination = relationship.destination, let inverseName = relationship.inverseName else { return nil }
        var link = InverseLink()
        func report(_ message: DiagnosticMessage, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
            link.diagnostics.append(Diagnostic(message, at: location, notes: notes))
        }
        let destinationName = entities[destination].name
        if let inverseEntity = relationship.inverseEntityName, inverseEntity != destinationName {
            report(
                Self.inverseEntityMismatch(relationship.name, inverseEntity, destinationName),
                at: location(relationship.line, attribute: "inverseEntity"))
        }
        guard case .relationship(let owner, let inversePosition)? = entities[destination].propertyIndex[inverseName]
        else {
            let candidates = entities[destination].propertyIndex.compactMap { name, ref -> String? in
                if case .relationship = ref { return name }
                return nil
            }
            report(
                Self.unresolvedInverse(relationship.name, inverseName, destinationName),
                at: location(relationship.line, attribute: "inverseName"),
                notes: suggestion(for: inverseName, among: candidates.sorted()))
            return link
        }
        let inverse = entities[owner].relationships[inversePosition]
        // The inverse must lead back into this entity's hierarchy: to it, an ancestor or a descendant.
        if let target = inverse.destination, !isRelated(target, entityIndex) {
            report(
                Self.inverseDestinationMismatch(
                    relationship.name, entities[entityIndex].name, inverseName, entities[target].name),
                at: location(relationship.line, attribute: "inverseName"))
            return link
        }
        link.inverse = RelationshipRef(entity: owner, index: inversePosition)
        let pointsBack: Bool
        if inverse.inverseName == relationship.name, let target = inverse.destination,
            case .relationship(let backOwner, let backPosition)? = entities[target].propertyIndex[relationship.name]
        {
            pointsBack = backOwner == entityIndex && backPosition == position
        } else {
            pointsBack = false
        }
        if !pointsBack {
            link.isMutual = false
            let theirs =
                inverse.inverseName.map { name in
                    "'\(name)'" + (inverse.destination.map { " of '\(entities[$0].name)'" } ?? "")
                } ?? "not set"
            report(
                Self.inverseNotMutual(relationship.name, inverseName, theirs),
                at: location(relationship.line, attribute: "inverseName"))
        }
        return link
    }

    private func isRelated(_ a: Int, _ b: Int) -> Bool {
        a == b || ancestors(of: a).contains(b) || ancestors(of: b).contains(a)
    }
}
