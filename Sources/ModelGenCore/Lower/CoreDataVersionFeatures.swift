extension ObjectModel {
    /// What Core Data stores and hashes of each entity, one line per feature, sorted: entities
    /// with their parents and version hash modifiers, their own persistent attributes (type code,
    /// optionality, modifier) and relationships (destination, inverse, cardinality, order,
    /// optionality, modifier). A store's model cache gives the same lines
    /// (`CoreDataCompiledModel.versionFeatures` in ModelGenRuntime, which must write them
    /// identically): equal lines mean this model version wrote the store.
    public var coreDataVersionFeatures: [String] { coreDataVersionLines.sorted() }

    /// `coreDataVersionFeatures` in entity order.
    var coreDataVersionLines: [String] {
        var lines: [String] = []
        for entity in entities {
            let parent = entity.parent.map { entities[$0].name } ?? "-"
            lines.append("entity \(entity.name) < \(parent) vhm \(entity.versionHashModifier ?? "-")")
            for attribute in entity.attributes where !attribute.isTransient && attribute.type.isStorable {
                lines.append(
                    "attribute \(entity.name).\(attribute.name) type \(Self.coreDataTypeCode(attribute.type)) optional \(attribute.isOptional) vhm \(attribute.versionHashModifier ?? "-")"
                )
            }
            for relationship in entity.relationships where !relationship.isTransient {
                lines.append(
                    "relationship \(entity.name).\(relationship.name) → \(relationship.destinationName) inverse \(relationship.inverseName ?? "-") to-many \(relationship.isToMany) ordered \(relationship.isOrdered) optional \(relationship.isOptional) vhm \(relationship.versionHashModifier ?? "-")"
                )
            }
        }
        return lines
    }

    /// A short fingerprint of `coreDataVersionFeatures`, carried by generated code to recognise
    /// the version's stores: see `fingerprint(_:)`.
    public var coreDataVersionFingerprint: String {
        // The lines' bytes hashed as they are made, without making the strings (a 2,000-entity
        // model has some 46,000 lines).
        var sum: UInt64 = 0
        func line(_ parts: String...) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for part in parts {
                for byte in part.utf8 {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01b3
                }
            }
            sum = sum &+ hash
        }
        for entity in entities {
            line(
                "entity ", entity.name, " < ", entity.parent.map { entities[$0].name } ?? "-", " vhm ",
                entity.versionHashModifier ?? "-")
            for attribute in entity.attributes where !attribute.isTransient && attribute.type.isStorable {
                line(
                    "attribute ", entity.name, ".", attribute.name, " type ",
                    String(Self.coreDataTypeCode(attribute.type)),
                    " optional ", attribute.isOptional ? "true" : "false", " vhm ", attribute.versionHashModifier ?? "-"
                )
            }
            for relationship in entity.relationships where !relationship.isTransient {
                line(
                    "relationship ", entity.name, ".", relationship.name, " → ", relationship.destinationName,
                    " inverse ", relationship.inverseName ?? "-", " to-many ", relationship.isToMany ? "true" : "false",
                    " ordered ", relationship.isOrdered ? "true" : "false", " optional ",
                    relationship.isOptional ? "true" : "false", " vhm ", relationship.versionHashModifier ?? "-")
            }
        }
        let text = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// The wrapping sum of the lines' FNV-1a hashes (64 bits), as 16 hex digits: independent of
    /// the lines' order, so neither side sorts them to agree (`CoreDataCompiledModel` computes
    /// the same).
    public static func fingerprint(_ lines: [String]) -> String {
        var sum: UInt64 = 0
        for line in lines {
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

    /// Core Data's `NSAttributeType` code of an attribute type.
    public static func coreDataTypeCode(_ type: AttributeType) -> Int {
        switch type {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        case .undefined: 0
        }
    }
}
