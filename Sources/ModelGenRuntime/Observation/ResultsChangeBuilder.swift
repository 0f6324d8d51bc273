/// Turns what happened to the objects of observed results (removed, added, present before and
/// after) into a `ResultsChanges`: positions in sections, sections deleted and inserted, and the
/// fewest moves that keep the rest in order (the objects that may stay form a longest increasing
/// subsequence of their old places, taken in their new order).
struct ResultsChangeBuilder {
    /// The sections of a result: each one's key and the flat index of its first object.
    struct Sections {
        var keys: [StoredValue]
        var starts: [Int]

        /// The section and the place in it of flat index `index`.
        func position(of index: Int) -> ResultPosition {
            var low = 0
            var high = starts.count
            // The last section starting at or before `index`.
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= index { low = middle + 1 } else { high = middle }
            }
            let section = low - 1
            return ResultPosition(section: section, item: index - starts[section])
        }
    }

    /// An object present before and after.
    struct Pair {
        var old: Int
        var new: Int
        var updated: Bool
        /// Whether it may stay where it is; false when it is known to have moved.
        var mayStay: Bool
    }

    var old: Sections
    var new: Sections
    var sectioned: Bool

    func changes(removed: [Int], added: [Int], pairs: [Pair]) -> ResultsChanges {
        var result = ResultsChanges()
        var deletedSection = [Bool](repeating: false, count: old.keys.count)
        var insertedSection = [Bool](repeating: false, count: new.keys.count)
        if sectioned {
            let oldKeys = Set(old.keys)
            let newKeys = Set(new.keys)
            for (index, key) in old.keys.enumerated() where !newKeys.contains(key) {
                deletedSection[index] = true
                result.deletedSections.append(index)
            }
            for (index, key) in new.keys.enumerated() where !oldKeys.contains(key) {
                insertedSection[index] = true
                result.insertedSections.append(index)
            }
        }
        func remove(_ position: ResultPosition) {
            if !deletedSection[position.section] { result.deleted.append(position) }
        }
        func insert(_ position: ResultPosition) {
            if !insertedSection[position.section] { result.inserted.append(position) }
        }
        for index in removed { remove(old.position(of: index)) }
        for index in added { insert(new.position(of: index)) }
        var staying: [(pair: Pair, from: ResultPosition, to: ResultPosition)] = []
        for pair in pairs {
            let from = old.position(of: pair.old)
            let to = new.position(of: pair.new)
            if deletedSection[from.section] || insertedSection[to.section] {
                // Through a section that comes or goes: out with one, in with the other.
                remove(from)
                insert(to)
            } else if !pair.mayStay || old.keys[from.section] != new.keys[to.section] {
                result.moved.append(ResultsChanges.Move(from: from, to: to))
                if pair.updated { result.updated.append(to) }
            } else {
                staying.append((pair, from, to))
            }
        }
        staying.sort { $0.pair.new < $1.pair.new }
        let kept = Self.longestIncreasing(staying.map(\.pair.old))
        for (index, item) in staying.enumerated() {
            if !kept[index] { result.moved.append(ResultsChanges.Move(from: item.from, to: item.to)) }
            if item.pair.updated { result.updated.append(item.to) }
        }
        result.deleted.sort()
        result.inserted.sort()
        result.updated.sort()
        result.moved.sort { $0.to < $1.to }
        return result
    }

    /// Which elements of `values` form one longest strictly increasing subsequence.
    static func longestIncreasing(_ values: [Int]) -> [Bool] {
        var kept = [Bool](repeating: false, count: values.count)
        guard !values.isEmpty else { return kept }
        // tails[k]: the index of the smallest last element of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var index = tails.last!
        while index >= 0 {
            kept[index] = true
            index = previous[index]
        }
        return kept
    }
}
