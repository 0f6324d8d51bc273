import PredicateSyntax

/// Resolve: `ModelSyntax` → `ObjectModel`.
///
/// Input: the raw syntax of one model version. Output: a typed model in which entity names are
/// linked to indices (parents, sub-entities, roots, relationship destinations and inverses),
/// every entity knows its inherited properties, values are typed and predicates are parsed.
///
/// Invariants of the output when no error was reported: every `parent`, `destination` and
/// `inverse` is set where the XML names one; inheritance is acyclic; no entity sees two properties
/// of one name. Problems that later rules check on the resolved model (constraints, indexes,
/// configurations, predicate keys, counts) are left to `ModelValidator`.
public struct ModelResolver {
    public init() {}

    static func missingName(_ element: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-name", .error, "<\(element)> has no name")
    }
    static func duplicateEntity(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("duplicate-entity", .error, "entity '\(name)' is declared more than once")
    }
    static func unresolvedParent(_ entity: String, _ parent: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unresolved-parent-entity", .error,
            "entity '\(entity)' names parent entity '\(parent)', which does not exist")
    }
    static func inheritanceCycle(_ entity: String) -> DiagnosticMessage {
        DiagnosticMessage("inheritance-cycle", .error, "entity '\(entity)' inherits from itself")
    }
    static func duplicateProperty(_ name: String, _ entity: String) -> DiagnosticMessage {
        DiagnosticMessage("duplicate-property", .error, "entity '\(entity)' declares property '\(name)' more than once")
    }
    static func duplicateInheritedProperty(_ name: String, _ entity: String, _ ancestor: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "duplicate-inherited-property", .error,
            "property '\(name)' of entity '\(entity)' has the same name as a property it inherits from '\(ancestor)'")
    }
    static func unknownCodeGeneration(_ value: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unknown-code-generation", .warning, "unknown codeGenerationType '\(value)'; treated as manual")
    }
    static func duplicateFetchRequest(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("duplicate-fetch-request", .error, "fetch request '\(name)' is declared more than once")
    }
    static func duplicateComposite(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("duplicate-composite", .error, "composite '\(name)' is declared more than once")
    }
    static func duplicateConfiguration(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("duplicate-configuration", .error, "configuration '\(name)' is declared more than once")
    }

    /// Resolves one model version; reports what cannot be resolved and still returns a model.
    /// Each entity resolved on its own (from its syntax alone), so runs of them are resolved on
    /// all cores, each run reporting into its own engine; the entities and their diagnostics are
    /// put together in document order, as resolving them one by one would give.
    private static func entities(of syntax: ModelSyntax, values: ValueReader) -> [Entity] {
        let runs = Parallel.runs(Array(syntax.entities.indices), minimumLength: 128)
        guard runs.count > 1 else {
            let context = ResolutionContext(values: values)
            return syntax.entities.compactMapBorrowing { context.entity($0) }
        }
        let source = values.source
        let warningsAsErrors = values.diagnostics.warningsAsErrors
        let results = Parallel.map(runs.count) { run -> ([Entity], [Diagnostic]) in
            let engine = DiagnosticEngine(warningsAsErrors: warningsAsErrors)
            let context = ResolutionContext(values: ValueReader(source: source, diagnostics: engine))
            let entities = runs[run].compactMap { context.entity(syntax.entities[$0]) }
            return (entities, engine.diagnostics)
        }
        var entities: [Entity] = []
        entities.reserveCapacity(syntax.entities.count)
        for (resolved, diagnostics) in results {
            entities += resolved
            for diagnostic in diagnostics { values.diagnostics.report(diagnostic) }
        }
        return entities
    }

    public func resolve(_ syntax: ModelSyntax, diagnostics: DiagnosticEngine) -> ObjectModel {
        let values = ValueReader(source: syntax.source, diagnostics: diagnostics)
        var context = ResolutionContext(values: values)
        let info = ModelInfo(
            lastSavedToolsVersion: syntax.lastSavedToolsVersion,
            systemVersion: syntax.systemVersion,
            minimumToolsVersion: syntax.minimumToolsVersion,
            sourceLanguage: syntax.sourceLanguage,
            versionIdentifier: syntax.userDefinedModelVersionIdentifier,
            usedWithCloudKit: values.bool(syntax.usedWithCloudKit, "usedWithCloudKit", line: syntax.line),
            usedWithSwiftData: values.bool(syntax.usedWithSwiftData, "usedWithSwiftData", line: syntax.line)
        )
        context.entities = Self.entities(of: syntax, values: values)
        context.indexEntities()
        context.linkInheritance()
        context.indexProperties()
        context.linkRelationships()
        let fetchRequests = context.uniqueNamed(
            syntax.fetchRequests.compactMap { context.fetchRequest($0, element: "fetchRequest") },
            name: \.name, line: \.line, message: Self.duplicateFetchRequest)
        context.resolveFetchedProperties(from: syntax.entities)
        let composites = context.uniqueNamed(
            syntax.composites.compactMap { context.composite($0) }, name: \.name, line: \.line,
            message: Self.duplicateComposite)
        let configurations = context.uniqueNamed(
            syntax.configurations.compactMap { context.configuration($0) }, name: \.name, line: \.line,
            message: Self.duplicateConfiguration)
        return ObjectModel(
            source: syntax.source,
            info: info,
            entities: context.entities,
            composites: composites,
            fetchRequests: fetchRequests,
            configurations: configurations,
            entityIndex: context.entityIndex
        )
    }
}

