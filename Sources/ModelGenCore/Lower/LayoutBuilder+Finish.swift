extension LayoutBuilder {
    static func columnCollision(_ column: String, _ table: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "column-name-collision", .error, "two properties are stored in column '\(column)' of table '\(table)'")
    }
    static func tableCollision(_ table: String) -> DiagnosticMessage {
        DiagnosticMessage("table-name-collision", .error, "two tables are named '\(table)'")
    }
    static func reservedColumn(_ column: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "reserved-column-name", .error,
            "column name '\(column)' starts with '_', which is reserved for modelgen's own columns")
    }
    static func emptyName() -> DiagnosticMessage {
        DiagnosticMessage("empty-sql-name", .error, "the SQL name is empty")
    }

    /// The source location an anchor stands for.
    func location(_ anchor: SourceAnchor?) -> SourceLocation? {
        anchor.map { model.location($0.line, attribute: $0.attribute) }
    }

    /// Reports names used twice in a table or across tables, and user names taking the reserved `_` prefix.
    /// - Parameter clean: per table, whether its column names are known to need no report.
    func checkNames(clean: [Bool]) {
        var tableNames: [String: SourceAnchor?] = [MetadataTable.name: nil]
        // By index: a planned table is large, and a loop over the array would copy each out.
        for position in tables.indices {
            if let first = tableNames[tables[position].name] {
                diagnostics.report(
                    Self.tableCollision(tables[position].name), at: location(tables[position].location),
                    notes: location(first).map { [Diagnostic.Note("the other table comes from here", at: $0)] } ?? [])
            } else {
                tableNames[tables[position].name] = tables[position].location
            }
            if clean[position] { continue }
            let table = tables[position]
            // Names only (a collision is rare: the first column of that name is looked up then).
            var columns = Set<String>(minimumCapacity: table.columns.count)
            for planned in table.columns {
                let name = planned.column.name
                if name.isEmpty {
                    diagnostics.report(Self.emptyName(), at: location(planned.location))
                } else if name.utf8.first == UInt8(ascii: "_"), planned.location != nil {
                    diagnostics.report(Self.reservedColumn(name), at: location(planned.location))
                }
                if !columns.insert(name).inserted {
                    let first = location(table.columns.first { $0.column.name == name }?.location)
                    diagnostics.report(
                        Self.columnCollision(name, table.name), at: location(planned.location),
                        notes: first.map { [Diagnostic.Note("the other property is declared here", at: $0)] } ?? [])
                }
            }
        }
    }

    /// Checks the names; orders tables so that each comes after the tables it references (ties
    /// and cycles broken by name), sorts columns, names checks, and de-duplicates indexes.
    mutating func finish() -> RelationalSchema {
        // Each table is finished on its own: runs of them on all cores, put together in order.
        // A job also frees the planned columns of its tables once they are copied into the
        // schema (freeing 50,000 of them afterwards on one core took milliseconds), except
        // where `checkNames` has something to report.
        let runs = Parallel.runs(Array(tables.indices), minimumLength: 64)
        let results = tables.withUnsafeMutableBufferPointer { planned in
            // Each job reads and writes only the tables of its own run.
            nonisolated(unsafe) let planned = planned
            return Array(
                Parallel.map(runs.count) { job in
                    runs[job].map { index in
                        let result = Self.finished(planned[index])
                        if result.namesAreClean { planned[index].columns = [] }
                        return result
                    }
                }.joined())
        }
        checkNames(clean: results.map(\.namesAreClean))
        let finished = results.map(\.table)
        var seen = Set<String>()
        var uniqueIndexes: [Index] = []
        // An index the same as one kept (same table, parts, uniqueness and entities) is dropped;
        // compared only with the kept indexes of its own table.
        var keptByTable: [String: [Index]] = [:]
        for index in indexes.sorted(by: { $0.name < $1.name }) where seen.insert(index.name).inserted {
            if keptByTable[index.table, default: []].contains(where: {
                $0.parts == index.parts && $0.isUnique == index.isUnique && $0.entityIDs == index.entityIDs
            }) {
                continue
            }
            keptByTable[index.table, default: []].append(index)
            uniqueIndexes.append(index)
        }
        // In pre-order, whatever the numbers.
        let mappings = preorder.compactMap { entity -> EntityMapping? in
            guard let table = tableOfRoot[model.entities[entity].root] else { return nil }
            return EntityMapping(
                entity: model.entities[entity].name, table: tables[table].name, entityID: entityIDs[entity],
                isAbstract: model.entities[entity].isAbstract)
        }
        return RelationalSchema(
            layout: layoutName, modelName: model.modelName ?? "Model", versionName: model.versionName,
            tables: Self.foreignKeyOrder(finished) + [MetadataTable.table], indexes: uniqueIndexes, entities: mappings)
    }

    /// A planned table as the schema holds it: bookkeeping columns first, the others by name,
    /// foreign keys sorted, checks named; and whether `checkNames` has nothing to report about
    /// its columns (no name empty, none of the user's taking the `_` prefix, none used twice).
    private static func finished(_ planned: PlannedTable) -> (table: Table, namesAreClean: Bool) {
        let columns = planned.columns
        let bookkeeping = columns.prefix { $0.column.name.hasPrefix("_") && $0.location == nil }.count
        // The other columns by name: positions are sorted, not the (large) planned columns.
        let rest = (bookkeeping..<columns.count).sorted { columns[$0].column.name < columns[$1].column.name }
        // Sorted, a name used twice is a name equal to the next; the few bookkeeping names are
        // compared with the others that start with `_`.
        var clean = columns.allSatisfy {
            !$0.column.name.isEmpty && !($0.location != nil && $0.column.name.utf8.first == UInt8(ascii: "_"))
        }
        for (position, index) in rest.enumerated() where clean {
            let name = columns[index].column.name
            if position + 1 < rest.count, name == columns[rest[position + 1]].column.name { clean = false }
            if name.utf8.first == UInt8(ascii: "_"),
                columns.prefix(bookkeeping).contains(where: { $0.column.name == name })
            {
                clean = false
            }
        }
        for first in 0..<bookkeeping where clean {
            if columns[first + 1..<bookkeeping].contains(where: { $0.column.name == columns[first].column.name }) {
                clean = false
            }
        }
        let table = Table(
            name: planned.name, kind: planned.kind, columns: (Array(0..<bookkeeping) + rest).map { columns[$0].column },
            primaryKey: planned.primaryKey,
            foreignKeys: planned.foreignKeys.sorted { $0.columns.lexicographicallyPrecedes($1.columns) },
            checks: namedChecks(planned.checks, table: planned.name))
        return (table, clean)
    }

    static func namedChecks(_ conditions: [Check.Condition], table: String) -> [Check] {
        var used = Set<String>()
        return conditions.map { condition in
            let (column, kind) = condition.nameParts
            var name = SQLNaming.fitted(String.concatenating(table, "_", column, "_", kind))
            var counter = 2
            while !used.insert(name).inserted {
                name = SQLNaming.fitted("\(table)_\(column)_\(kind)\(counter)")
                counter += 1
            }
            return Check(name: name, condition: condition)
        }
    }

    /// Kahn's algorithm over foreign keys (self references ignored), smallest name first; a
    /// cycle is broken at its smallest name.
    static func foreignKeyOrder(_ tables: [Table]) -> [Table] {
        // Repeatedly take the first table (by name) whose referenced tables are all placed; when
        // a cycle leaves none, the first remaining one. Kept linear-logarithmic: a count of
        // unplaced referenced tables per table, a heap of the ready ones. Tables are large:
        // their positions are sorted and ordered, and each table is copied once, at the end.
        let sorted = tables.indices.sorted { tables[$0].name < tables[$1].name }
        var position: [String: Int] = [:]
        position.reserveCapacity(sorted.count)
        for (rank, index) in sorted.enumerated() where position[tables[index].name] == nil {
            position[tables[index].name] = rank
        }
        var waiting = Array(repeating: 0, count: sorted.count)
        var dependents = Array(repeating: [Int](), count: sorted.count)
        var targets: [Int] = []
        for (rank, index) in sorted.enumerated() {
            // A table references few others: its distinct targets are found in a short list.
            targets.removeAll(keepingCapacity: true)
            for key in tables[index].foreignKeys where key.referencedTable != tables[index].name {
                guard let target = position[key.referencedTable], !targets.contains(target) else { continue }
                targets.append(target)
                waiting[rank] += 1
                dependents[target].append(rank)
            }
        }
        var ready = MinHeap()
        for rank in sorted.indices where waiting[rank] == 0 { ready.push(rank) }
        var placed = Array(repeating: false, count: sorted.count)
        var firstUnplaced = 0
        var ordered: [Table] = []
        ordered.reserveCapacity(sorted.count)
        while ordered.count < sorted.count {
            var next: Int?
            while let candidate = ready.pop() {
                if !placed[candidate] {
                    next = candidate
                    break
                }
            }
            if next == nil {
                while placed[firstUnplaced] { firstUnplaced += 1 }
                next = firstUnplaced
            }
            let rank = next!
            placed[rank] = true
            ordered.append(tables[sorted[rank]])
            for dependent in dependents[rank] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 && !placed[dependent] { ready.push(dependent) }
            }
        }
        return ordered
    }
}

/// A binary min-heap of integers.
struct MinHeap {
    private var items: [Int] = []

    mutating func push(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Int? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count && items[left] < items[smallest] { smallest = left }
                if right < items.count && items[right] < items[smallest] { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}

extension Check.Condition {
    /// The column a check is about and a short word for its kind, for its name.
    var nameParts: (String, String) {
        switch self {
        case .oneOf(let column, _): (column, "in")
        case .range(let column, _, _): (column, "range")
        case .length(let column, _, _): (column, "length")
        case .integerWidth(let column, _): (column, "width")
        case .requiredFor(let column, _): (column, "required")
        case .matches(let column, _): (column, "pattern")
        case .isBoolean(let column): (column, "boolean")
        case .byteCount(let column, _): (column, "size")
        }
    }
}

/// `_modelgen_metadata(key, value)`: layout, generator version, version hash and schema snapshot.
enum MetadataTable {
    static let name = "_modelgen_metadata"

    static var table: Table {
        Table(
            name: name, kind: .metadata,
            columns: [
                Column(name: "key", type: .text, isNullable: false, role: .metadata),
                Column(name: "value", type: .text, isNullable: false, role: .metadata),
            ],
            primaryKey: ["key"], foreignKeys: [], checks: [])
    }
}
