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
    /// The model's minimum: a number, or for strings and data a length.
    public let minimum: Double?
    /// The model's maximum: a number, or for strings and data a length.
    public let maximum: Double?
    /// A regular expression a string value must match in full.
    public let pattern: String?
    /// For an attribute whose Swift type is the program's own (`RawRepresentable`, or a
    /// transformable's `Codable` type): how its values convert to what `type` stores.
    public let conversion: ValueConversion?
    /// The name an earlier version of the model gave the attribute (Xcode's "Renaming ID"):
    /// the name a Core Data store written by that version knows its column by.
    public let renamingIdentifier: String?

    public init(
        name: String, column: String, type: ValueType, isOptional: Bool, hasDefault: Bool, minimum: Double? = nil,
        maximum: Double? = nil, pattern: String? = nil, conversion: ValueConversion? = nil,
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.column = column
        self.type = type
        self.isOptional = isOptional
        self.hasDefault = hasDefault
        self.minimum = minimum
        self.maximum = maximum
        self.pattern = pattern
        self.conversion = conversion
        self.renamingIdentifier = renamingIdentifier
    }

    var hasRule: Bool { minimum != nil || maximum != nil || pattern != nil }
}

/// Properties of an entity whose values no two of its objects share: attribute slots, and to-one
/// relationships (by index; each a foreign key of the entity's table) whose destinations are
/// compared by identity. An array literal of slots is a constraint of attributes only.
public struct UniquenessConstraint: Sendable, Hashable, ExpressibleByArrayLiteral {
    public var attributes: [Int]
    public var relationships: [Int]

    public init(attributes: [Int], relationships: [Int] = []) {
        self.attributes = attributes
        self.relationships = relationships
    }

    public init(arrayLiteral slots: Int...) { self.init(attributes: slots) }
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
    /// Attributes in slot order: inherited ones first.
    public let attributes: [AttributeDescription]
    /// Relationships in index order: inherited ones first.
    public let relationships: [RelationshipDescription]
    /// The data columns of the table (every column after `_pk`, `_entity`, `_version`), in the
    /// order a fetch selects them; generated `read(from:startingAt:)` reads by these positions.
    public let columns: [String]
    /// What must be unique together: attribute values, and the objects of to-one relationships.
    public let uniquenessConstraints: [UniquenessConstraint]
    /// The class of this entity's objects.
    public let objectType: ManagedObject.Type?
    /// Transient attributes (inherited ones too), by name, with the value a new object starts
    /// with (`nil` for none): kept in memory only, read and set by key like stored ones.
    public let transients: [String: (any Sendable)?]
    /// Whether the entity is abstract: only its sub-entities have objects.
    public let isAbstract: Bool
    /// Whether the class reports changes to the Observation framework (generated with
    /// `observable`): the runtime then tells objects whose values or relationships it changes
    /// outside their setters (`modelGenValuesDidChange`, `modelGenRelationshipDidChange`).
    public let isObserved: Bool
    /// The model's renaming identifier for the entity (`elementID`): the name an earlier version
    /// gave it, by which a store that version wrote knows it.
    public let renamingIdentifier: String?

