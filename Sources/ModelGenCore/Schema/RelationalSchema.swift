/// The relational form of a model: tables, columns, keys, checks and indexes, independent of
/// any SQL dialect. `SchemaLowering` builds it; `SQLEmitter` renders it; migrations diff two of them.
///
/// Everything here is plain data (Codable, Equatable) and deterministic: tables are in
/// foreign-key order, columns sorted by name after the bookkeeping columns, indexes by name.
public struct RelationalSchema: Codable, Equatable, Sendable {
    /// The layout strategy that produced it (`relational`).
    public var layout: String
    public var modelName: String
    public var versionName: String?
    public var tables: [Table]
    public var indexes: [Index]
    /// Which table holds each entity and the `_entity` value of its rows.
    public var entities: [EntityMapping]

    public func table(named name: String) -> Table? { tables.first { $0.name == name } }
}

public struct EntityMapping: Codable, Equatable, Sendable {
    public var entity: String
    public var table: String
    /// The number stored in `_entity`, as the layout assigns it (`StandardLayout.EntityCodes`).
    public var entityID: Int
    public var isAbstract: Bool
}

public struct Table: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// Holds the rows of a root entity and all its sub-entities.
        case entity
        /// Links the two ends of a many-to-many (or inverse-less to-many) relationship.
        case join
        /// `_modelgen_metadata`.
        case metadata
    }

    public var name: String
    public var kind: Kind
    public var columns: [Column]
    public var primaryKey: [String]
    public var foreignKeys: [ForeignKey]
    public var checks: [Check]

    public func column(named name: String) -> Column? { columns.first { $0.name == name } }
}

/// A logical column type, rendered per dialect.
public enum ColumnType: String, Codable, Equatable, Sendable {
    case integer16, integer32, integer64
    case decimal, double, float
    case text, boolean, date, blob, uuid, uri
    /// A row id (`_pk`, foreign keys, positions).
    case key
}

/// A constant: a default value or a bound.
public enum SQLValue: Codable, Equatable, Sendable {
    case integer(Int64)
    case real(Double)
    /// Decimal text, kept exact.
    case decimal(String)
    case text(String)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    /// Canonical upper-case UUID text.
    case uuid(String)
}

public struct Column: Codable, Equatable, Sendable {
    /// What a column stores.
    public enum Role: String, Codable, Sendable {
        case primaryKey, entity, version, attribute, relationship, position, join, metadata
        /// The `Z_ENT` of a to-one's destination row (Core Data's layout, where the destination
        /// has sub-entities).
        case relationshipEntity
    }

    public var name: String
    public var type: ColumnType
    public var isNullable: Bool
    public var defaultValue: SQLValue?
    public var role: Role
    /// `Entity.property` (or `Entity.property.member` for composites) the column stores: the
    /// recorded name that migrations match across versions.
    public var source: String?
    /// The same as a typed position in the model this schema was lowered from, for the
    /// generator. Neither encoded nor compared: a recorded schema, or another version's, has none.
    public var origin: ColumnOrigin? = nil

    enum CodingKeys: String, CodingKey {
        case name, type, isNullable, defaultValue, role, source
    }

    public static func == (lhs: Column, rhs: Column) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.isNullable == rhs.isNullable
            && lhs.defaultValue == rhs.defaultValue && lhs.role == rhs.role && lhs.source == rhs.source
    }
}

/// Which property of a model a column stores, by index (`ObjectModel.entities`, and the entity's
/// `attributes` or `relationships`): what Lower tells the generator, so that nothing joins the
/// schema to the model by comparing names.
public enum ColumnOrigin: Hashable, Sendable {
    /// An attribute, or `member` of a composite attribute.
    case attribute(entity: Int, attribute: Int, member: Int?)
    /// The key column of a to-one relationship.
    case toOne(entity: Int, relationship: Int)
    /// The position column of an ordered to-many relationship (on the destination's table, or in
    /// the join table).
    case position(entity: Int, relationship: Int)
    /// The join table's column holding the keys of the relationship's own entity.
    case joinSource(entity: Int, relationship: Int)
    /// The join table's column holding the keys of the relationship's destination.
    case joinDestination(entity: Int, relationship: Int)
    /// The entity number of a to-one's destination row (Core Data's `Z<n>_NAME`).
    case toOneEntity(entity: Int, relationship: Int)
    /// The destination's column holding the key of the owner of a to-many without an inverse
    /// (Core Data's layout).
    case owner(entity: Int, relationship: Int)
}

public struct ForeignKey: Codable, Equatable, Sendable {
    public enum Action: String, Codable, Sendable {
        case cascade = "CASCADE"
        case setNull = "SET NULL"
        case restrict = "RESTRICT"
        case noAction = "NO ACTION"
    }

    public var columns: [String]
    public var referencedTable: String
    public var referencedColumns: [String]
    public var onDelete: Action
    /// Checked at commit, so a transaction may insert related rows in any order.
    public var isDeferred: Bool
}

/// A CHECK constraint, kept structured so that each dialect renders it its own way.
public struct Check: Codable, Equatable, Sendable {
    public enum Condition: Codable, Equatable, Sendable {
        /// The column's value is one of `values` (`_entity`, booleans on SQLite).
        case oneOf(column: String, values: [Int64])
        /// A number within bounds (either may be absent).
        case range(column: String, minimum: SQLValue?, maximum: SQLValue?)
        /// A string's length (or binary data's size) within bounds.
        case length(column: String, minimum: Int64?, maximum: Int64?)
        /// Fits the integer type (SQLite stores any integer in INTEGER).
        case integerWidth(column: String, type: ColumnType)
        /// Not NULL in rows whose `_entity` is one of `entityIDs` (required sub-entity attributes).
        case requiredFor(column: String, entityIDs: [Int64])
        /// Matches a regular expression in full (rendered on PostgreSQL only).
        case matches(column: String, pattern: String)
        /// 0 or 1 (booleans on SQLite, which has no boolean type).
        case isBoolean(column: String)
        /// A blob of exactly `bytes` bytes (UUIDs on SQLite).
        case byteCount(column: String, bytes: Int64)
    }

    public var name: String
    public var condition: Condition
}

public struct Index: Codable, Equatable, Sendable {
    public struct Part: Codable, Equatable, Sendable {
        public var column: String
        public var isDescending: Bool
        /// A collation written out with the direction (`COLLATE BINARY ASC`), as Core Data
        /// writes its fetch indexes; nil: neither is written unless descending.
        public var collation: String? = nil
    }

    public var name: String
    public var table: String
    public var parts: [Part]
    public var isUnique: Bool
    /// Only rows whose `_entity` is one of these (a sub-entity's uniqueness constraint).
    public var entityIDs: [Int64]?
}
