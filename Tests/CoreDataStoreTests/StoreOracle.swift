import CSQLite
import Foundation
import ModelGenRuntime

/// An independent reader of a Core Data store: the SQLite C API and STORE-LAYOUT.md's rules
/// only (R3 numbers, `Z<ROOT>` tables, `Z<NAME>` columns, R6–R9 links, §4 encodings), written
/// apart from the runtime's binding, as the oracle its reads are compared with.
final class StoreOracle {
    enum Raw: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var handle: OpaquePointer?
    let model: PersistentStore.Model
    /// R3: Core Data's number of each entity (by the runtime's entity ID).
    private(set) var numbers: [Int32: Int] = [:]
    private(set) var roots: [Int32: EntityDescription] = [:]
    private(set) var columns: [String: [String]] = [:]

    /// Declared type of each column, by table.
    private(set) var declared: [String: [String: String]] = [:]

    /// - Parameters:
    ///   - path: The store file.
    ///   - model: The generated code whose entities are read.
    ///   - byStoreNames: Number the model's entities as the store's `Z_PRIMARYKEY` names them (a
    ///     store of another model version), not by R3 from the model alone; entities the store
    ///     does not name get no number (and no rows).
    /// - Throws: `Failure` when the file cannot be opened or read.
    init(path: String, model: PersistentStore.Model, byStoreNames: Bool = false) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure(description: "cannot open \(path)")
        }
        self.model = model
        number()
        if byStoreNames {
            var named: [String: Int] = [:]
            for row in try rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
                if case .integer(let number) = row[0], case .text(let name) = row[1] { named[name] = Int(number) }
            }
            numbers = [:]
            let names = Set(model.entities.map(\.name))
            for entity in model.entities {
                if let number = named[entity.name] {
                    numbers[entity.entityID] = number
                } else if let old = entity.renamingIdentifier, !names.contains(old), let number = named[old] {
                    // A renamed entity: the store knows it, and names its table, by the old name.
                    numbers[entity.entityID] = number
                    storeNames[entity.entityID] = old
                }
            }
        }
        for row in try rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard case .text(let table) = row[0] else { continue }
            for column in try rows("SELECT name, type FROM pragma_table_info('\(table)')") {
                guard case .text(let name) = column[0] else { continue }
                columns[table, default: []].append(name)
                if case .text(let type) = column[1] { declared[table, default: [:]][name] = type.uppercased() }
            }
        }
    }

    /// The attributes of `entity` whose column the store has, declared as R5 declares their type.
    func sharedAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        let table = table(of: entity)
        return entity.attributes.filter { attribute in
            let column = "Z" + attribute.name.uppercased()
            guard columns[table]?.contains(column) == true else { return false }
            let expected: String
            switch attribute.type {
            case .int16, .int32, .int64, .bool: expected = "INTEGER"
            case .double, .float: expected = "FLOAT"
            case .date: expected = "TIMESTAMP"
            case .decimal: expected = "DECIMAL"
            case .string, .url: expected = "VARCHAR"
            case .data, .uuid: expected = "BLOB"
            }
            return attribute.conversion != nil || declared[table]?[column] == expected
        }
    }

    deinit { sqlite3_close(handle) }

    /// R3: pre-order over the hierarchies, names compared case-insensitively.
    private func number() {
        let entities = model.entities
        func parent(of entity: EntityDescription) -> EntityDescription? {
            entities.filter { $0.entityID != entity.entityID && $0.fetchedEntityIDs.contains(entity.entityID) }
                .min { $0.fetchedEntityIDs.count < $1.fetchedEntityIDs.count }
        }
        func byName(_ list: [EntityDescription]) -> [EntityDescription] {
            list.sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
        }
        var next = 1
        func visit(_ entity: EntityDescription, root: EntityDescription) {
            numbers[entity.entityID] = next
            roots[entity.entityID] = root
            next += 1
            for child in byName(entities.filter { parent(of: $0)?.entityID == entity.entityID }) {
                visit(child, root: root)
            }
        }
        for root in byName(entities.filter { parent(of: $0) == nil }) { visit(root, root: root) }
    }

    /// Store names of renamed entities (`byStoreNames`).
    private var storeNames: [Int32: String] = [:]

    func table(of entity: EntityDescription) -> String {
        let root = roots[entity.entityID]!
        return "Z" + (storeNames[root.entityID] ?? root.name).uppercased()
    }

    func entity(_ id: Int32) -> EntityDescription? { model.entities.first { $0.entityID == id } }

    func rows(_ sql: String, _ parameters: [Int64] = []) throws -> [[Raw]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))): \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in parameters.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), value) }
        var result: [[Raw]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                    case SQLITE_TEXT: .text(String(cString: sqlite3_column_text(statement, column)))
                    case SQLITE_BLOB:
                        .blob(
                            Array(
                                UnsafeRawBufferPointer(
                                    start: sqlite3_column_blob(statement, column),
                                    count: Int(sqlite3_column_bytes(statement, column)))))
                    default: .null
                    }
                })
        }
        return result
    }

    /// The store's column of `table` whose name matches `pattern` in full.
    func column(_ table: String, _ pattern: String) -> String? {
        columns[table]?.first { $0.range(of: "^\(pattern)$", options: .regularExpression) != nil }
    }

    /// Rows of exactly `entity` (`Z_ENT` = its number): key → attribute name → canonical value.
    func values(of entity: EntityDescription) throws -> [Int64: [String: String]] {
        let table = table(of: entity)
        let attributes = sharedAttributes(of: entity)
        let selected = (["Z_PK"] + attributes.map { "Z" + $0.name.uppercased() }).joined(separator: ", ")
        var result: [Int64: [String: String]] = [:]
        guard let number = numbers[entity.entityID], columns[table] != nil else { return [:] }
        for row in try rows("SELECT \(selected) FROM \(table) WHERE Z_ENT = \(number)") {
            guard case .integer(let key) = row[0] else { continue }
            var values: [String: String] = [:]
            for (attribute, raw) in zip(attributes, row.dropFirst()) {
                values[attribute.name] = Self.canonical(raw, attribute.type)
            }
            result[key] = values
        }
        return result
    }

    /// §4: a stored value read as the attribute's type, as canonical text.
    static func canonical(_ raw: Raw, _ type: ValueType) -> String {
        switch (raw, type) {
        case (.null, _): return "nil"
        case (.integer(let value), .int16), (.integer(let value), .int32), (.integer(let value), .int64):
            return "\(value)"
        case (.integer(let value), .bool): return value != 0 ? "true" : "false"
        case (.integer(let value), .double), (.integer(let value), .date): return "\(Double(value))"
        case (.real(let value), .double), (.real(let value), .date): return "\(value)"
        case (.integer(let value), .float): return "\(Float(Double(value)))"
        case (.real(let value), .float): return "\(Float(value))"
        case (.integer(let value), .decimal): return "\(Decimal(value))"
        case (.real(let value), .decimal): return "\(Decimal(string: "\(value)") ?? .nan)"
        case (.text(let value), .decimal): return "\(Decimal(string: value) ?? .nan)"
        case (.text(let value), .string), (.text(let value), .url): return value
        case (.blob(let bytes), .data): return bytes.map { String(format: "%02x", $0) }.joined()
        case (.blob(let bytes), .uuid) where bytes.count == 16:
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            ).uuidString
        default: return "unexpected \(raw) for \(type)"
        }
    }

    /// A value the runtime returned, as the same canonical text.
    static func canonical(_ value: Any?) -> String {
        guard let value else { return "nil" }
        switch value {
        case let value as Int16: return "\(value)"
        case let value as Int32: return "\(value)"
        case let value as Int64: return "\(value)"
        case let value as Int: return "\(value)"
        case let value as Bool: return value ? "true" : "false"
        case let value as Double: return "\(value)"
        case let value as Float: return "\(value)"
        case let value as Decimal: return "\(value)"
        case let value as String: return value
        case let value as Date: return "\(value.timeIntervalSinceReferenceDate)"
        case let value as Data: return value.map { String(format: "%02x", $0) }.joined()
        case let value as UUID: return value.uuidString
        case let value as URL: return value.absoluteString
        default: return "unexpected \(value)"
        }
    }

    /// R5–R9: the keys a relationship of the row `key` of `entity` leads to, in order for an
    /// ordered one (else sorted); nil where the store keeps it nowhere the spec says.
    func links(of entity: EntityDescription, _ relationship: RelationshipDescription, key: Int64) throws -> [Int64]? {
        guard let destination = self.entity(relationship.destinationEntityID) else { return nil }
        let destinationNumbers = destination.fetchedEntityIDs.compactMap { numbers[$0] }.map(String.init)
            .joined(separator: ", ")
        let destinationTable = table(of: destination)
        // A destination the store does not have: nothing to link.
        if destinationNumbers.isEmpty || columns[destinationTable] == nil { return [] }
        let inverse = relationship.inverse.map { destination.relationships[$0] }
        let keys: [[Raw]]
        if !relationship.isToMany {
            guard let column = column(table(of: entity), "Z" + relationship.name.uppercased()) else { return nil }
            // A key whose row is not of the destination's hierarchy (or gone) links nothing.
            keys = try rows(
                "SELECT t.\(column) FROM \(table(of: entity)) AS t JOIN \(destinationTable) AS d ON d.Z_PK = t.\(column) "
                    + "AND d.Z_ENT IN (\(destinationNumbers)) WHERE t.Z_PK = ?", [key])
        } else if let inverse, !inverse.isToMany {
            let column = "Z" + inverse.name.uppercased()
            guard columns[destinationTable]?.contains(column) == true else { return nil }
            let order = relationship.isOrdered ? "Z_FOK_" + inverse.name.uppercased() + ", " : ""
            keys = try rows(
                "SELECT Z_PK FROM \(destinationTable) WHERE \(column) = ? AND Z_ENT IN (\(destinationNumbers)) ORDER BY \(order)Z_PK",
                [key])
        } else if let inverse {
            guard
                let (join, own, other) = columns.keys.sorted().lazy.compactMap({ table -> (String, String, String)? in
                    guard table.hasPrefix("Z_"),
                        let own = self.column(table, "Z_[0-9]+" + inverse.name.uppercased() + "[0-9]*"),
                        let other = self.column(table, "Z_[0-9]+" + relationship.name.uppercased() + "[0-9]*"),
                        own != other
                    else { return nil }
                    return (table, own, other)
                }).first
            else { return nil }
            let fok = "Z_FOK_" + other.dropFirst(2)
            let order = relationship.isOrdered && columns[join]?.contains(String(fok)) == true ? "j.\(fok), " : ""
            // Only rows of the destination's entities are its members.
            keys = try rows(
                "SELECT j.\(other) FROM \(join) AS j JOIN \(destinationTable) AS d ON d.Z_PK = j.\(other) "
                    + "AND d.Z_ENT IN (\(destinationNumbers)) WHERE j.\(own) = ? ORDER BY \(order)j.\(other)", [key])
        } else {
            guard let hidden = column(destinationTable, "Z[0-9]+" + relationship.name.uppercased()) else { return nil }
            keys = try rows(
                "SELECT Z_PK FROM \(destinationTable) WHERE \(hidden) = ? AND Z_ENT IN (\(destinationNumbers)) ORDER BY Z_PK",
                [key])
        }
        let result = keys.compactMap { row -> Int64? in if case .integer(let value) = row[0] { value } else { nil } }
        return relationship.isOrdered ? result : result.sorted()
    }
}
