import Foundation

/// Bounds, defaults against bounds, regular expressions, derivations and composites.
enum AttributeRules {
    static func invertedBounds(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("inverted-bounds", .error, "minimum of attribute '\(name)' is greater than its maximum")
    }
    static func defaultOutsideBounds(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "default-outside-bounds", .warning,
            "default value of attribute '\(name)' is outside its minimum and maximum")
    }
    static func invalidRegex(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "invalid-regular-expression", .error, "regular expression of attribute '\(name)' is not valid")
    }
    static func missingDerivation(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-derivation", .error, "derived attribute '\(name)' has no derivation expression")
    }
    static func missingComposite(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-composite", .error, "composite attribute '\(name)' names no composite")
    }
    static func unresolvedComposite(_ name: String, _ composite: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unresolved-composite", .error, "attribute '\(name)' names composite '\(composite)', which does not exist")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        let composites = Set(model.composites.map(\.name))
        var regexCache: [String: Bool] = [:]
        for entity in model.entities.indices {
            model.entities[entity].attributes.withUnsafeBufferPointer { attributes in
                for index in attributes.indices {
                    check(attributes[index], in: model, composites: composites, regexCache: &regexCache, diagnostics)
                }
            }
        }
        for composite in model.composites {
            for attribute in composite.attributes {
                check(attribute, in: model, composites: composites, regexCache: &regexCache, diagnostics)
            }
        }
    }

    private static func check(
        _ attribute: Attribute,
        in model: ObjectModel,
        composites: Set<String>,
        regexCache: inout [String: Bool],
        _ diagnostics: DiagnosticEngine
    ) {
        let line = attribute.line
        if let minimum = attribute.minimum?.numericValue, let maximum = attribute.maximum?.numericValue,
            minimum > maximum
        {
            diagnostics.report(invertedBounds(attribute.name), at: model.location(line, attribute: "minValueString"))
        }
        if attribute.type.isNumeric || attribute.type == .date, let value = attribute.defaultValue?.numericValue {
            let belowMinimum = attribute.minimum?.numericValue.map { value < $0 } ?? false
            let aboveMaximum = attribute.maximum?.numericValue.map { value > $0 } ?? false
            if belowMinimum || aboveMaximum {
                diagnostics.report(
                    defaultOutsideBounds(attribute.name), at: model.location(line, attribute: "defaultValueString"))
            }
        }
        if let pattern = attribute.regularExpression, !pattern.isEmpty {
            let isValid =
                regexCache[pattern]
                ?? {
                    let valid = (try? NSRegularExpression(pattern: pattern)) != nil
                    regexCache[pattern] = valid
                    return valid
                }()
            if !isValid {
                diagnostics.report(
                    invalidRegex(attribute.name), at: model.location(line, attribute: "regularExpressionString"))
            }
        }
        if let derivation = attribute.derivation, derivation.isEmpty {
            diagnostics.report(missingDerivation(attribute.name), at: model.location(line, attribute: "derived"))
        }
        if attribute.type == .composite {
            if let name = attribute.compositeName, !name.isEmpty {
                if !composites.contains(name) {
                    diagnostics.report(
                        unresolvedComposite(attribute.name, name), at: model.location(line, attribute: "composite"))
                }
            } else {
                diagnostics.report(missingComposite(attribute.name), at: model.location(line, element: "attribute"))
            }
        }
    }
}
