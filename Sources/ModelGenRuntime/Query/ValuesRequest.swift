import Foundation
import PredicateSyntax

/// A fetch of values instead of objects (Core Data's dictionary result type): selected
/// attributes, aggregates, groups. Results come as `ResultRow`s, read with the columns asked for.
///
/// ```swift
/// let region = ValueColumn(\Order.region)
/// let revenue = Aggregate.sum(\Order.price)
/// var request = ValuesRequest<Order>(predicate: \.paid == true, groupBy: [region], columns: [revenue])
/// request.having = revenue > 1_000
/// for row in try context.fetchValues(request) { print(row[region], row[revenue]) }
/// ```
///
/// - Without aggregates or grouping: one row per object, in the order of `sortDescriptors` (then
///   by row), windowed by `fetchLimit` and `fetchOffset` — the selected attributes of a fetch,
///   without objects.
/// - Grouped (`groupBy` not empty), or with aggregates: one row per group of objects whose
///   `groupBy` values are equal (strings by their bytes), in ascending order of those values
///   (`nil` first); without `groupBy`, one row for all the objects. `having` keeps some groups.
///   Every column that is not an aggregate must be one of `groupBy`.
/// - `returnsDistinctResults`: the distinct combinations of the columns' values, as when
///   grouping by them.
///
/// The context's unsaved changes count, as in `fetch` and `count`: where the context has any
/// (or is a child context), the values are computed from the objects the fetch would return.
/// Core Data's dictionary fetches read the store only.
public struct ValuesRequest<T: ManagedObject>: Sendable {
    public var predicate: ObjectPredicate<T>?
    public var groupBy: [any ResultColumn<T>]
    public var columns: [any ResultColumn<T>]
    /// Which groups to keep, by their aggregates.
    public var having: AggregateCondition<T>?
    public var returnsDistinctResults: Bool
    /// The order of the rows of an ungrouped request.
    public var sortDescriptors: [ObjectSortDescriptor<T>]
    /// The most rows to return; `nil` or 0 for no limit.
    public var fetchLimit: Int?
    public var fetchOffset: Int

    public init(
        predicate: ObjectPredicate<T>? = nil, groupBy: [any ResultColumn<T>] = [], columns: [any ResultColumn<T>],
        having: AggregateCondition<T>? = nil, returnsDistinctResults: Bool = false,
        sortDescriptors: [ObjectSortDescriptor<T>] = [], fetchLimit: Int? = nil, fetchOffset: Int = 0
    ) {
        self.predicate = predicate
        self.groupBy = groupBy
        self.columns = columns
        self.having = having
        self.returnsDistinctResults = returnsDistinctResults
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }

    /// The request as the runtime runs it: its terms checked, keys and values in order.
    func plan() throws(DatabaseError) -> ValuesPlan {
        if let failure = predicate?.failure ?? sortDescriptors.lazy.compactMap(\.failure).first { throw failure }
        let keys = (returnsDistinctResults ? columns : groupBy).map(\.term)
        let values = columns.map(\.term)
        for term in keys + values + (having?.terms ?? []) {
            if let failure = term.failure { throw failure }
        }
        let grouped = !keys.isEmpty || values.contains(where: \.isAggregate) || having != nil
        if grouped, let loose = values.first(where: { !$0.isAggregate && !keys.contains($0) }) {
            throw DatabaseError(
                .misuse,
                "\(loose) is neither an aggregate nor one of the request's groupBy columns: a grouped values fetch cannot give it",
                entity: T.entityDescription.name)
        }
        if let term = keys.first(where: \.isAggregate) {
            throw DatabaseError(.misuse, "cannot group by the aggregate \(term)", entity: T.entityDescription.name)
        }
        // Distinct rows are their keys: the columns are not selected twice.
        return ValuesPlan(
            grouped: grouped, keys: grouped ? keys : [], values: returnsDistinctResults ? [] : values,
            limit: fetchLimit.flatMap { $0 > 0 ? $0 : nil },
            offset: max(0, fetchOffset))
    }
}

