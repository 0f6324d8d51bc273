/// The model that created a Core Data store, as the store's `Z_MODELCACHE` keeps it (raw
/// DEFLATE of an `NSKeyedArchiver` archive of the `NSManagedObjectModel`): entities with their
/// parents, own persistent properties, fetch indexes and uniqueness constraints. It says which
/// version of a model wrote a store where the schema cannot (a `versionHashModifier` change), and
/// which indexes Core Data made (they follow this compiled model, not the XML).
public struct CoreDataCompiledModel: Sendable, Hashable {
    public struct Attribute: Sendable, Hashable {
        public var name: String
        /// `NSAttributeType`: 100 Integer 16 … 1800 Transformable.
        public var typeCode: Int
        public var isOptional: Bool
        public var isIndexed: Bool
        public var versionHashModifier: String?
    }

    public struct Relationship: Sendable, Hashable {
        public var name: String
        public var destination: String
        public var inverse: String?
        public var isToMany: Bool
        public var isOrdered: Bool
        public var isOptional: Bool
        public var versionHashModifier: String?
    }

    public struct FetchIndex: Sendable, Hashable {
        public var name: String
        /// Property names and whether each is ascending.
        public var elements: [Element]

        public struct Element: Sendable, Hashable {
            public var property: String
            public var isAscending: Bool
        }
    }

    public struct Entity: Sendable, Hashable {
        public var name: String
        public var parent: String?
        public var versionHashModifier: String?
        /// The entity's own persistent properties (inherited ones are the parent's), by name.
        public var attributes: [Attribute]
        public var relationships: [Relationship]
        public var fetchIndexes: [FetchIndex]
        public var uniquenessConstraints: [[String]]
    }

    /// By name.
    public var entities: [Entity]

    /// What Core Data stores and hashes of each entity, one line per feature, sorted (entities,
    /// parents, modifiers, own attributes and relationships); the generator writes the same lines
    /// from the XML (`ObjectModel.coreDataVersionFeatures` in ModelGenCore), so equal lines mean
    /// that model version made this one.
    public var versionFeatures: [String] {
        var lines: [String] = []
        for entity in entities {
            lines.append("entity \(entity.name) < \(entity.parent ?? "-") vhm \(entity.versionHashModifier ?? "-")")
            for attribute in entity.attributes {
                lines.append(
                    "attribute \(entity.name).\(attribute.name) type \(attribute.typeCode) optional \(attribute.isOptional) vhm \(attribute.versionHashModifier ?? "-")"
                )
            }
            for relationship in entity.relationships {
                lines.append(
                    "relationship \(entity.name).\(relationship.name) → \(relationship.destination) inverse \(relationship.inverse ?? "-") to-many \(relationship.isToMany) ordered \(relationship.isOrdered) optional \(relationship.isOptional) vhm \(relationship.versionHashModifier ?? "-")"
                )
            }
        }
        return lines.sorted()
    }

    /// The wrapping sum of `versionFeatures`' FNV-1a hashes (64 bits), as 16 hex digits: what
    /// generated code carries as `PersistentStore.Model.coreDataFingerprint` (the generator
    /// computes the same from the XML; the sum does not depend on the lines' order).
    public var versionFingerprint: String {
        var sum: UInt64 = 0
        for line in versionFeatures {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in line.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            sum = sum &+ hash
        }
        let text = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// Decodes the content of `Z_MODELCACHE.Z_CONTENT`.
    /// - Throws: `.conversion` when it is not a model archive this reader understands.
    public static func decode(cache: [UInt8]) throws -> CoreDataCompiledModel {
        do {
            let archive = try KeyedArchive(BinaryPropertyList(Inflate.inflate(cache)))
            return try ModelArchiveReader(archive: archive).model()
        } catch let failure as Inflate.Failure {
            throw DatabaseError(.conversion, "Z_MODELCACHE is not DEFLATE data: \(failure)")
        } catch let failure as BinaryPropertyList.Failure {
            throw DatabaseError(.conversion, "Z_MODELCACHE is not a property list: \(failure)")
        } catch {
            throw DatabaseError(.conversion, "Z_MODELCACHE is not a model archive: \(error)")
        }
    }
}

/// An `NSKeyedArchiver` archive: objects by UID, with the containers Foundation writes.
struct KeyedArchive {
    let list: BinaryPropertyList
    let objects: [Int]
    let root: Int

