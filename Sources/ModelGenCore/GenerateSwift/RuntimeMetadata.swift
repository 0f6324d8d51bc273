import Mustache

/// What the runtime reads about one entity — the values of the generated `EntityDescription` —
/// as plain data. The Swift generator prints it into each class; a tool that drives the runtime
/// without generated code (the migration tests seed stores of any model through the runtime)
/// builds the runtime's descriptions from it.
public struct RuntimeEntityMetadata: Sendable, Equatable {
    public struct Attribute: Sendable, Equatable {
        /// The key dynamic access uses (`name`, or `location.latitude` for a composite member).
        public var key: String
        public var column: String
        /// The runtime's `ValueType` case (`int16`, `string`, …).
        public var type: String
        public var isOptional: Bool
        public var hasDefault: Bool
        public var minimum: Double?
        public var maximum: Double?
        public var pattern: String?
        /// The Swift expression of the attribute's `ValueConversion` (a typed attribute's).
        public var conversion: String? = nil
        /// The name an earlier version gave the attribute (its renaming identifier), where it
        /// differs from the name.
        public var renamingIdentifier: String? = nil
    }

    /// Where a relationship's links live (the runtime's `RelationshipDescription.Storage`).
    public enum Storage: Sendable, Equatable {
        case foreignKey(column: String)
        case inverseForeignKey(column: String, position: String?)
        case joinTable(table: String, source: String, destination: String, position: String?)
    }

    public struct Relationship: Sendable, Equatable {
        public var name: String
        /// The destination entity's name and `_entity` number.
        public var destination: String
        public var destinationEntityID: Int64
        /// The inverse's index among the destination's relationships.
        public var inverse: Int?
        public var isToMany: Bool
        public var isOrdered: Bool
        public var isOptional: Bool
        public var minCount: Int?
        public var maxCount: Int?
        public var deletionRule: DeletionRule
        public var storage: Storage
    }

    public var name: String
    public var parent: String?
    public var isAbstract: Bool
    public var table: String
    public var entityID: Int64
    /// This entity's and its sub-entities' numbers, ascending.
    public var fetchedEntityIDs: [Int64]
    /// Stored attributes in slot order, inherited first.
    public var attributes: [Attribute]
    /// Relationships in index order, inherited first.
    public var relationships: [Relationship]
    /// The table's data columns (after `_pk`, `_entity`, `_version`), in select order.
    public var columns: [String]
    /// What must be unique together: attribute slots and to-one relationships (by index, each
    /// stored as a foreign key of the entity's table).
    public var uniquenessConstraints: [Uniqueness]
    /// The entity's renaming identifier (`elementID`) where it differs from its name.
    public var renamingIdentifier: String? = nil

    public struct Uniqueness: Sendable, Equatable {
        public var attributes: [Int]
        public var relationships: [Int] = []
    }
}

extension SwiftGenerator {
    /// The runtime metadata of every entity that gets code, in model order.
    public static func runtimeMetadata(model: ObjectModel, schema: RelationalSchema) -> [RuntimeEntityMetadata] {
        let builder = SwiftContextBuilder(model: model, schema: schema, options: SwiftGenerationOptions(sourceName: ""))
        return builder.generatedEntities.map(builder.runtimeMetadata)
    }
}

extension RuntimeEntityMetadata.Attribute {
    /// Writes the Swift expression generated code builds it with (as bytes, straight into a
    /// template context: one per attribute of every entity, and appending to a `String` piece by
    /// piece was most of the time of building a large model's contexts).
    func appendSwiftExpression(to text: inout TextBuffer) {
        text.append("AttributeDescription(name: ")
        SwiftNames.appendLiteral(key, to: &text)
        text.append(", column: ")
        SwiftNames.appendLiteral(column, to: &text)
        text.append(", type: .")
        text.append(string: type)
        text.append(isOptional ? ", isOptional: true" : ", isOptional: false")
        text.append(hasDefault ? ", hasDefault: true" : ", hasDefault: false")
        if let minimum, let literal = SwiftValueType.doubleLiteral(minimum) {
            text.append(", minimum: ")
            text.append(string: literal)
        }
        if let maximum, let literal = SwiftValueType.doubleLiteral(maximum) {
            text.append(", maximum: ")
            text.append(string: literal)
        }
        if let pattern {
            text.append(", pattern: ")
            SwiftNames.appendLiteral(pattern, to: &text)
        }
        if let conversion {
            text.append(", conversion: ")
            text.append(string: conversion)
        }
        if let renamingIdentifier {
            text.append(", renamingIdentifier: ")
            SwiftNames.appendLiteral(renamingIdentifier, to: &text)
        }
        text.append(")")
    }
}

extension RuntimeEntityMetadata.Storage {
    /// Writes the Swift expression generated code builds it with (straight into a relationship's
    /// description: one per relationship of a model).
    func appendSwiftExpression(to text: inout TextBuffer) {
        func optional(_ name: String?) {
            if let name { SwiftNames.appendLiteral(name, to: &text) } else { text.append("nil") }
        }
        switch self {
        case .foreignKey(let column):
            text.append(".foreignKey(column: ")
            SwiftNames.appendLiteral(column, to: &text)
        case .inverseForeignKey(let column, let position):
            text.append(".inverseForeignKey(column: ")
            SwiftNames.appendLiteral(column, to: &text)
            text.append(", position: ")
            optional(position)
        case .joinTable(let table, let source, let destination, let position):
            text.append(".joinTable(table: ")
            SwiftNames.appendLiteral(table, to: &text)
            text.append(", source: ")
            SwiftNames.appendLiteral(source, to: &text)
            text.append(", destination: ")
            SwiftNames.appendLiteral(destination, to: &text)
            text.append(", position: ")
            optional(position)
        }
        text.append(")")
    }
}

extension RuntimeEntityMetadata.Relationship {
    /// Writes the Swift expression generated code builds it with (`destinationClass`: the
    /// destination's class; see the attribute's).
    func appendSwiftExpression(destinationClass: String, to text: inout TextBuffer) {
        let rule =
            switch deletionRule {
            case .nullify: ".nullify"
            case .cascade: ".cascade"
            case .deny: ".deny"
            case .noAction: ".noAction"
            }
        text.append("RelationshipDescription(name: ")
        SwiftNames.appendLiteral(name, to: &text)
        text.append(", destinationEntityID: ")
        text.append(integer: destinationEntityID)
        text.append(", destination: ")
        text.append(string: destinationClass)
        text.append(".self, inverse: ")
        text.append(string: inverse.map(String.init) ?? "nil")
        text.append(isToMany ? ", isToMany: true" : ", isToMany: false")
        text.append(isOrdered ? ", isOrdered: true" : ", isOrdered: false")
        text.append(isOptional ? ", isOptional: true" : ", isOptional: false")
        if let minCount {
            text.append(", minCount: ")
            text.append(integer: Int64(minCount))
        }
        if let maxCount {
            text.append(", maxCount: ")
            text.append(integer: Int64(maxCount))
        }
        text.append(", deletionRule: ")
        text.append(string: rule)
        text.append(", storage: ")
        storage.appendSwiftExpression(to: &text)
        text.append(")")
    }
}
