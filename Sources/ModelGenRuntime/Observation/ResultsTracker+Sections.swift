extension ResultsTracker {
    // MARK: - Sections

    /// The sections now, for the change builder (one section, keyed `NULL`, when not sectioned).
    func sections() -> ResultsChangeBuilder.Sections {
        var starts: [Int] = []
        starts.reserveCapacity(sectionCounts.count)
        var start = 0
        for count in sectionCounts {
            starts.append(start)
            start += count
        }
        return ResultsChangeBuilder.Sections(keys: sectionKeys, starts: starts)
    }

    func rebuildSections() {
        guard sectionSlot != nil else {
            sectionKeys = [.null]
            sectionCounts = [objects.count]
            return
        }
        sectionKeys = []
        sectionCounts = []
        for placement in placements {
            let key = placement.first
            if sectionKeys.last == key {
                sectionCounts[sectionCounts.count - 1] += 1
            } else {
                sectionKeys.append(key)
                sectionCounts.append(1)
            }
        }
    }

    /// The index of the section of `key`, or where it would go.
    func sectionIndex(_ key: StoredValue) -> Int {
        let ascending = sectionAscending
        var low = 0
        var high = sectionKeys.count
        while low < high {
            let middle = (low + high) / 2
            let order = StoredValue.order(sectionKeys[middle], key)
            if ascending ? order < 0 : order > 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func leaveSection(_ key: StoredValue) {
        guard sectionSlot != nil else {
            sectionCounts[0] -= 1
            return
        }
        let index = sectionIndex(key)
        sectionCounts[index] -= 1
        if sectionCounts[index] == 0 {
            sectionKeys.remove(at: index)
            sectionCounts.remove(at: index)
        }
    }

    func enterSection(_ key: StoredValue) {
        guard sectionSlot != nil else {
            sectionCounts[0] += 1
            return
        }
        let index = sectionIndex(key)
        if index < sectionKeys.count && sectionKeys[index] == key {
            sectionCounts[index] += 1
        } else {
            sectionKeys.insert(key, at: index)
            sectionCounts.insert(1, at: index)
        }
    }
}