/// The mutable state of one resolution.
struct ResolutionContext {
    let values: ValueReader
    var source: SourceFile { values.source }
    var diagnostics: DiagnosticEngine { values.diagnostics }
    var entities: [Entity] = []
    var entityIndex: [String: Int] = [:]

    init(values: ValueReader) {
        self.values = values
    }

    func location(_ line: Int, attribute: String) -> SourceLocation {
        source.location(line: line, attribute: attribute)
    }

    func location(_ line: Int, element: String) -> SourceLocation {
        source.location(line: line, element: element)
    }

    /// Keeps the first of several elements with one name and reports the others.
    func uniqueNamed<T>(
        _ items: [T], name: KeyPath<T, String>, line: KeyPath<T, Int>, message: (String) -> DiagnosticMessage
    ) -> [T] {
        var seen: [String: Int] = [:]
        var kept: [T] = []
        for item in items {
            if let first = seen[item[keyPath: name]] {
                diagnostics.report(
                    message(item[keyPath: name]), at: location(item[keyPath: line], attribute: "name"),
                    notes: [Diagnostic.Note("first declared here", at: location(first, attribute: "name"))])
                continue
            }
            seen[item[keyPath: name]] = item[keyPath: line]
            kept.append(item)
        }
        return kept
    }

    // MARK: - Entities

    func entity(_ syntax: EntitySyntax) -> Entity? {
        guard let name = syntax.name, !name.isEmpty else {
            diagnostics.report(ModelResolver.missingName("entity"), at: location(syntax.line, element: "entity"))
            return nil
        }
        let line = syntax.line
        var codeGeneration = CodeGeneration.manual
        if let text = syntax.codeGenerationType {
            if let parsed = CodeGeneration(rawValue: text) {
                codeGeneration = parsed
            } else {
                diagnostics.report(
                    ModelResolver.unknownCodeGeneration(text), at: location(line, attribute: "codeGenerationType"))
            }
        }
        let attributeResolver = AttributeResolver(values: values)
        let attributes = syntax.attributes.compactMapBorrowing { attribute -> Attribute? in
            guard let attributeName = attribute.name, !attributeName.isEmpty else {
                diagnostics.report(
                    ModelResolver.missingName("attribute"), at: location(attribute.line, element: "attribute"))
                return nil
            }
            return attributeResolver.resolve(attribute, name: attributeName)
        }
        return Entity(
            name: name,
            representedClassName: syntax.representedClassName.flatMap { $0.isEmpty ? nil : $0 },
            parentName: syntax.parentEntity.flatMap { $0.isEmpty ? nil : $0 },
            parent: nil,
            root: -1,
            isAbstract: values.bool(syntax.isAbstract, "isAbstract", line: line),
            elementID: syntax.elementID ?? syntax.renamingIdentifier,
            versionHashModifier: syntax.versionHashModifier,
            codeGeneration: codeGeneration,
            attributes: attributes,
            relationships: syntax.relationships.compactMapBorrowing { relationship($0) },
            fetchedProperties: syntax.fetchedProperties.compactMap { fetchedProperty($0) },
            fetchIndexes: fetchIndexes(syntax),
            uniquenessConstraints: syntax.uniquenessConstraints.map { constraint in
                UniquenessConstraint(
                    properties: constraint.properties.map { $0.value ?? "" },
                    propertyLines: constraint.properties.map(\.line),
                    line: constraint.line)
            },
            userInfo: UserInfoResolver.resolve(syntax.userInfo),
            line: line
        )
    }