    let selectColumnsSQL: String
    /// Whether the entity's class conforms to `ObjectLifecycle` (its hooks are called).
    let hasLifecycle: Bool
    /// The SELECT of one row of this entity's columns by `_pk` (`refresh`, objects by identifier).
    let selectRowSQL: String
    /// The same columns with `NULL` for `_entity`, when a fetch's rows can only be of this entity
    /// (it has no sub-entities; else nil): one column fewer for SQLite to decode per row.
    let selectColumnsOwnRowsSQL: String?
    /// The INSERT of a new row: `_entity` is this entity's number (schema, not a value), `_pk` is
    /// left to SQLite, which numbers the row one past the table's largest as `assignRows` does.
    let insertSQL: String
    let deleteSQL: String
    /// `insertSQL` with `_pk` given as the first parameter.
    var insertWithKeySQL: String {
        insertSQL.replacing("(\"_entity\"", with: "(\"_pk\", \"_entity\"", maxReplacements: 1)
            .replacing("VALUES (", with: "VALUES (?, ", maxReplacements: 1)
    }
    let fetchAllSQL: String
    /// Slots and names of required attributes without a default, checked on insert.
    let requiredWithoutDefault: [(Int, String)]
    /// Slots of required attributes with a `conversion`: their Swift type may be optional (no value
    /// of the program's type stands for "unset"), so a save checks they are not `nil`.
    let requiredConverted: [Int]
    /// Whether an attribute has a `conversion`: reading a row can then fail (`Statement.conversionFailure`).
    let hasConversions: Bool
    /// Slots of attributes with bounds or a pattern, checked on save.
    let ruledAttributes: [Int]
    /// For each relationship, the position of its foreign-key column in `columns` (owning to-ones).
    /// `FROM "table" WHERE "_entity" IN (…)`: the rows of this entity and its sub-entities.
    let fetchedRowsSQL: String

    /// `fetchedRowsSQL`, narrowed by `condition` (a WHERE fragment; `nil` or the dialect's true
    /// condition for none).
    func fetchedRowsSQL(where condition: String?, _ dialect: StoreDialect) -> String {
        guard let condition, condition != dialect.trueCondition else { return fetchedRowsSQL }
        return fetchedRowsSQL + " AND (\(condition))"
    }

    let foreignKeyPositions: [Int?]
    let hasForeignKeys: Bool
    /// The relationship and column position of the one foreign key, where the table holds
    /// exactly one: a fetched row's key then waits in the object (`heldKey`), not in a links
    /// array made for it.
    let singleForeignKey: (relationship: Int, position: Int)?
    /// Bits of the relationships stored as foreign keys of this table.
    let foreignKeyMask: UInt64
    /// Whether a relationship has the Deny rule (checked when an object is deleted).
    let hasDenyRule: Bool
    /// Whether a `category` entity is in the class's lineage (the class conforms to
    /// `GeneratedEntity`): some values live in the runtime's storage and generated classes above
    /// or below it bind their own, so a save binds the attributes slot by slot.
    let bindsBySlot: Bool
    private let attributeColumns: [String]
    private let slotsByName: [String: Int]
    private let relationshipsByName: [String: Int]

