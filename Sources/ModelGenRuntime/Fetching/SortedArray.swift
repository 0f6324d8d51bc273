/// A random-access collection kept sorted by an ordering, with binary search for insertion,
/// removal and lookup. The type of the generated `…Array` wrappers of to-many relationships.
///
/// ```swift
/// var names = SortedArray(["b", "c"], by: <)
/// names.insert("a")        // ["a", "b", "c"]
/// names.firstIndex(of: "c") // 2
/// ```
///
/// Elements that compare equal keep their insertion order (the sort is stable), so an ordering on
/// a key that is not unique still gives a deterministic order.
public struct SortedArray<Element>: RandomAccessCollection {
    public typealias Index = Int

    private var elements: [Element]
    private let areInIncreasingOrder: (Element, Element) -> Bool

    /// Sorts `elements` (stably) by `areInIncreasingOrder`.
    public init(_ elements: some Sequence<Element>, by areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.areInIncreasingOrder = areInIncreasingOrder
        var sorted = Array(elements)
        Self.stableSort(&sorted, by: areInIncreasingOrder)
        self.elements = sorted
    }

    /// `elements`, already in the order of `areInIncreasingOrder` (not checked, not sorted again).
    init(presorted elements: [Element], by areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.areInIncreasingOrder = areInIncreasingOrder
        self.elements = elements
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }

    /// The index at which `element` would be inserted after every element that does not order after it.
    public func insertionIndex(for element: Element) -> Int {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if areInIncreasingOrder(element, elements[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Inserts `element` at its place; returns its index. O(log n) comparisons.
    @discardableResult
    public mutating func insert(_ element: Element) -> Int {
        let index = insertionIndex(for: element)
        elements.insert(element, at: index)
        return index
    }

    /// The range of elements that order neither before nor after `element`.
    public func equalRange(of element: Element) -> Range<Int> {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if areInIncreasingOrder(elements[middle], element) { low = middle + 1 } else { high = middle }
        }
        return low..<insertionIndex(for: element)
    }

    @discardableResult
    public mutating func remove(at index: Int) -> Element { elements.remove(at: index) }

    public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        try elements.removeAll(where: shouldBeRemoved)
    }

    public var array: [Element] { elements }

    /// A stable merge sort (the standard library's sort does not promise stability).
    private static func stableSort(_ array: inout [Element], by less: (Element, Element) -> Bool) {
        guard array.count > 1 else { return }
        var buffer = array
        var width = 1
        while width < array.count {
            var start = 0
            while start < array.count {
                let middle = Swift.min(start + width, array.count)
                let end = Swift.min(start + 2 * width, array.count)
                var left = start
                var right = middle
                var out = start
                while left < middle && right < end {
                    if less(array[right], array[left]) {
                        buffer[out] = array[right]
                        right += 1
                    } else {
                        buffer[out] = array[left]
                        left += 1
                    }
                    out += 1
                }
                while left < middle {
                    buffer[out] = array[left]
                    left += 1
                    out += 1
                }
                while right < end {
                    buffer[out] = array[right]
                    right += 1
                    out += 1
                }
                start = end
            }
            swap(&array, &buffer)
            width *= 2
        }
    }
}

extension SortedArray where Element: Equatable {
    /// The index of an element equal to `element`, found by binary search over its equal range.
    public func firstIndex(of element: Element) -> Int? {
        equalRange(of: element).first { elements[$0] == element }
    }

    /// Removes one element equal to `element`; returns whether one was there.
    @discardableResult
    public mutating func remove(_ element: Element) -> Bool {
        guard let index = firstIndex(of: element) else { return false }
        elements.remove(at: index)
        return true
    }

    public func contains(_ element: Element) -> Bool { firstIndex(of: element) != nil }
}