    init(_ list: BinaryPropertyList) throws(BinaryPropertyList.Failure) {
        self.list = list
        guard case .dictionary(let keys, let values) = try list.object(list.top) else {
            throw .init(description: "not a keyed archive")
        }
        var objects: [Int]?
        var root: Int?
        for (key, value) in zip(keys, values) {
            switch try list.object(key) {
            case .string("$objects"):
                if case .array(let references) = try list.object(value) { objects = references }
            case .string("$top"):
                guard case .dictionary(let topKeys, let topValues) = try list.object(value) else { continue }
                for (topKey, topValue) in zip(topKeys, topValues) where try list.object(topKey) == .string("root") {
                    if case .uid(let uid) = try list.object(topValue) { root = uid }
                }
            default: break
            }
        }
        guard let objects, let root else { throw .init(description: "no $objects or root") }
        self.objects = objects
        self.root = root
    }

    /// The object a UID names.
    func object(_ uid: Int) throws(BinaryPropertyList.Failure) -> BinaryPropertyList.Value {
        guard uid >= 0, uid < objects.count else { throw .init(description: "no archived object \(uid)") }
        return try list.object(objects[uid])
    }

    /// The fields of an archived object (a dictionary of string keys) as UIDs or plain values.
    func fields(_ uid: Int) throws(BinaryPropertyList.Failure) -> [String: BinaryPropertyList.Value] {
        guard case .dictionary(let keys, let values) = try object(uid) else { return [:] }
        var result: [String: BinaryPropertyList.Value] = [:]
        for (key, value) in zip(keys, values) {
            if case .string(let name) = try list.object(key) { result[name] = try list.object(value) }
        }
        return result
    }

    /// The UID a field refers to (nil for `$null`, UID 0).
    func reference(_ value: BinaryPropertyList.Value?) -> Int? {
        if case .uid(let uid)? = value, uid != 0 { uid } else { nil }
    }

    /// A string field (through its UID).
    func string(_ value: BinaryPropertyList.Value?) throws(BinaryPropertyList.Failure) -> String? {
        guard let uid = reference(value), case .string(let text) = try object(uid) else { return nil }
        return text
    }

    /// The UIDs of an archived array or set (`NS.objects`).
    func elements(_ uid: Int?) throws(BinaryPropertyList.Failure) -> [Int] {
        guard let uid, case .array(let references)? = try fields(uid)["NS.objects"] else { return [] }
        var result: [Int] = []
        for reference in references {
            if case .uid(let element) = try list.object(reference) { result.append(element) }
        }
        return result
    }

    /// The values (UIDs) of an archived dictionary: `NS.objects`, or Core Data's known-keys
    /// dictionary (`values`, an array).
    func dictionaryValues(_ uid: Int?) throws(BinaryPropertyList.Failure) -> [Int] {
        guard let uid else { return [] }
        let fields = try fields(uid)
        if fields["NS.objects"] != nil { return try elements(uid) }
        return try elements(reference(fields["values"]))
    }
}

/// Reads the `NSManagedObjectModel` of an archive into `CoreDataCompiledModel`.
struct ModelArchiveReader {
    let archive: KeyedArchive

