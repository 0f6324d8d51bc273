import Foundation

/// Where an object is in observed results: its section and its place in the section (sections
/// are numbered from 0; results that are not sectioned have one section).
public struct ResultPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ResultPosition, rhs: ResultPosition) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    public var description: String { "\(section).\(item)" }
}

/// How observed results changed since the previous delivery, in the terms of a table view's
/// batch update. Positions of `deleted`, `deletedSections` and the sources of `moved` are in the
/// previous results; those of `inserted`, `insertedSections`, the destinations of `moved` and
/// `updated` are in the new results.
///
/// Applied to the previous results in this order, it gives the new results exactly:
/// 1. remove the objects at `deleted` and at the sources of `moved` (last position first);
/// 2. remove the sections `deletedSections` with what is left in them (last first);
/// 3. insert the sections `insertedSections`, each with all its objects (first first);
/// 4. insert the objects at `inserted` and at the destinations of `moved` (first first);
/// 5. the objects at `updated` changed in place (their values; reload them).
///
/// A section deleted or inserted is never also listed item by item, and no move leaves a deleted
/// section or enters an inserted one (as a table view requires).
public struct ResultsChanges: Hashable, Sendable {
    public struct Move: Hashable, Sendable {
        public var from: ResultPosition
        public var to: ResultPosition
    }

    public var deletedSections: [Int] = []
    public var insertedSections: [Int] = []
    public var deleted: [ResultPosition] = []
    public var inserted: [ResultPosition] = []
    public var moved: [Move] = []
    /// Objects present before and after whose values changed (moved ones included).
    public var updated: [ResultPosition] = []

    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deleted.isEmpty && inserted.isEmpty && moved.isEmpty
            && updated.isEmpty
    }
}

/// One section of observed results: the objects with one value of the section key path.
public struct ResultsSection<T: ManagedObject> {
    /// The section's value of the key path (`nil` for objects without one).
    public let value: Any?
    /// The value as text (`""` for `nil`), as a section header shows it.
    public let name: String
    public let objects: ArraySlice<T>
}

/// What an observation delivers: the results now, and how they changed since the previous
/// delivery (the first delivery has every object inserted).
public struct ObservedResults<T: ManagedObject> {
    /// Every object, in the request's order.
    public let objects: SortedArray<T>
    /// The objects by section (one section holding every object when the observation is not
    /// sectioned — none when there are no objects and the observation is sectioned).
    public let sections: [ResultsSection<T>]
    public let changes: ResultsChanges
    /// Whether this is the first delivery (the results as they were when observing began).
    public let isInitial: Bool
}
