/// The type of a stored value, as the runtime reads and binds it.
public enum ValueType: Sendable, Hashable {
    case int16, int32, int64, bool, double, float, decimal, string, date, data, uuid, url
}

/// One attribute of an entity, in storage-slot order, as generated code describes it.
public struct AttributeDescription: Sendable, Hashable {
    public let name: String
    public let column: String
    public let type: ValueType
    public let isOptional: Bool
    /// Whether the model gives a default, so a new object starts with a value.
    public let hasDefault: Bool

    public init(name: String, column: String, type: ValueType, isOptional: Bool, hasDefault: Bool) {
        self.name = name
        self.column = column
        self.type = type
        self.isOptional = isOptional
        self.hasDefault = hasDefault
    }
}

/// Static metadata of one entity: where its rows live and what they hold. Generated code builds
/// one per class; the SQL the runtime needs is prepared once here, not per object.
public final class EntityDescription: Sendable {
    public let name: String
    public let table: String
    /// The `_entity` number of this entity's rows.
    public let entityID: Int32
    /// This entity and its sub-entities (what a fetch of this entity returns).
    public let fetchedEntityIDs: [Int32]
    public let attributes: [AttributeDescription]

    let selectColumnsSQL: String
    let insertSQL: String
    let updateSQL: String
    let deleteSQL: String

    public init(name: String, table: String, entityID: Int32, fetchedEntityIDs: [Int32]? = nil, attributes: [AttributeDescription]) {
        self.name = name
        self.table = table
        self.entityID = entityID
        self.fetchedEntityIDs = fetchedEntityIDs ?? [entityID]
        self.attributes = attributes
        let quotedTable = Self.quoted(table)
        let columns = attributes.map { Self.quoted($0.column) }
        selectColumnsSQL = (["\"_pk\"", "\"_entity\"", "\"_version\""] + columns).joined(separator: ", ")
        insertSQL =
            "INSERT INTO \(quotedTable) (\"_entity\"" + columns.map { ", " + $0 }.joined() + ") VALUES (?"
            + String(repeating: ", ?", count: columns.count) + ")"
        updateSQL =
            "UPDATE \(quotedTable) SET \"_version\" = \"_version\" + 1"
            + columns.map { ", \($0) = ?" }.joined() + " WHERE \"_pk\" = ? AND \"_version\" = ?"
        deleteSQL = "DELETE FROM \(quotedTable) WHERE \"_pk\" = ?"
    }

    /// The slot of the attribute called `name`.
    public func slot(of name: String) -> Int? { attributes.firstIndex { $0.name == name } }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }
}
