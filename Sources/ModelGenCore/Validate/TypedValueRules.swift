import Foundation

/// The `userInfo` entry `modelgen.type`, which names an attribute's Swift type (`SwiftTypedValue`).
enum TypedValueRules {
    static func invalidType(_ name: String, _ value: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "invalid-swift-type", .error,
            "userInfo '\(SwiftTypedValue.userInfoKey)' of attribute '\(name)' is not a Swift type name: '\(value)'")
    }
    static func ignoredType(_ name: String, _ why: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "ignored-swift-type", .warning,
            "userInfo '\(SwiftTypedValue.userInfoKey)' of attribute '\(name)' is ignored: \(why)")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for entity in model.entities.indices {
            for attribute in model.entities[entity].attributes {
                guard let value = attribute.userInfo[SwiftTypedValue.userInfoKey] else { continue }
                let location = model.location(attribute.line, element: "attribute")
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                if !SwiftTypedValue.isTypeName(trimmed) {
                    diagnostics.report(invalidType(attribute.name, value), at: location)
                } else if attribute.isTransient {
                    diagnostics.report(
                        ignoredType(attribute.name, "a transient attribute keeps its own type"), at: location)
                } else if [.composite, .objectID, .undefined].contains(attribute.type) {
                    diagnostics.report(
                        ignoredType(
                            attribute.name, "a \(attribute.type.rawValue) attribute has no stored value to convert"),
                        at: location)
                }
            }
        }
    }
}
