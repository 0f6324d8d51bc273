import Foundation
import ModelGenRuntime

extension StoreOracle {
    /// The bookkeeping invariants of STORE-LAYOUT.md (§2, §4, §8.1 T2–T5) checked with plain SQL:
    /// `Z_MAX` at least the largest `Z_PK` of each root, `Z_OPT` set and at least 1, every to-one
    /// key resolving to a row of its destination's hierarchy with its `Z<n>_` column equal to
    /// that row's `Z_ENT` (NULL exactly when the key is), both sides of each one-to-one agreeing,
    /// ordered positions set and distinct per owner, and join rows resolving at both ends.
    func invariantViolations() throws -> [String] {
        var violations: [String] = []
        func count(_ sql: String) throws -> Int64 {
            if case .integer(let value)? = try rows(sql).first?.first { return value }
            return 0
        }
        for entity in model.entities where roots[entity.entityID]?.entityID == entity.entityID {
            let table = table(of: entity)
            let number = numbers[entity.entityID]!
            if try count(
                "SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT = \(number) AND Z_MAX < (SELECT coalesce(max(Z_PK), 0) FROM \(table))"
            ) > 0 {
                violations.append("\(table): Z_MAX below max(Z_PK)")
            }
            if try count("SELECT count(*) FROM \(table) WHERE Z_OPT IS NULL OR Z_OPT < 1") > 0 {
                violations.append("\(table): Z_OPT missing or below 1")
            }
        }
        for entity in model.entities {
            let table = table(of: entity)
            let own = "Z_ENT = \(numbers[entity.entityID]!)"
            for relationship in entity.relationships {
                guard let destination = self.entity(relationship.destinationEntityID) else { continue }
                let target = self.table(of: destination)
                let targetNumbers = destination.fetchedEntityIDs.compactMap { numbers[$0] }.map(String.init)
                    .joined(separator: ", ")
                let inverse = relationship.inverse.map { destination.relationships[$0] }
                let name = "\(entity.name).\(relationship.name)"
                if !relationship.isToMany {
                    let key = "Z" + relationship.name.uppercased()
                    guard columns[table]?.contains(key) == true else { continue }
                    if try count(
                        "SELECT count(*) FROM \(table) AS t WHERE \(own) AND t.\(key) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(target) AS d WHERE d.Z_PK = t.\(key) AND d.Z_ENT IN (\(targetNumbers)))"
                    ) > 0 {
                        violations.append("\(name): a key leads to no row of \(destination.name)")
                    }
                    if let companion = column(table, "Z[0-9]+_" + relationship.name.uppercased()),
                        try count(
                            "SELECT count(*) FROM \(table) AS t WHERE \(own) AND (t.\(companion) IS NOT (SELECT d.Z_ENT FROM \(target) AS d WHERE d.Z_PK = t.\(key)))"
                        ) > 0
                    {
                        violations.append("\(name): \(companion) is not the destination's Z_ENT")
                    }
                    if let inverse, !inverse.isToMany,
                        try count(
                            "SELECT count(*) FROM \(table) AS t WHERE \(own) AND t.\(key) IS NOT NULL AND (SELECT d.Z\(inverse.name.uppercased()) FROM \(target) AS d WHERE d.Z_PK = t.\(key)) IS NOT t.Z_PK"
                        ) > 0
                    {
                        violations.append("\(name): the other side of the one-to-one disagrees")
                    }
                } else if let inverse, !inverse.isToMany, relationship.isOrdered {
                    let key = "Z" + inverse.name.uppercased()
                    let position = "Z_FOK_" + inverse.name.uppercased()
                    if try count(
                        "SELECT count(*) FROM (SELECT \(key) FROM \(target) WHERE \(key) IS NOT NULL GROUP BY \(key), \(position) HAVING count(*) > 1 OR \(position) IS NULL)"
                    ) > 0 {
                        violations.append("\(name): positions missing or repeated")
                    }
                } else if let inverse, inverse.isToMany {
                    guard
                        let join = columns.keys.sorted().first(where: { table in
                            table.hasPrefix("Z_")
                                && column(table, "Z_[0-9]+" + inverse.name.uppercased() + "[0-9]*") != nil
                                && column(table, "Z_[0-9]+" + relationship.name.uppercased() + "[0-9]*") != nil
                        }),
                        let mine = column(join, "Z_[0-9]+" + inverse.name.uppercased() + "[0-9]*"),
                        let theirs = column(join, "Z_[0-9]+" + relationship.name.uppercased() + "[0-9]*")
                    else {
                        violations.append("\(name): no join table")
                        continue
                    }
                    if try count(
                        "SELECT count(*) FROM \(join) AS j WHERE NOT EXISTS (SELECT 1 FROM \(table) AS s WHERE s.Z_PK = j.\(mine)) OR NOT EXISTS (SELECT 1 FROM \(target) AS d WHERE d.Z_PK = j.\(theirs))"
                    ) > 0 {
                        violations.append("\(name): a join row leads nowhere")
                    }
                }
            }
        }
        return violations
    }

    /// `PRAGMA integrity_check`.
    func integrity() throws -> String {
        if case .text(let text)? = try rows("PRAGMA integrity_check").first?.first { return text }
        return "no answer"
    }

    /// `Z_METADATA` as stored.
    func metadata() throws -> [[Raw]] { try rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA") }

    /// An integer of the first row of `sql`.
    func integer(_ sql: String, _ parameters: [Int64] = []) throws -> Int64? {
        if case .integer(let value)? = try rows(sql, parameters).first?.first { return value }
        return nil
    }
}
