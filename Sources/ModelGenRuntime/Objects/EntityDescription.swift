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
    let deleteSQL: String
    let fetchAllSQL: String
    /// Slots and names of required attributes without a default, checked on insert.
    let requiredWithoutDefault: [(Int, String)]
    private let quotedColumns: [String]
    private let slotsByName: [String: Int]

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
        quotedColumns = columns
        requiredWithoutDefault = attributes.enumerated().compactMap { slot, attribute in
            !attribute.isOptional && !attribute.hasDefault ? (slot, attribute.name) : nil
        }
        fetchAllSQL =
            "SELECT \(selectColumnsSQL) FROM \(quotedTable) WHERE \"_entity\" IN ("
            + self.fetchedEntityIDs.map(String.init).joined(separator: ", ") + ") ORDER BY \"_pk\""
        slotsByName = Dictionary(attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        deleteSQL = "DELETE FROM \(quotedTable) WHERE \"_pk\" = ?"
    }

    /// The slot of the attribute called `name`.
    public func slot(of name: String) -> Int? { slotsByName[name] }

    /// The UPDATE of the attributes whose bits are set in `mask` (bit 63 stands for every slot from
    /// 63 on), checking `_version` (optimistic locking); parameters: the values in slot order,
    /// then `_pk`, then the expected `_version`.
    func updateSQL(mask: UInt64) -> String {
        var sql = "UPDATE \(Self.quoted(table)) SET \"_version\" = \"_version\" + 1"
        for (slot, column) in quotedColumns.enumerated() where mask & (slot < 63 ? 1 << UInt64(slot) : 1 << 63) != 0 {
            sql += ", \(column) = ?"
        }
        return sql + " WHERE \"_pk\" = ? AND \"_version\" = ?"
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }
}
