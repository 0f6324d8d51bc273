/// Validate: checks a resolved `ObjectModel` against Core Data's rules.
///
/// Input: the output of `ModelResolver`. Output: diagnostics only; the model is unchanged.
/// Each rule lives in its own file, declares its own messages and reports every problem it finds.
public struct ModelValidator {
    /// A check over the whole model.
    typealias Rule = @Sendable (ObjectModel, DiagnosticEngine) -> Void

    static let rules: [Rule] = [
        AttributeRules.check,
        RelationshipRules.check,
        UniquenessConstraintRules.check,
        FetchIndexRules.check,
        ConfigurationRules.check,
        PredicateRules.check,
        SortKeyRules.check,
        NameRules.check,
        TypedValueRules.check,
    ]

    public init() {}

    /// Runs the rules on all cores (each reports to an engine of its own) and reports what they
    /// found in rule order, as running them one after the other would.
    public func validate(_ model: ObjectModel, diagnostics: DiagnosticEngine) {
        let findings = Parallel.map(Self.rules.count) { rule in
            let engine = DiagnosticEngine()
            Self.rules[rule](model, engine)
            return engine.diagnostics
        }
        for diagnostic in findings.joined() { diagnostics.report(diagnostic) }
    }
}

extension ObjectModel {
    /// The property visible on entity `entity` (own or inherited) called `name`.
    public func property(named name: String, in entity: Int) -> PropertyRef? {
        entities[entity].propertyIndex[name]
    }

    public func attribute(_ ref: PropertyRef) -> Attribute? {
        if case .attribute(let entity, let index) = ref { return entities[entity].attributes[index] }
        return nil
    }

    public func relationship(_ ref: PropertyRef) -> Relationship? {
        if case .relationship(let entity, let index) = ref { return entities[entity].relationships[index] }
        return nil
    }

    public func relationship(_ ref: RelationshipRef) -> Relationship {
        entities[ref.entity].relationships[ref.index]
    }

    /// Names of every property visible on `entity`, sorted.
    public func propertyNames(of entity: Int) -> [String] {
        entities[entity].propertyIndex.keys.sorted()
    }

    /// Ancestors of `entity`, nearest first.
    public func ancestors(of entity: Int) -> [Int] {
        var result: [Int] = []
        var current = entities[entity].parent
        while let next = current {
            result.append(next)
            current = entities[next].parent
        }
        return result
    }

    /// Every attribute of `entity`, inherited ones first (root first), then its own.
    public func allAttributes(of entity: Int) -> [Attribute] {
        (ancestors(of: entity).reversed() + [entity]).flatMap { entities[$0].attributes }
    }

    /// Every relationship of `entity`, inherited ones first (root first), then its own.
    public func allRelationships(of entity: Int) -> [Relationship] {
        (ancestors(of: entity).reversed() + [entity]).flatMap { entities[$0].relationships }
    }

    func location(_ line: Int, attribute: String) -> SourceLocation {
        source.location(line: line, attribute: attribute)
    }

    func location(_ line: Int, element: String) -> SourceLocation {
        source.location(line: line, element: element)
    }

    /// A "did you mean" note for an unknown property name of `entity`.
    func suggestion(for name: String, in entity: Int) -> [Diagnostic.Note] {
        EditDistance.suggestion(for: name, among: propertyNames(of: entity))
    }
}
