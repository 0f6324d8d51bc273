/// One step of an oracle case, concrete (ids, values, predicates spelled out) so that a failing
/// case can be replayed with steps left out while it is shrunk.
enum OracleOperation: CustomStringConvertible {
    case insert(id: Int, entity: Int, values: [String: OracleValue])
    case set(id: Int, attribute: String, value: OracleValue?)
    case setToOne(id: Int, relationship: OracleModel.RelationshipRef, target: Int?)
    case setToMany(id: Int, relationship: OracleModel.RelationshipRef, targets: [Int])
    case delete(id: Int)
    case save
    case rollback
    /// Closes the store and opens it again; every stored value and link is compared.
    case reopen
    /// Links `id` to the instance of saved `target` in a second context: must be refused.
    case crossLink(id: Int, relationship: OracleModel.RelationshipRef, target: Int)
    /// Reads every attribute and relationship of `id` in the working context.
    case inspect(id: Int)
    case query(OracleQuery)

    var description: String {
        switch self {
        case .insert(let id, let entity, let values):
            "insert #\(id) E\(entity) "
                + values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        case .set(let id, let attribute, let value):
            "set #\(id).\(attribute) = \(value.map(String.init(describing:)) ?? "nil")"
        case .setToOne(let id, let relationship, let target):
            "set #\(id).\(relationship.name) = \(target.map { "#\($0)" } ?? "nil")"
        case .setToMany(let id, let relationship, let targets):
            "set #\(id).\(relationship.name) = \(targets.map { "#\($0)" })"
        case .delete(let id): "delete #\(id)"
        case .save: "save"
        case .rollback: "rollback"
        case .reopen: "reopen"
        case .crossLink(let id, let relationship, let target):
            "link #\(id).\(relationship.name) to #\(target) of another context"
        case .inspect(let id): "inspect #\(id)"
        case .query(let query): "query \(query)"
        }
    }
}

/// A fetch and count of one entity, checked against brute force.
struct OracleQuery: CustomStringConvertible {
    var entity: Int
    var predicate: OraclePredicate?
    /// Attribute name, ascending, case-insensitive.
    var sort: [(String, Bool, Bool)]
    var limit: Int?
    var offset: Int
    /// Objects in the predicate come from a second context (the same rows).
    var argumentsFromOtherContext: Bool
    /// Also run in a new context (the saved state, through SQL alone).
    var alsoFresh: Bool

    var description: String {
        var text = "E\(entity)"
        if let predicate { text += " where \(predicate.debugText)" }
        if !sort.isEmpty {
            text +=
                " sorted by " + sort.map { "\($0.0)\($0.1 ? "↑" : "↓")\($0.2 ? "[c]" : "")" }.joined(separator: ", ")
        }
        if let limit { text += " limit \(limit)" }
        if offset > 0 { text += " offset \(offset)" }
        if argumentsFromOtherContext { text += " (objects of another context)" }
        return text
    }
}

extension OraclePredicate {
    /// The format string with `%@` arguments written in, for reports.
    var debugText: String {
        let (format, arguments) = self.format(OracleModel(entities: []), object: { "#\($0)" })
        var text = ""
        var remaining = arguments[...]
        var rest = Substring(format)
        while let range = rest.range(of: "%@") {
            text += rest[..<range.lowerBound]
            text += remaining.isEmpty ? "%@" : "\(remaining.removeFirst().map { "\($0)" } ?? "nil")"
            rest = rest[range.upperBound...]
        }
        return text + rest
    }
}
