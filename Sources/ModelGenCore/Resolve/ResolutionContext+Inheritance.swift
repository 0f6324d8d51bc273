extension ResolutionContext {
    /// Links parents, sub-entities and roots; reports unknown parents and cycles (and cuts them,
    /// so later steps always see a forest).
    mutating func linkInheritance() {
        for index in entities.indices {
            guard let parentName = entities[index].parentName else { continue }
            guard let parent = entityIndex[parentName] else {
                diagnostics.report(
                    ModelResolver.unresolvedParent(entities[index].name, parentName),
                    at: location(entities[index].line, attribute: "parentEntity"),
                    notes: suggestion(for: parentName, among: entityIndex.keys))
                continue
            }
            entities[index].parent = parent
        }
        // Cut cycles: walk up from each entity; a walk that returns to its start is a cycle.
        for index in entities.indices {
            var seen: Set<Int> = [index]
            var current = entities[index].parent
            while let next = current {
                if next == index {
                    diagnostics.report(
                        ModelResolver.inheritanceCycle(entities[index].name),
                        at: location(entities[index].line, attribute: "parentEntity"))
                    entities[index].parent = nil
                    break
                }
                guard seen.insert(next).inserted else { break }
                current = entities[next].parent
            }
        }
        for index in entities.indices {
            if let parent = entities[index].parent { entities[parent].subentities.append(index) }
        }
        for index in entities.indices {
            var root = index
            while let parent = entities[root].parent { root = parent }
            entities[index].root = root
        }
    }

    /// The entity's ancestors, nearest first.
    func ancestors(of index: Int) -> [Int] {
        var result: [Int] = []
        var current = entities[index].parent
        while let next = current {
            result.append(next)
            current = entities[next].parent
        }
        return result
    }

    /// Builds each entity's index of own and inherited properties, parents before children;
    /// reports names declared twice in one entity or re-declared below an ancestor.
    mutating func indexProperties() {
        if indexPropertiesByLevel() { return }
        var done = [Bool](repeating: false, count: entities.count)
        for index in entities.indices { indexProperties(of: index, done: &done) }
    }

    private mutating func indexProperties(of index: Int, done: inout [Bool]) {
        if done[index] { return }
        done[index] = true
        if let parent = entities[index].parent { indexProperties(of: parent, done: &done) }
        let (table, duplicates) = Self.propertyTable(of: index, in: entities)
        let entity = entities[index].name
        for (name, existing, line) in duplicates {
            let message =
                existing.entity == index
                ? ModelResolver.duplicateProperty(name, entity)
                : ModelResolver.duplicateInheritedProperty(name, entity, entities[existing.entity].name)
            diagnostics.report(message, at: location(line, attribute: "name"))
        }
        entities[index].propertyIndex = table
    }

    /// Builds the indexes level by level (roots, then their sub-entities, …), a large level's
    /// entities on all cores. Returns `false` when some entity declares a name twice (or again
    /// below an ancestor): the walk above then builds every index anew and reports those in its
    /// order.
    private mutating func indexPropertiesByLevel() -> Bool {
        var depths = [Int](repeating: -1, count: entities.count)
        var levels: [[Int]] = []
        for index in entities.indices {
            var chain: [Int] = []
            var current: Int? = index
            while let next = current, depths[next] < 0 {
                // Resolution cut every cycle; should one remain, the walk below copes with it.
                guard chain.count < entities.count else { return false }
                chain.append(next)
                current = entities[next].parent
            }
            var depth = current.map { depths[$0] } ?? -1
            for entity in chain.reversed() {
                depth += 1
                depths[entity] = depth
                if levels.count <= depth { levels.append([]) }
                levels[depth].append(entity)
            }
        }
        for level in levels {
            let runs = Parallel.runs(level, minimumLength: 64)
            // The copy that jobs read is gone before the indexes are stored (no copy on write).
            let tables: [[(Int, [String: PropertyRef])]?] = {
                let entities = self.entities
                return Parallel.map(runs.count) { run in
                    var tables: [(Int, [String: PropertyRef])] = []
                    for index in runs[run] {
                        let (table, duplicates) = Self.propertyTable(of: index, in: entities)
                        guard duplicates.isEmpty else { return nil }
                        tables.append((index, table))
                    }
                    return tables
                }
            }()
            for run in tables {
                guard let run else { return false }
                for (index, table) in run { entities[index].propertyIndex = table }
            }
        }
        return true
    }

    /// The entity's own properties (attributes, relationships, fetched properties) added to its
    /// parent's index; and the names already taken there (the first declaration is kept), with
    /// what took them and the line of the one left out.
    private static func propertyTable(
        of index: Int, in entities: [Entity]
    ) -> (table: [String: PropertyRef], duplicates: [(name: String, existing: PropertyRef, line: Int)]) {
        let entity = entities[index]
        var table = entity.parent.map { entities[$0].propertyIndex } ?? [:]
        var duplicates: [(name: String, existing: PropertyRef, line: Int)] = []
        table.reserveCapacity(
            table.count + entity.attributes.count + entity.relationships.count + entity.fetchedProperties.count)
        func add(_ name: String, _ ref: PropertyRef, line: Int) {
            if let existing = table[name] {
                duplicates.append((name, existing, line))
            } else {
                table[name] = ref
            }
        }
        for position in entity.attributes.indices {
            add(
                entity.attributes[position].name, .attribute(entity: index, index: position),
                line: entity.attributes[position].line)
        }
        for position in entity.relationships.indices {
            add(
                entity.relationships[position].name, .relationship(entity: index, index: position),
                line: entity.relationships[position].line)
        }
        for position in entity.fetchedProperties.indices {
            add(
                entity.fetchedProperties[position].name, .fetchedProperty(entity: index, index: position),
                line: entity.fetchedProperties[position].line)
        }
        return (table, duplicates)
    }

    /// A "did you mean" note naming the closest candidate, if one is close enough.
    func suggestion(for name: String, among candidates: some Sequence<String>) -> [Diagnostic.Note] {
        EditDistance.suggestion(for: name, among: candidates)
    }
}

enum EditDistance {
    /// A "did you mean" note naming the closest candidate (ties: the smaller name), if one is
    /// within a third of the name's length (at least 2 edits).
    static func suggestion(for name: String, among candidates: some Sequence<String>) -> [Diagnostic.Note] {
        var best: (String, Int)?
        let limit = max(2, name.count / 3)
        for candidate in candidates {
            let distance = between(name, candidate, limit: limit)
            if distance <= limit, best.map({ distance < $0.1 || (distance == $0.1 && candidate < $0.0) }) ?? true {
                best = (candidate, distance)
            }
        }
        return best.map { [Diagnostic.Note("did you mean '\($0.0)'?")] } ?? []
    }

    /// Levenshtein distance, giving up (returning `limit + 1`) once it must exceed `limit`.
    static func between(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a.lowercased().unicodeScalars)
        let b = Array(b.lowercased().unicodeScalars)
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
