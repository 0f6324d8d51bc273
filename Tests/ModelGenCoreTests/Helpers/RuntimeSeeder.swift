import Foundation
@_spi(Generated) import ModelGenRuntime
import Synchronization

@testable import ModelGenCore

/// Stores of any model, filled through ModelGenRuntime without generated code: the runtime's
/// entity descriptions are built from `SwiftGenerator.runtimeMetadata` (what generated code
/// would say), each entity gets a class of its own (`DynamicEntity<Tag>`: the runtime keeps an
/// entity's description per class), and values go in through `setValue(_:forKey:)` — so the rows
/// are what the runtime writes, validation included.
enum RuntimeSeeder {
    /// A value of a seeded attribute.
    enum Value: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
        ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
    {
        case integer(Int64)
        case real(Double)
        case text(String)
        case bool(Bool)
        case date(Double)
        case null
        init(stringLiteral value: String) { self = .text(value) }
        init(integerLiteral value: Int64) { self = .integer(value) }
        init(floatLiteral value: Double) { self = .real(value) }
        init(booleanLiteral value: Bool) { self = .bool(value) }
        init(nilLiteral: ()) { self = .null }
    }

    /// One object to insert: its entity, attribute values and the objects (by position in the
    /// seed) each relationship leads to.
    struct Object: Sendable {
        var entity: String
        var values: [String: Value]
        var links: [String: [Int]]

        init(_ entity: String, _ values: [String: Value] = [:], links: [String: [Int]] = [:]) {
            self.entity = entity
            self.values = values
            self.links = links
        }
    }

    /// Runtime descriptions of `model`'s entities; `patterns: false` leaves out regular
    /// expressions (generic seed values do not match arbitrary ones).
    /// `defaults` gives the value a new object starts with (entity and attribute name; `nil` for
    /// none), as generated code's `modelGenInitialValue(atSlot:)` does.
    static func runtimeModel(
        _ model: ObjectModel, _ schema: RelationalSchema, patterns: Bool = true,
        defaults: (String, String) -> Any? = { _, _ in nil }
    ) -> PersistentStore.Model {
        let metadata = SwiftGenerator.runtimeMetadata(model: model, schema: schema)
        let classes = Dictionary(uniqueKeysWithValues: metadata.map { ($0.name, Registry.newClass()) })
        var descriptions: [EntityDescription] = []
        for entity in metadata {
            let attributes = entity.attributes.map { attribute in
                AttributeDescription(
                    name: attribute.key, column: attribute.column, type: valueType(attribute.type),
                    isOptional: attribute.isOptional,
                    hasDefault: attribute.hasDefault, minimum: attribute.minimum, maximum: attribute.maximum,
                    pattern: patterns ? attribute.pattern : nil, renamingIdentifier: attribute.renamingIdentifier)
            }
            let relationships = entity.relationships.map { relationship in
                RelationshipDescription(
                    name: relationship.name, destinationEntityID: Int32(relationship.destinationEntityID),
                    destination: classes[relationship.destination],
                    inverse: relationship.inverse, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                    isOptional: relationship.isOptional, minCount: relationship.minCount,
                    maxCount: relationship.maxCount,
                    deletionRule: rule(relationship.deletionRule), storage: storage(relationship.storage))
            }
            let description = EntityDescription(
                name: entity.name, table: entity.table, entityID: Int32(entity.entityID),
                fetchedEntityIDs: entity.fetchedEntityIDs.map(Int32.init),
                attributes: attributes, relationships: relationships, columns: entity.columns,
                uniquenessConstraints: entity.uniquenessConstraints.map {
                    UniquenessConstraint(attributes: $0.attributes, relationships: $0.relationships)
                }, objectType: classes[entity.name], renamingIdentifier: entity.renamingIdentifier)
            let initial = Dictionary(
                uniqueKeysWithValues: attributes.enumerated().compactMap { slot, attribute in
                    defaults(entity.name, attribute.name).map { (slot, $0) }
                })
            Registry.register(description, initialValues: initial, for: classes[entity.name]!)
            descriptions.append(description)
        }
        return PersistentStore.Model(
            name: model.modelName ?? "Model", sqliteDDL: SQLEmitter(dialect: .sqlite).emit(schema),
            postgresDDL: SQLEmitter(dialect: .postgres).emit(schema), schemaHash: SchemaSnapshot.make(schema).hash,
            entities: descriptions)
    }

