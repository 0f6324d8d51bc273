import PredicateSyntax

/// A predicate's tree, relative to one entity: attribute slots and relationship indices are that
/// entity's; a relationship case's inner condition is relative to the destination.
indirect enum PredicateCondition {
    case constant(Bool)
    case not(PredicateCondition)
    case and([PredicateCondition])
    case or([PredicateCondition])
    case compare(slot: Int, op: ComparisonOperator, options: ComparisonOptions, value: StoredValue)
    /// Two attributes of the same object compared (`end > start`).
    case compareKeys(slot: Int, op: ComparisonOperator, options: ComparisonOptions, other: Int)
    /// The object is (or is not) one of `objects` (`SELF == %@`, `SELF IN %@`).
    case isOneOf(objects: [ManagedObject], equal: Bool)
    /// The attribute equals one of `values` (`IN`), strings compared under `options` (`IN[c]`).
    case oneOf(slot: Int, values: [StoredValue], options: ComparisonOptions)
    case between(slot: Int, low: StoredValue, high: StoredValue)
    /// The to-one relationship leads to an object matching `inner`, or leads nowhere and `inner`
    /// holds of nothing (`inner.holdsOfNothing`: NSPredicate's `customer.name == nil` matches an
    /// order without a customer).
    case toOne(relationship: Int, inner: PredicateCondition)
    /// Some object of the to-many relationship matches `inner` (`ANY`).
    case any(relationship: Int, inner: PredicateCondition)
    /// The number of objects in the to-many relationship compared with `value` (`@count`).
    case count(relationship: Int, op: ComparisonOperator, value: Int64)
    /// The number of objects in the to-many relationship that match `inner`, compared with
    /// `value` (`SUBQUERY(grades, $g, $g.points > 50).@count > 2`).
    case countWhere(relationship: Int, inner: PredicateCondition, op: ComparisonOperator, value: Int64)
    /// An aggregate (`sum`, `average`, `min`, `max`) of an attribute of the to-many
    /// relationship's objects compared with `value` (`books.@sum.pages > 1000`): 0 is the sum of
    /// nothing, and the others of nothing are `nil`.
    case aggregate(
        relationship: Int, function: ResultTerm.Function, slot: Int, op: ComparisonOperator, value: StoredValue)
    /// The to-one relationship leads (or not) to exactly `object`.
    case identity(relationship: Int, equal: Bool, object: ManagedObject?)
    /// `object` is one of the relationship's destinations (`%@ IN tags`, `ANY tags == %@`).
    case member(relationship: Int, object: ManagedObject)
}

/// Whether two objects stand for the same row: the same object, or saved objects with one
/// `objectID` (an object of another context names its row, as in Core Data).
func isSameRow(_ a: ManagedObject?, _ b: ManagedObject?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    if a === b { return true }
    return !a.objectID.isTemporary && a.objectID == b.objectID
}

extension PredicateCondition {
    /// Whether the condition looks through a relationship.
    var followsRelationships: Bool {
        switch self {
        case .constant, .compare, .compareKeys, .oneOf, .between, .isOneOf: false
        case .not(let inner): inner.followsRelationships
        case .and(let terms), .or(let terms): terms.contains { $0.followsRelationships }
        case .toOne, .any, .count, .countWhere, .aggregate, .identity, .member: true
        }
    }
}

extension PredicateCondition {
    /// What the condition gives for an object that is not there, as at the end of a to-one that
    /// leads nowhere: every key path from it is nil and every collection empty (NSPredicate's
    /// semantics, the same in SQL and in memory).
    var holdsOfNothing: Bool {
        switch self {
        case .constant(let value): value
        case .not(let inner): !inner.holdsOfNothing
        case .and(let terms): terms.allSatisfy(\.holdsOfNothing)
        case .or(let terms): terms.contains(where: \.holdsOfNothing)
        case .compare(_, let op, let options, let value): PredicateEvaluator.compare(.null, op, options, value)
        case .compareKeys(_, let op, let options, _): PredicateEvaluator.compare(.null, op, options, .null)
        case .isOneOf(_, let equal): !equal
        case .oneOf(_, let values, _): values.contains(.null)
        case .between: false
        case .toOne(_, let inner): inner.holdsOfNothing
        case .any: false
        case .count(_, let op, let value), .countWhere(_, _, let op, let value):
            PredicateEvaluator.compare(.integer(0), op, [], .integer(value))
        case .aggregate(_, let function, _, let op, let value):
            PredicateEvaluator.compare(function == .sum ? .integer(0) : .null, op, [], value)
        case .identity(_, let equal, let object): (object == nil) == equal
        case .member: false
        }
    }
}
