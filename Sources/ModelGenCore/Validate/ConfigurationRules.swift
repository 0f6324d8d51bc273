/// Configurations list entities that exist, each once.
enum ConfigurationRules {
    static func unknownMember(_ name: String, _ configuration: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unknown-configuration-member", .error,
            "configuration '\(configuration)' names entity '\(name)', which does not exist")
    }
    static func duplicateMember(_ name: String, _ configuration: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "duplicate-configuration-member", .warning,
            "configuration '\(configuration)' names entity '\(name)' more than once")
    }
    static func reservedName() -> DiagnosticMessage {
        DiagnosticMessage(
            "reserved-configuration-name", .error,
            "'Default' is the implicit configuration of all entities and cannot be declared")
    }

    static func check(_ model: ObjectModel, _ diagnostics: DiagnosticEngine) {
        for configuration in model.configurations {
            if configuration.name == "Default" || configuration.name == "PF_DEFAULT_CONFIGURATION_NAME" {
                diagnostics.report(reservedName(), at: model.location(configuration.line, attribute: "name"))
            }
            var seen: Set<String> = []
            for (name, line) in zip(configuration.memberNames, configuration.memberLines) {
                let location = model.location(line, attribute: "name")
                if model.entityID(named: name) == nil {
                    diagnostics.report(unknownMember(name, configuration.name), at: location)
                } else if !seen.insert(name).inserted {
                    diagnostics.report(duplicateMember(name, configuration.name), at: location)
                }
            }
        }
    }
}