    /// Creates the store at `path` and saves `objects` in one save; the file is left in
    /// rollback-journal mode, so it is one file that can be copied.
    static func seed(_ objects: [Object], model: ObjectModel, schema: RelationalSchema, at path: String) throws {
        try seed(objects, model: model, schema: schema) { runtimeModel, fill in
            try save(path: path, model: runtimeModel, fill)
        }
    }

    /// Saves `objects` in one save into the store `open` makes of the runtime model (any backend).
    static func seed(
        _ objects: [Object], model: ObjectModel, schema: RelationalSchema,
        into open: (PersistentStore.Model) throws -> PersistentStore
    ) throws {
        try seed(objects, model: model, schema: schema) { runtimeModel, fill in
            let context = try open(runtimeModel).newContext()
            try fill(context)
            try context.save()
        }
    }

    private static func seed(
        _ objects: [Object], model: ObjectModel, schema: RelationalSchema,
        saving: (PersistentStore.Model, (ObjectContext) throws -> Void) throws -> Void
    ) throws {
        let runtimeModel = runtimeModel(model, schema)
        let entities = Dictionary(uniqueKeysWithValues: runtimeModel.entities.map { ($0.name, $0) })
        try saving(runtimeModel) { context in
            var made: [ManagedObject] = []
            for object in objects {
                guard let type = entities[object.entity]?.objectType else {
                    throw SeedError("no entity \(object.entity)")
                }
                made.append(context.insert(type))
            }
            for (object, seed) in zip(made, objects) {
                let entity = entities[seed.entity]!
                for (key, value) in seed.values.sorted(by: { $0.key < $1.key }) {
                    guard let slot = entity.slot(of: key) else { throw SeedError("no attribute \(seed.entity).\(key)") }
                    try object.setValue(runtimeValue(value, entity.attributes[slot].type), forKey: key)
                }
                for (key, targets) in seed.links.sorted(by: { $0.key < $1.key }) {
                    guard let index = entity.relationshipIndex(of: key) else {
                        throw SeedError("no relationship \(seed.entity).\(key)")
                    }
                    let destinations = targets.map { made[$0] }
                    try object.setValue(
                        entity.relationships[index].isToMany ? destinations : destinations.first, forKey: key)
                }
            }
        }
    }

    /// Creates the store at `path` and saves two objects of every concrete entity of `model`, with
    /// values each attribute's type and rules accept (distinct across objects where the rules allow) and every relationship
    /// leading to the object of the same number of its destination; regular expressions are not
    /// checked.
    static func seedEverything(model: ObjectModel, schema: RelationalSchema, at path: String, rows: Int = 2) throws {
        let runtimeModel = runtimeModel(model, schema, patterns: false)
        let concrete = runtimeModel.entities.filter { entity in
            model.entities.first { $0.name == entity.name }.map { !$0.isAbstract } ?? false
        }
        try save(path: path, model: runtimeModel) { context in
            var made: [Int32: [ManagedObject]] = [:]
            for entity in concrete {
                made[entity.entityID] = (0..<rows).map { _ in context.insert(entity.objectType!) }
            }
            // The objects a relationship may lead to: of its destination or any sub-entity, in a
            // fixed order.
            var candidates: [Int32: [ManagedObject]] = [:]
            for entity in runtimeModel.entities {
                candidates[entity.entityID] = concrete.filter { entity.fetchedEntityIDs.contains($0.entityID) }.flatMap
                { made[$0.entityID]! }
            }
            // Values are numbered across all objects: entities of one hierarchy share columns,
            // and uniqueness constraints.
            var number = 0
            for entity in concrete {
                for (row, object) in made[entity.entityID]!.enumerated() {
                    number += 1
                    for attribute in entity.attributes {
                        try object.setValue(genericValue(attribute, row: number), forKey: attribute.name)
                    }
                    for relationship in entity.relationships {
                        guard let candidates = candidates[relationship.destinationEntityID], !candidates.isEmpty else {
                            continue
                        }
                        let target = candidates[row % candidates.count]
                        if relationship.isToMany {
                            let count = max(1, relationship.minCount ?? 1)
                            let targets = (0..<min(count, candidates.count)).map {
                                candidates[(row + $0) % candidates.count]
                            }
                            try object.setValue(targets, forKey: relationship.name)
                        } else if target !== object || relationship.inverse == nil {
                            try object.setValue(target, forKey: relationship.name)
                        }
                    }
                }
            }
        }
    }