    mutating func indexEntities() {
        entityIndex.reserveCapacity(entities.count)
        for (index, entity) in entities.enumerated() {
            if let first = entityIndex[entity.name] {
                diagnostics.report(
                    ModelResolver.duplicateEntity(entity.name), at: location(entity.line, attribute: "name"),
                    notes: [
                        Diagnostic.Note("first declared here", at: location(entities[first].line, attribute: "name"))
                    ])
            } else {
                entityIndex[entity.name] = index
            }
        }
    }

    private func fetchIndexes(_ syntax: EntitySyntax) -> [FetchIndex] {
        var indexes = syntax.fetchIndexes.map { index in
            FetchIndex(
                name: index.name ?? "",
                elements: index.elements.map { element in
                    FetchIndex.Element(
                        property: element.property,
                        expression: element.expression,
                        isAscending: element.order?.lowercased() != "descending",
                        type: element.type ?? "Binary",
                        line: element.line)
                },
                isLegacy: false,
                line: index.line)
        }
        for (number, compound) in syntax.compoundIndexes.enumerated() {
            indexes.append(
                FetchIndex(
                    name: "compoundIndex\(number + 1)",
                    elements: compound.properties.map { property in
                        FetchIndex.Element(
                            property: property.value ?? "", expression: nil, isAscending: true, type: "Binary",
                            line: property.line)
                    },
                    isLegacy: true,
                    line: compound.line))
        }
        return indexes
    }

    // MARK: - Model-level elements

    func composite(_ syntax: CompositeSyntax) -> Composite? {
        guard let name = syntax.name, !name.isEmpty else {
            diagnostics.report(ModelResolver.missingName("composite"), at: location(syntax.line, element: "composite"))
            return nil
        }
        let resolver = AttributeResolver(values: values)
        return Composite(
            name: name,
            elementID: syntax.elementID,
            attributes: syntax.attributes.compactMapBorrowing { attribute in
                guard let attributeName = attribute.name, !attributeName.isEmpty else {
                    diagnostics.report(
                        ModelResolver.missingName("attribute"), at: location(attribute.line, element: "attribute"))
                    return nil
                }
                return resolver.resolve(attribute, name: attributeName)
            },
            userInfo: UserInfoResolver.resolve(syntax.userInfo),
            line: syntax.line)
    }

    func configuration(_ syntax: ConfigurationSyntax) -> Configuration? {
        guard let name = syntax.name, !name.isEmpty else {
            diagnostics.report(
                ModelResolver.missingName("configuration"), at: location(syntax.line, element: "configuration"))
            return nil
        }
        return Configuration(
            name: name,
            usedWithCloudKit: values.bool(syntax.usedWithCloudKit, "usedWithCloudKit", line: syntax.line),
            memberNames: syntax.members.map { $0.name ?? "" },
            memberLines: syntax.members.map(\.line),
            line: syntax.line)
    }
}
