/// Names become Swift identifiers and SQL identifiers, so they must be what Xcode's model editor
/// accepts: ASCII letters, digits and underscores, not starting with a digit; entity names start
/// with an uppercase letter. `representedClassName` may add a module (`Module.Class`) or a
/// leading dot (`.Class`, the current module). A name that breaks the rule is an error, never
/// passed on to generated code (every name of the 110 corpus versions follows it).
enum NameRules {
    static func invalid(_ kind: String, _ name: String, _ rule: String) -> DiagnosticMessage {
        DiagnosticMessage("invalid-name", .error, "\(kind) name '\(name.commentSafe)' is not valid: \(rule)")
    }

    static let identifierRule = "use letters, digits and underscores, not starting with a digit"

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        func report(_ kind: String, _ name: String, _ rule: String, line: Int, attribute: String = "name") {
            diagnostics.report(invalid(kind, name, rule), at: model.location(line, attribute: attribute))
        }
        // Elements are read in place: copying an entity or attribute out of its array would
        // retain each of its fields.
        model.entities.withUnsafeBufferPointer { entities in
            for entity in entities.indices {
                let name = entities[entity].name
                if !isIdentifier(name) || !(name.first?.isUppercase ?? false) {
                    report(
                        "entity", name, "start with an uppercase letter and " + identifierRule,
                        line: entities[entity].line)
                }
                if let className = entities[entity].representedClassName, !isClassName(className) {
                    report(
                        "class", className, identifierRule + ", optionally after a module name and a dot",
                        line: entities[entity].line,
                        attribute: "representedClassName")
                }
                entities[entity].attributes.withUnsafeBufferPointer { attributes in
                    for index in attributes.indices where !isIdentifier(attributes[index].name) {
                        report("attribute", attributes[index].name, identifierRule, line: attributes[index].line)
                    }
                }
                entities[entity].relationships.withUnsafeBufferPointer { relationships in
                    for index in relationships.indices where !isIdentifier(relationships[index].name) {
                        report(
                            "relationship", relationships[index].name, identifierRule, line: relationships[index].line)
                    }
                }
                for property in entities[entity].fetchedProperties where !isIdentifier(property.name) {
                    report("fetched property", property.name, identifierRule, line: property.line)
                }
            }
        }
        for request in model.fetchRequests where !isIdentifier(request.name) {
            report("fetch request", request.name, identifierRule, line: request.line)
        }
        for composite in model.composites {
            if !isIdentifier(composite.name) {
                report("composite", composite.name, identifierRule, line: composite.line)
            }
            for attribute in composite.attributes where !isIdentifier(attribute.name) {
                report("attribute", attribute.name, identifierRule, line: attribute.line)
            }
        }
    }

    static func isIdentifier<S: StringProtocol>(_ name: S) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
        }
    }

    static func isClassName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let named = parts.first == "" ? parts.dropFirst() : parts[...]
        return !named.isEmpty && named.allSatisfy(isIdentifier)
    }
}
