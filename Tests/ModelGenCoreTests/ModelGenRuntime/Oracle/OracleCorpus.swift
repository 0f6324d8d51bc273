import Foundation
import ModelGenRuntime

@testable import ModelGenCore

extension OracleModel {
    /// The oracle's view of a real model, or why it cannot have one: what the oracle does not
    /// model (bounds, patterns, composites, derived attributes, No Action, relationships without a
    /// mutual inverse, uniqueness over relationships) is left to the other tests.
    static func from(_ model: ObjectModel) -> (OracleModel?, String?) {
        var entities: [Entity] = []
        for entity in model.entities {
            var converted = Entity(name: entity.name, parent: entity.parent, isAbstract: entity.isAbstract)
            for attribute in entity.attributes where !attribute.isTransient {
                guard let kind = Kind(attribute.type) else { return (nil, "attribute type \(attribute.type.rawValue)") }
                if attribute.minimum != nil || attribute.maximum != nil || attribute.regularExpression != nil {
                    return (nil, "bounds or pattern")
                }
                if attribute.isDerived { return (nil, "derived attribute") }
                let value = attribute.defaultValue.flatMap { OracleValue($0, kind) }
                if attribute.defaultValue != nil && value == nil {
                    return (nil, "default of \(entity.name).\(attribute.name)")
                }
                converted.attributes.append(
                    Attribute(name: attribute.name, kind: kind, isOptional: attribute.isOptional, defaultValue: value))
            }
            for relationship in entity.relationships where !relationship.isTransient {
                guard let destination = relationship.destination, let inverse = relationship.inverse,
                    relationship.isInverseMutual
                else {
                    return (nil, "relationship without a mutual inverse")
                }
                let rule: Rule
                switch relationship.deletionRule {
                case .nullify: rule = .nullify
                case .cascade: rule = .cascade
                case .deny: rule = .deny
                case .noAction: return (nil, "No Action rule")
                }
                converted.relationships.append(
                    Relationship(
                        name: relationship.name, destination: destination,
                        inverse: model.entities[inverse.entity].relationships[inverse.index].name,
                        isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                        isOptional: relationship.isOptional,
                        minCount: relationship.isToMany && relationship.minCount > 0 ? relationship.minCount : nil,
                        maxCount: relationship.isToMany && relationship.maxCount > 0 ? relationship.maxCount : nil,
                        rule: rule,
                        inverseEntity: inverse.entity))
            }
            if let constraint = entity.uniquenessConstraints.first {
                guard entity.uniquenessConstraints.count == 1 else { return (nil, "several uniqueness constraints") }
                guard
                    constraint.properties.allSatisfy({ name in
                        model.entities[entity.root].attributes.contains { $0.name == name }
                            || entity.attributes.contains { $0.name == name }
                    })
                else { return (nil, "uniqueness over relationships") }
                converted.unique = constraint.properties
            }
            entities.append(converted)
        }
        guard !entities.isEmpty else { return (nil, "no entities") }
        // Inverses declared on entities whose relationship lists were filtered must exist.
        let result = OracleModel(entities: entities)
        for (index, entity) in entities.enumerated() {
            for relationship in entity.relationships {
                let ref = RelationshipRef(entity: index, name: relationship.name)
                let inverse = result.inverse(of: ref)
                guard result.entities[inverse.entity].relationships.contains(where: { $0.name == inverse.name }) else {
                    return (nil, "transient inverse")
                }
            }
        }
        return (result, nil)
    }
}

extension OracleModel.Kind {
    init?(_ type: AttributeType) {
        switch type {
        case .integer16: self = .int16
        case .integer32: self = .int32
        case .integer64: self = .int64
        case .double: self = .double
        case .float: self = .float
        case .decimal: self = .decimal
        case .string: self = .string
        case .boolean: self = .bool
        case .date: self = .date
        case .binary, .transformable: self = .data
        case .uuid: self = .uuid
        case .uri: self = .url
        case .composite, .objectID, .undefined: return nil
        }
    }
}

extension OracleValue {
    /// A model default as the oracle keeps it, for an attribute of `kind`.
    init?(_ value: AttributeValue, _ kind: OracleModel.Kind) {
        switch (value, kind) {
        case (.integer(let number), .bool): self = .bool(number != 0)
        case (.bool(let flag), .bool): self = .bool(flag)
        case (.integer(let number), .int16), (.integer(let number), .int32), (.integer(let number), .int64):
            self = .int(number)
        case (.integer(let number), .double), (.integer(let number), .float): self = .double(Double(number))
        case (.double(let number), .double): self = .double(number)
        case (.double(let number), .float): self = .double(Double(Float(number)))
        case (.integer(let number), .decimal): self = .decimal(Decimal(number))
        case (.decimal(let text), .decimal):
            guard let number = Decimal(string: text) else { return nil }
            self = .decimal(number)
        case (.double(let number), .decimal): self = .decimal(Decimal(number))
        case (.string(let text), .string): self = .string(text)
        case (.date(let seconds), .date): self = .date(seconds)
        case (.uuid(let text), .uuid):
            guard let uuid = UUID(uuidString: text) else { return nil }
            self = .uuid(uuid)
        case (.uri(let text), .url): self = .url(text)
        default: return nil
        }
    }
}
