import PredicateSyntax

extension ResolutionContext {
    static func invalidPredicate(_ message: String) -> DiagnosticMessage {
        DiagnosticMessage("invalid-predicate", .error, "invalid predicate: \(message)")
    }
    static func unresolvedFetchEntity(_ request: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unresolved-fetch-entity", .error,
            "fetch request '\(request)' names entity '\(entity)', which does not exist")
    }
    static func missingFetchEntity(_ request: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-fetch-entity", .error, "fetch request '\(request)' names no entity")
    }
    static func missingFetchRequest(_ property: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-fetch-request", .error, "fetched property '\(property)' has no fetch request")
    }
    static func unknownResultType(_ value: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-result-type", .error, "unknown fetch request resultType '\(value)'")
    }

    /// A fetch request template (or a fetched property's request, with `element` naming where it sits).
    func fetchRequest(_ syntax: FetchRequestSyntax, element: String) -> FetchRequest? {
        let line = syntax.line
        guard let name = syntax.name, !name.isEmpty else {
            diagnostics.report(ModelResolver.missingName(element), at: location(line, element: "fetchRequest"))
            return nil
        }
        var entity: Int?
        if let entityName = syntax.entity, !entityName.isEmpty {
            entity = entityIndex[entityName]
            if entity == nil {
                diagnostics.report(
                    Self.unresolvedFetchEntity(name, entityName), at: location(line, attribute: "entity"),
                    notes: suggestion(for: entityName, among: entityIndex.keys))
            }
        } else {
            diagnostics.report(Self.missingFetchEntity(name), at: location(line, element: "fetchRequest"))
        }
        var predicate: PredicateNode?
        if let text = syntax.predicateString, !text.trimmingCharacters(in: " \t\n").isEmpty {
            do {
                predicate = try PredicateParser.parse(text)
            } catch {
                diagnostics.report(
                    Self.invalidPredicate(error.message),
                    at: source.location(line: line, attributeValue: "predicateString", offset: error.offset))
            }
        }
        var resultType = FetchResultType.managedObject
        if let text = syntax.resultType {
            switch text {
            case "0": resultType = .managedObject
            case "1": resultType = .managedObjectID
            case "2": resultType = .dictionary
            case "4": resultType = .count
            default:
                diagnostics.report(Self.unknownResultType(text), at: location(line, attribute: "resultType"))
            }
        }
        return FetchRequest(
            name: name,
            entityName: syntax.entity ?? "",
            entity: entity,
            predicateString: syntax.predicateString,
            predicate: predicate.map(PredicateNodeBox.init),
            variables: predicate?.variables ?? [],
            fetchLimit: values.count(syntax.fetchLimit, "fetchLimit", line: line),
            fetchBatchSize: values.count(syntax.fetchBatchSize, "fetchBatchSize", line: line),
            resultType: resultType,
            includeSubentities: values.optionalBool(syntax.includeSubentities, "includeSubentities", line: line),
            includePropertyValues: values.optionalBool(
                syntax.includePropertyValues, "includePropertyValues", line: line),
            includesPendingChanges: values.optionalBool(
                syntax.includesPendingChanges, "includesPendingChanges", line: line),
            returnObjectsAsFaults: values.optionalBool(
                syntax.returnObjectsAsFaults, "returnObjectsAsFaults", line: line),
            returnDistinctResults: values.optionalBool(
                syntax.returnDistinctResults, "returnDistinctResults", line: line),
            line: line)
    }

    /// Fetched properties are read before entities are indexed, so their request's entity is
    /// linked here.
    func fetchedProperty(_ syntax: FetchedPropertySyntax) -> FetchedProperty? {
        let line = syntax.line
        guard let name = syntax.name, !name.isEmpty else {
            diagnostics.report(
                ModelResolver.missingName("fetchedProperty"), at: location(line, element: "fetchedProperty"))
            return nil
        }
        let placeholder = FetchRequest(
            name: "", entityName: "", entity: nil, predicateString: nil, predicate: nil, variables: [],
            fetchLimit: nil, fetchBatchSize: nil, resultType: .managedObject, includeSubentities: nil,
            includePropertyValues: nil, includesPendingChanges: nil, returnObjectsAsFaults: nil,
            returnDistinctResults: nil, line: line)
        return FetchedProperty(
            name: name,
            isOptional: values.bool(syntax.optional, "optional", line: line),
            request: placeholder,
            elementID: syntax.elementID,
            versionHashModifier: syntax.versionHashModifier,
            userInfo: UserInfoResolver.resolve(syntax.userInfo),
            line: line)
    }

    mutating func resolveFetchedProperties(from syntax: [EntitySyntax]) {
        var entityPosition = 0
        for entitySyntax in syntax {
            guard let name = entitySyntax.name, !name.isEmpty else { continue }
            defer { entityPosition += 1 }
            let named = entitySyntax.fetchedProperties.filter { !($0.name ?? "").isEmpty }
            for (position, propertySyntax) in named.enumerated() {
                guard let requestSyntax = propertySyntax.fetchRequest else {
                    diagnostics.report(
                        Self.missingFetchRequest(propertySyntax.name ?? ""),
                        at: location(propertySyntax.line, element: "fetchedProperty"))
                    continue
                }
                if let request = fetchRequest(requestSyntax, element: "fetchRequest") {
                    entities[entityPosition].fetchedProperties[position].request = request
                }
            }
        }
    }
}