    private static func save(path: String, model: PersistentStore.Model, _ fill: (ObjectContext) throws -> Void) throws
    {
        do {
            let store = try PersistentStore(path: path, model: model)
            let context = store.newContext()
            try fill(context)
            try context.save()
        }
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA journal_mode = DELETE")
    }

    struct SeedError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - Values

    static func runtimeValue(_ value: Value, _ type: ValueType) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return type == .bool ? flag : flag ? 1 : 0
        case .text(let text):
            if type == .data { return Data(text.utf8) }
            if type == .url { return URL(string: text) }
            return text
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .integer(let number):
            switch type {
            case .int16: return Int16(number)
            case .int32: return Int32(number)
            case .double: return Double(number)
            case .float: return Float(number)
            case .decimal: return Decimal(number)
            case .bool: return number != 0
            case .string: return String(number)
            default: return number
            }
        case .real(let number):
            switch type {
            case .float: return Float(number)
            case .decimal: return Decimal(number)
            case .int16, .int32, .int64: return Int64(number)
            default: return number
            }
        }
    }

    /// A value `attribute` accepts, distinct for each `row` ≥ 1.
    static func genericValue(_ attribute: AttributeDescription, row: Int) -> Any {
        let number = Int64(row)
        switch attribute.type {
        case .int16, .int32, .int64:
            let low = attribute.minimum.map { Int64($0.rounded(.up)) } ?? 0
            let high = attribute.maximum.map { Int64($0.rounded(.down)) } ?? Int64(Int16.max)
            let value = min(high, low + number)
            return attribute.type == .int16
                ? Int16(clamping: value) as Any : attribute.type == .int32 ? Int32(clamping: value) as Any : value
        case .double, .float, .decimal:
            let value = min(attribute.maximum ?? 1e9, (attribute.minimum ?? 0) + Double(row) / 4)
            return attribute.type == .float
                ? Float(value) as Any : attribute.type == .decimal ? Decimal(value) as Any : value
        case .bool:
            return row % 2 == 0
        case .date:
            return Date(timeIntervalSinceReferenceDate: (attribute.minimum ?? 600_000_000) + Double(row))
        case .uuid:
            return UUID(uuidString: "00000000-0000-4000-8000-" + String(format: "%012d", row))!
        case .url:
            return URL(string: "https://example.com/\(row)")!
        case .string, .data:
            var text = "v\(row)"
            let shortest = Int(attribute.minimum ?? 0)
            if text.count < shortest { text += String(repeating: "x", count: shortest - text.count) }
            if let longest = attribute.maximum, longest >= 1, text.count > Int(longest) {
                text = String(text.suffix(Int(longest)))
            }
            return attribute.type == .data ? Data(text.utf8) as Any : text
        }
    }

    private static func valueType(_ name: String) -> ValueType {
        switch name {
        case "int16": .int16
        case "int32": .int32
        case "int64": .int64
        case "bool": .bool
        case "double": .double
        case "float": .float
        case "decimal": .decimal
        case "string": .string
        case "date": .date
        case "data": .data
        case "uuid": .uuid
        default: .url
        }
    }

    private static func rule(_ rule: ModelGenCore.DeletionRule) -> ModelGenRuntime.DeletionRule {
        switch rule {
        case .nullify: .nullify
        case .cascade: .cascade
        case .deny: .deny
        case .noAction: .noAction
        }
    }

    private static func storage(_ storage: RuntimeEntityMetadata.Storage) -> RelationshipDescription.Storage {
        switch storage {
        case .foreignKey(let column): .foreignKey(column: column)
        case .inverseForeignKey(let column, let position): .inverseForeignKey(column: column, position: position)
        case .joinTable(let table, let source, let destination, let position):
            .joinTable(table: table, source: source, destination: destination, position: position)
        }
    }
}

