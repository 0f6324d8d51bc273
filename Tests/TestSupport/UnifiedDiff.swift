/// The lines that differ between two texts as a unified diff (`diff -u`'s form: `@@` hunks with
/// three lines of context), for tests that compare output with a reviewed reference.
///
/// Lines are matched by Myers' shortest-edit algorithm; past `maximumEdits` edits (texts that
/// share little) one hunk spans everything between the common first and last lines instead.
public enum UnifiedDiff {
    enum Edit: Equatable {
        case same, removed, added
    }

    public static func render(
        expected: String, actual: String, expectedName: String = "expected", actualName: String = "actual",
        context: Int = 3,
        maximumEdits: Int = 1_000
    ) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        guard old != new else { return "" }
        let edits = shortestEdits(old, new, maximumEdits: maximumEdits) ?? coarseEdits(old, new)
        var text = "--- \(expectedName)\n+++ \(actualName)\n"
        // Positions in old and new at each edit, then hunks of changes within `context` lines.
        var positions: [(Edit, Int, Int)] = []
        var (i, j) = (0, 0)
        for edit in edits {
            positions.append((edit, i, j))
            if edit != .added { i += 1 }
            if edit != .removed { j += 1 }
        }
        let changed = positions.indices.filter { positions[$0].0 != .same }
        var start = 0
        while start < changed.count {
            var end = start
            while end + 1 < changed.count && changed[end + 1] - changed[end] <= 2 * context { end += 1 }
            let first = max(0, changed[start] - context)
            let last = min(positions.count - 1, changed[end] + context)
            let hunk = positions[first...last]
            let oldCount = hunk.filter { $0.0 != .added }.count
            let newCount = hunk.filter { $0.0 != .removed }.count
            let oldStart = oldCount == 0 ? hunk.first!.1 : hunk.first { $0.0 != .added }!.1 + 1
            let newStart = newCount == 0 ? hunk.first!.2 : hunk.first { $0.0 != .removed }!.2 + 1
            text += "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"
            for (edit, oldIndex, newIndex) in hunk {
                switch edit {
                case .same: text += " " + old[oldIndex] + "\n"
                case .removed: text += "-" + old[oldIndex] + "\n"
                case .added: text += "+" + new[newIndex] + "\n"
                }
            }
            start = end + 1
        }
        return text
    }

    /// Myers' algorithm: the fewest removals and additions turning `old` into `new`, or nil past
    /// `maximumEdits`.
    static func shortestEdits(_ old: [Substring], _ new: [Substring], maximumEdits: Int) -> [Edit]? {
        let (n, m) = (old.count, new.count)
        let limit = min(n + m, maximumEdits)
        let offset = limit + 1
        var furthest = [Int](repeating: 0, count: 2 * limit + 3)
        var trace: [[Int]] = []
        for d in 0...limit {
            trace.append(furthest)
            for k in stride(from: -d, through: d, by: 2) {
                var x =
                    k == -d || (k != d && furthest[k - 1 + offset] < furthest[k + 1 + offset])
                    ? furthest[k + 1 + offset] : furthest[k - 1 + offset] + 1
                var y = x - k
                while x < n && y < m && old[x] == new[y] {
                    x += 1
                    y += 1
                }
                furthest[k + offset] = x
                if x >= n && y >= m { return backtrack(trace, n, m, offset) }
            }
        }
        return nil
    }

    private static func backtrack(_ trace: [[Int]], _ n: Int, _ m: Int, _ offset: Int) -> [Edit] {
        var edits: [Edit] = []
        var (x, y) = (n, m)
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let furthest = trace[d]
            let k = x - y
            let previousK =
                k == -d || (k != d && furthest[k - 1 + offset] < furthest[k + 1 + offset]) ? k + 1 : k - 1
            let previousX = furthest[previousK + offset]
            let previousY = previousX - previousK
            while x > previousX && y > previousY {
                edits.append(.same)
                x -= 1
                y -= 1
            }
            guard d > 0 else { break }
            if x == previousX {
                edits.append(.added)
                y -= 1
            } else {
                edits.append(.removed)
                x -= 1
            }
        }
        return edits.reversed()
    }

    /// Common first and last lines kept, everything between removed and added.
    static func coarseEdits(_ old: [Substring], _ new: [Substring]) -> [Edit] {
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
            && old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        return Array(repeating: .same, count: prefix) + Array(repeating: .removed, count: old.count - prefix - suffix)
            + Array(repeating: .added, count: new.count - prefix - suffix) + Array(repeating: .same, count: suffix)
    }
}
