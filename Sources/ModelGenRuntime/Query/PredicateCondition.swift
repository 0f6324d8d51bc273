import PredicateSyntax

/// A predicate's tree, relative to one entity: attribute slots and relationship indices are that
/// entity's; a relationship case's inner condition is relative to the destination.
indirect enum PredicateCondition {
    case constant(Bool)
    case not(PredicateCondition)
    case and([PredicateCondition])
    case or([PredicateCondition])
    case compare(slot: Int, op: ComparisonOperator, options: ComparisonOptions, value: StoredValue)
    case oneOf(slot: Int, values: [StoredValue])
    case between(slot: Int, low: StoredValue, high: StoredValue)
    /// The to-one relationship leads to an object matching `inner`.
    case toOne(relationship: Int, inner: PredicateCondition)
    /// Some object of the to-many relationship matches `inner` (`ANY`).
    case any(relationship: Int, inner: PredicateCondition)
    /// The number of objects in the to-many relationship compared with `value` (`@count`).
    case count(relationship: Int, op: ComparisonOperator, value: Int64)
    /// The to-one relationship leads (or not) to exactly `object`.
    case identity(relationship: Int, equal: Bool, object: ManagedObject?)
}

extension PredicateCondition {
    /// Whether the condition looks through a relationship.
    var followsRelationships: Bool {
        switch self {
        case .constant, .compare, .oneOf, .between: false
        case .not(let inner): inner.followsRelationships
        case .and(let terms), .or(let terms): terms.contains { $0.followsRelationships }
        case .toOne, .any, .count, .identity: true
        }
    }
}