    func model() throws(BinaryPropertyList.Failure) -> CoreDataCompiledModel {
        let root = try archive.fields(archive.root)
        var entities: [CoreDataCompiledModel.Entity] = []
        var propertyNames: [String: Set<String>] = [:]
        var raw: [(fields: [String: BinaryPropertyList.Value], name: String)] = []
        for uid in try archive.dictionaryValues(archive.reference(root["NSEntities"])) {
            let fields = try archive.fields(uid)
            guard let name = try archive.string(fields["NSEntityName"]) else { continue }
            raw.append((fields, name))
            var names: Set<String> = []
            for property in try archive.dictionaryValues(archive.reference(fields["NSProperties"])) {
                if let name = try archive.string(try archive.fields(property)["NSPropertyName"]) { names.insert(name) }
            }
            propertyNames[name] = names
        }
        for (fields, name) in raw {
            let parent = try archive.reference(fields["NSSuperentity"]).flatMap {
                (uid) throws(BinaryPropertyList.Failure) in
                try archive.string(try archive.fields(uid)["NSEntityName"])
            }
            let inherited = parent.flatMap { propertyNames[$0] } ?? []
            var entity = CoreDataCompiledModel.Entity(
                name: name, parent: parent, versionHashModifier: try archive.string(fields["NSVersionHashModifier"]),
                attributes: [], relationships: [], fetchIndexes: [], uniquenessConstraints: [])
            for uid in try archive.dictionaryValues(archive.reference(fields["NSProperties"])) {
                try add(property: try archive.fields(uid), to: &entity, skipping: inherited)
            }
            entity.attributes.sort { $0.name < $1.name }
            entity.relationships.sort { $0.name < $1.name }
            entity.fetchIndexes = try fetchIndexes(archive.reference(fields["NSFetchIndexDescriptions"]))
            for tuple in try archive.elements(archive.reference(fields["NSUniqueTuples"])) {
                var names: [String] = []
                for uid in try archive.elements(tuple) {
                    if case .string(let text) = try archive.object(uid) {
                        names.append(text)
                    } else if let name = try archive.string(try archive.fields(uid)["NSPropertyName"]) {
                        names.append(name)
                    }
                }
                entity.uniquenessConstraints.append(names)
            }
            entities.append(entity)
        }
        return CoreDataCompiledModel(entities: entities.sorted { $0.name < $1.name })
    }

    private func add(
        property fields: [String: BinaryPropertyList.Value], to entity: inout CoreDataCompiledModel.Entity,
        skipping inherited: Set<String>
    ) throws(BinaryPropertyList.Failure) {
        // Transient properties are archived too (by some framework versions); they are not stored.
        guard let name = try archive.string(fields["NSPropertyName"]), !inherited.contains(name),
            fields["NSIsTransient"] != .bool(true)
        else { return }
        let isOptional = fields["NSIsOptional"] == .bool(true)
        let modifier = try archive.string(fields["NSVersionHashModifier"])
        if case .integer(let type)? = fields["NSAttributeType"] {
            entity.attributes.append(
                .init(
                    name: name, typeCode: Int(type), isOptional: isOptional,
                    isIndexed: fields["NSIsIndexed"] == .bool(true),
                    versionHashModifier: modifier))
        } else if let destination = archive.reference(fields["NSDestinationEntity"]) {
            let inverse = try archive.reference(fields["NSInverseRelationship"]).flatMap {
                (uid) throws(BinaryPropertyList.Failure) in
                try archive.string(try archive.fields(uid)["NSPropertyName"])
            }
            var maximum: Int64 = 0
            if case .integer(let value)? = fields["NSMaxCount"] { maximum = value }
            entity.relationships.append(
                .init(
                    name: name, destination: try archive.string(try archive.fields(destination)["NSEntityName"]) ?? "",
                    inverse: inverse, isToMany: maximum != 1, isOrdered: fields["NSIsOrdered"] == .bool(true),
                    isOptional: isOptional, versionHashModifier: modifier))
        }
    }

    private func fetchIndexes(_ uid: Int?) throws(BinaryPropertyList.Failure) -> [CoreDataCompiledModel.FetchIndex] {
        var result: [CoreDataCompiledModel.FetchIndex] = []
        for index in try archive.elements(uid) {
            let fields = try archive.fields(index)
            guard let name = try archive.string(fields["NSIndexName"]) else { continue }
            var elements: [CoreDataCompiledModel.FetchIndex.Element] = []
            for element in try archive.elements(archive.reference(fields["NSIndexElements"])) {
                let elementFields = try archive.fields(element)
                var property = try archive.string(elementFields["NSPropertyName"])
                if property == nil, let described = archive.reference(elementFields["NSProperty"]) {
                    property = try archive.string(try archive.fields(described)["NSPropertyName"])
                }
                guard let property else { continue }
                elements.append(.init(property: property, isAscending: elementFields["NSAscending"] != .bool(false)))
            }
            result.append(.init(name: name, elements: elements))
        }
        return result
    }
}