    public init(
        name: String, table: String, entityID: Int32, fetchedEntityIDs: [Int32]? = nil,
        attributes: [AttributeDescription],
        relationships: [RelationshipDescription] = [], columns: [String]? = nil,
        uniquenessConstraints: [UniquenessConstraint] = [],
        objectType: ManagedObject.Type? = nil, transients: [String: (any Sendable)?] = [:], isAbstract: Bool = false,
        isObserved: Bool = false, renamingIdentifier: String? = nil
    ) {
        self.isObserved = isObserved
        self.renamingIdentifier = renamingIdentifier
        self.transients = transients
        self.isAbstract = isAbstract
        self.name = name
        self.table = table
        self.entityID = entityID
        self.fetchedEntityIDs = fetchedEntityIDs ?? [entityID]
        self.attributes = attributes
        self.relationships = relationships
        let columns = columns ?? (attributes.map(\.column) + relationships.compactMap(\.foreignKeyColumn))
        self.columns = columns
        self.uniquenessConstraints = uniquenessConstraints
        self.objectType = objectType
        let quotedTable = Self.quoted(table)
        selectColumnsSQL = (["_pk", "_entity", "_version"] + columns).map(Self.quoted).joined(separator: ", ")
        selectRowSQL = "SELECT \(selectColumnsSQL) FROM \(quotedTable) WHERE \"_pk\" = ?"
        selectColumnsOwnRowsSQL =
            self.fetchedEntityIDs == [entityID]
            ? (["\"_pk\"", "NULL", "\"_version\""] + columns.map(Self.quoted)).joined(separator: ", ") : nil
        let foreignKeys = relationships.compactMap(\.foreignKeyColumn)
        attributeColumns = attributes.map { Self.quoted($0.column) }
        let written = attributeColumns + foreignKeys.map(Self.quoted)
        insertSQL =
            "INSERT INTO \(quotedTable) (\"_entity\"" + written.map { ", " + $0 }.joined() + ") VALUES (\(entityID)"
            + String(repeating: ", ?", count: written.count) + ")"
        requiredWithoutDefault = attributes.enumerated().compactMap { slot, attribute in
            !attribute.isOptional && !attribute.hasDefault ? (slot, attribute.name) : nil
        }
        requiredConverted = attributes.indices.filter { !attributes[$0].isOptional && attributes[$0].conversion != nil }
        hasConversions = attributes.contains { $0.conversion != nil }
        ruledAttributes = attributes.indices.filter { attributes[$0].hasRule }
        foreignKeyPositions = relationships.map { relationship in
            relationship.foreignKeyColumn.flatMap { columns.firstIndex(of: $0) }
        }
        hasForeignKeys = !foreignKeys.isEmpty
        let held = foreignKeyPositions.enumerated().compactMap { index, position in position.map { (index, $0) } }
        singleForeignKey = held.count == 1 ? (held[0].0, held[0].1) : nil
        hasDenyRule = relationships.contains { $0.deletionRule == .deny }
        bindsBySlot = objectType.map { $0 is any GeneratedEntity.Type } ?? false
        hasLifecycle = objectType.map { $0 is any ObjectLifecycle.Type } ?? false
        foreignKeyMask = relationships.indices.reduce(0) { mask, index in
            relationships[index].foreignKeyColumn == nil ? mask : mask | Self.bit(index)
        }
        fetchedRowsSQL =
            "FROM \(quotedTable) WHERE \"_entity\" IN ("
            + self.fetchedEntityIDs.map(String.init).joined(separator: ", ") + ")"
        fetchAllSQL = "SELECT \(selectColumnsSQL) \(fetchedRowsSQL) ORDER BY \"_pk\""
        slotsByName = Dictionary(attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        relationshipsByName = Dictionary(
            relationships.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        deleteSQL = "DELETE FROM \(quotedTable) WHERE \"_pk\" = ?"
    }

    /// The slot of the attribute called `name`.
    public func slot(of name: String) -> Int? { slotsByName[name] }

    /// The index of the relationship called `name`.
    public func relationshipIndex(of name: String) -> Int? { relationshipsByName[name] }

    /// Whether an entity with `entityID` is this entity or one of its sub-entities.
    func includes(_ entityID: Int32) -> Bool { fetchedEntityIDs.contains(entityID) }

    /// The UPDATE of the attributes whose bits are set in `mask` and the foreign keys whose bits
    /// are set in `relationshipMask` (bit 63 stands for every index from 63 on), checking
    /// `_version` (optimistic locking); parameters: the values in slot order, the keys in
    /// relationship order, then `_pk`, then the expected `_version`.
    func updateSQL(mask: UInt64, relationshipMask: UInt64) -> String {
        var sql = "UPDATE \(Self.quoted(table)) SET \"_version\" = \"_version\" + 1"
        for (slot, column) in attributeColumns.enumerated() where mask & Self.bit(slot) != 0 {
            sql += ", \(column) = ?"
        }
        for (index, relationship) in relationships.enumerated() where relationshipMask & Self.bit(index) != 0 {
            if let column = relationship.foreignKeyColumn { sql += ", \(Self.quoted(column)) = ?" }
        }
        return sql + " WHERE \"_pk\" = ? AND \"_version\" = ?"
    }

    @inline(__always)
    static func bit(_ index: Int) -> UInt64 { index < 63 ? 1 << UInt64(index) : 1 << 63 }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }
}
