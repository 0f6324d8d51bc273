/// Hints that a drop and an add may be one rename. A rename is never made silently (it needs the
/// model's renaming ID); the drop's message says how, naming the added property or entity whose
/// name is closest to the dropped one's.
extension MigrationPlanner {
    /// For a dropped entity table, when new tables of the same shape (columns of the same roles
    /// and types) are created: how to make the closest-named one a rename instead.
    static func renameHint(
        dropped table: Table, _ plan: MigrationPlan, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities
    ) -> String? {
        guard table.kind == .entity, let oldName = root(oldIDs, table.name) else { return nil }
        let candidates = plan.tables.compactMap { step -> String? in
            guard case .create(let created) = step, created.kind == .entity, shape(created) == shape(table) else {
                return nil
            }
            return root(newIDs, created.name)
        }
        guard let newName = closest(to: oldName, among: candidates) else { return nil }
        return
            "if \(newName) is \(oldName) renamed, give \(newName) the renaming ID \"\(oldIDs.entity(oldName))\" in the model to keep its rows"
    }

    /// For a dropped column, when new columns of the same kind and type are added (`added`: the
    /// new table's columns filled from nothing): how to make the closest-named one a rename.
    static func renameHint(dropped column: Column, _ added: [Column]) -> String? {
        guard let attribute = column.source.flatMap(propertyName) else { return nil }
        let candidates = added.filter { $0.role == column.role && $0.type == column.type }.compactMap {
            $0.source.flatMap(propertyName)
        }
        guard let newName = closest(to: attribute, among: candidates) else { return nil }
        return
            "if \(newName) is \(attribute) renamed, give \(newName) the renaming ID \"\(attribute)\" in the model to keep the values"
    }

    /// The name among `candidates` closest to `name`: fewest single-character edits, ignoring
    /// case (the first of equals).
    static func closest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        return candidates.min {
            editDistance(target, Array($0.lowercased().unicodeScalars))
                < editDistance(target, Array($1.lowercased().unicodeScalars))
        }
    }

    /// Levenshtein distance.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    private static func shape(_ table: Table) -> [String] {
        table.columns.map { "\($0.role.rawValue) \($0.type.rawValue)" }.sorted()
    }

    private static func root(_ ids: SchemaIdentities, _ table: String) -> String? {
        ids.mappings(table).min { $0.entityID < $1.entityID }?.entity
    }

    /// `attribute` of a column's source `Entity.attribute`.
    private static func propertyName(_ source: String) -> String? {
        source.split(separator: ".").dropFirst().first.map(String.init)
    }
}