// MARK: - A class per entity

/// Type-level numbers in binary (`Bit1<Bit0<Bit1<End>>>` is 5): each number gives a distinct
/// class `DynamicEntity<Tag>`, made at run time, of logarithmic nesting.
protocol EntityTag {}
enum End: EntityTag {}
enum Bit0<Rest: EntityTag>: EntityTag {}
enum Bit1<Rest: EntityTag>: EntityTag {}

/// An entity class without generated code: its description comes from the registry, its values
/// live in the runtime's per-object storage (as for `category` entities).
final class DynamicEntity<Tag: EntityTag>: ManagedObject, GeneratedEntity {
    static var modelGenEntity: EntityDescription { Registry.description(of: self) }
    static func modelGenSlot(for keyPath: AnyKeyPath) -> Int? { nil }
    static func modelGenRelationshipIndex(for keyPath: AnyKeyPath) -> Int? { nil }
    static func modelGenInitialValue(atSlot slot: Int) -> Any? { Registry.initialValue(of: self, atSlot: slot) }
}

/// The description of each dynamic class. Classes are never reused, so tests running at once
/// with different models do not meet.
enum Registry {
    private static let state = Mutex<
        (
            next: Int, descriptions: [ObjectIdentifier: EntityDescription],
            initialValues: [ObjectIdentifier: [Int: InitialValue]]
        )
    >(
        (1, [:], [:]))

    static func newClass() -> ManagedObject.Type {
        let number = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        return entityClass(tag(number))
    }

    static func register(
        _ description: EntityDescription, initialValues: [Int: Any] = [:], for type: ManagedObject.Type
    ) {
        state.withLock {
            $0.descriptions[ObjectIdentifier(type)] = description
            $0.initialValues[ObjectIdentifier(type)] = initialValues.mapValues(InitialValue.init)
        }
    }

    static func initialValue(of type: ManagedObject.Type, atSlot slot: Int) -> Any? {
        state.withLock { $0.initialValues[ObjectIdentifier(type)]?[slot] }?.value
    }

    /// A default value (Foundation values and numbers, immutable once registered).
    private struct InitialValue: @unchecked Sendable {
        let value: Any
    }

    static func description(of type: ManagedObject.Type) -> EntityDescription {
        guard let description = state.withLock({ $0.descriptions[ObjectIdentifier(type)] }) else {
            preconditionFailure("\(type) has no registered entity")
        }
        return description
    }

    private static func tag(_ number: Int) -> any EntityTag.Type {
        guard number > 0 else { return End.self }
        let rest = tag(number >> 1)
        return number & 1 == 0 ? zero(rest) : one(rest)
    }

    private static func zero<Rest: EntityTag>(_: Rest.Type) -> any EntityTag.Type { Bit0<Rest>.self }
    private static func one<Rest: EntityTag>(_: Rest.Type) -> any EntityTag.Type { Bit1<Rest>.self }
    private static func entityClass<Tag: EntityTag>(_: Tag.Type) -> ManagedObject.Type { DynamicEntity<Tag>.self }
}

/// A fetch a dynamic entity class gives tests that hold it as a metatype: by format string (with
/// variables), prefetching relationships, up to a limit.
protocol DynamicFetching {
    static func fetch(
        _ context: ObjectContext, format: String?, variables: [String: Any?], prefetching: [String], limit: Int?
    ) throws -> [ManagedObject]
}

extension DynamicEntity: DynamicFetching {
    static func fetch(
        _ context: ObjectContext, format: String? = nil, variables: [String: Any?] = [:], prefetching: [String] = [],
        limit: Int? = nil
    ) throws -> [ManagedObject] {
        let predicate = try format.map {
            try ObjectPredicate<DynamicEntity>(format: $0, arguments: [], variables: variables)
        }
        var request = FetchRequest<DynamicEntity>(predicate: predicate, fetchLimit: limit)
        request.relationshipKeyPathsForPrefetching = prefetching
        return try context.fetch(request)
    }
}

extension DynamicFetching {
    static func fetch(_ context: ObjectContext, prefetching: [String]) throws -> [ManagedObject] {
        try fetch(context, format: nil, variables: [:], prefetching: prefetching, limit: nil)
    }
}