/// A values request reduced to what runs: the grouping keys, then the columns asked for.
struct ValuesPlan {
    var grouped: Bool
    var keys: [ResultTerm]
    var values: [ResultTerm]
    var limit: Int?
    var offset: Int
}

/// One row of a values fetch: read it with the columns of the request.
///
/// ```swift
/// let total: Int = row[revenue]
/// ```
///
/// `Sendable`, so rows fetched by one task can be handed to another (or to the main actor):
/// a row holds values read for it alone — numbers, strings, data, dates, identifiers and the
/// values a conversion decoded for this row — that nothing else refers to or changes.
public struct ResultRow<T: ManagedObject>: @unchecked Sendable {
    let terms: [ResultTerm]
    let values: [Any?]

    /// The value a row holds for `term` (`nil` also where it has no such column).
    func value(of term: ResultTerm) -> Any? {
        terms.firstIndex(of: term).flatMap { values[$0] }
    }

    /// The value of `column`, which must be one of the request's columns (or, when grouped, its
    /// `groupBy` columns): reading another is a programming error that stops the program.
    public subscript<C: ResultColumn>(_ column: C) -> C.Value where C.Root == T {
        guard let index = terms.firstIndex(of: column.term) else {
            preconditionFailure("\(column.term) is not a column of the values request that made this row")
        }
        return ResultValues.cast(values[index], to: C.Value.self)
    }
}

/// Which groups of a grouped values fetch to keep (SQL's `HAVING`), by comparing their
/// aggregates with values: `revenue > 1_000 && orders >= 3`.
///
/// `Sendable`: it holds the values it compares with, which are numbers (or other values of an
/// attribute's Swift type) that no one changes once they are given.
public struct AggregateCondition<T: ManagedObject>: @unchecked Sendable {
    indirect enum Node {
        case compare(ResultTerm, ComparisonOperator, Any?)
        case and([Node])
        case or([Node])
        case not(Node)
    }

    let node: Node

    /// Every aggregate the condition compares.
    var terms: [ResultTerm] {
        func collect(_ node: Node) -> [ResultTerm] {
            switch node {
            case .compare(let term, _, _): [term]
            case .and(let nodes), .or(let nodes): nodes.flatMap(collect)
            case .not(let inner): collect(inner)
            }
        }
        return collect(node)
    }

    public static func && (lhs: AggregateCondition, rhs: AggregateCondition) -> AggregateCondition {
        AggregateCondition(node: .and([lhs.node, rhs.node]))
    }

    public static func || (lhs: AggregateCondition, rhs: AggregateCondition) -> AggregateCondition {
        AggregateCondition(node: .or([lhs.node, rhs.node]))
    }

    public static prefix func ! (operand: AggregateCondition) -> AggregateCondition {
        AggregateCondition(node: .not(operand.node))
    }

    /// `aggregate op value`.
    public static func compare<V>(_ aggregate: Aggregate<T, V>, _ op: ComparisonOperator, _ value: V)
        -> AggregateCondition
    {
        AggregateCondition(node: .compare(aggregate.term, op, value))
    }
}

public func == <T: ManagedObject, V>(lhs: Aggregate<T, V>, rhs: V) -> AggregateCondition<T> {
    .compare(lhs, .equal, rhs)
}
public func != <T: ManagedObject, V>(lhs: Aggregate<T, V>, rhs: V) -> AggregateCondition<T> {
    .compare(lhs, .notEqual, rhs)
}
public func < <T: ManagedObject, V>(lhs: Aggregate<T, V>, rhs: V) -> AggregateCondition<T> {
    .compare(lhs, .less, rhs)
}
public func <= <T: ManagedObject, V>(lhs: Aggregate<T, V>, rhs: V) -> AggregateCondition<T> {
    .compare(lhs, .lessOrEqual, rhs)
}
public func > <T: ManagedObject, V>(lhs: Aggregate<T, V>, rhs: V) -> AggregateCondition<T> {
    .compare(lhs, .greater, rhs)
}
public func >= <T: ManagedObject, V>(lhs: Aggregate<T, V>, rhs: V) -> AggregateCondition<T> {
    .compare(lhs, .greaterOrEqual, rhs)
}
