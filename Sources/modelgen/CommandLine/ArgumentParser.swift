/// A small command-line parser: long options with values (`--name VALUE` or `--name=VALUE`),
/// flags, `--` to end options, and positional arguments.
struct ParsedArguments {
    var options: [String: String] = [:]
    /// Values of repeatable options, in order.
    var repeated: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func has(_ flag: String) -> Bool { flags.contains(flag) }
}

/// A usage error: wrong arguments; the CLI prints it with a hint and exits with 64.
struct UsageError: Error, Equatable {
    var message: String
}

struct OptionSpec {
    /// Options that take a value.
    var valued: Set<String>
    /// Options that are on or off.
    var flags: Set<String>
    /// Allowed values per valued option (absent: any value).
    var choices: [String: [String]] = [:]
    /// Valued options that may be given more than once (collected in `repeated`).
    var repeatable: Set<String> = []
}

enum ArgumentParser {
    static func parse(_ arguments: [String], spec: OptionSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if spec.flags.contains(name) {
                if inlineValue != nil { throw UsageError(message: "option '\(name)' takes no value") }
                result.flags.insert(name)
            } else if spec.valued.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError(message: "option '\(name)' needs a value") }
                    value = arguments[index]
                    index += 1
                }
                if let allowed = spec.choices[name], !allowed.contains(value) {
                    throw UsageError(
                        message: "invalid value '\(value)' for '\(name)'; expected one of: \(allowed.joined(separator: ", "))")
                }
                if spec.repeatable.contains(name) {
                    result.repeated[name, default: []].append(value)
                    continue
                }
                if result.options[name] != nil { throw UsageError(message: "option '\(name)' is given more than once") }
                result.options[name] = value
            } else {
                throw UsageError(message: "unknown option '\(name)'")
            }
        }
        return result
    }
}
