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

/// A command's options: one table that the parser reads and the help and synopsis are written
/// from, so that what `--help` lists is what parses.
struct OptionSpec {
    struct Option {
        var name: String
        /// The value's placeholder (`file`), nil for an option that is on or off.
        var value: String?
        /// What it does, after its choices (`sqlite | postgres`) when it has any.
        var help: String
        /// Allowed values (nil: any).
        var choices: [String]?
        /// Whether it may be given more than once (collected in `repeated`).
        var isRepeatable = false

        /// An option that takes a value.
        static func valued(
            _ name: String, _ value: String, _ help: String, choices: [String]? = nil, repeatable: Bool = false
        ) -> Option {
            Option(name: name, value: value, help: help, choices: choices, isRepeatable: repeatable)
        }

        /// An option that is on or off.
        static func flag(_ name: String, _ help: String) -> Option {
            Option(name: name, value: nil, help: help, choices: nil)
        }
    }

    let options: [Option]
    /// Options that take a value.
    let valued: Set<String>
    /// Options that are on or off.
    let flags: Set<String>
    /// Allowed values per valued option (absent: any value).
    let choices: [String: [String]]
    /// Valued options that may be given more than once (collected in `repeated`).
    let repeatable: Set<String>

    init(_ options: [Option]) {
        self.options = options
        valued = Set(options.filter { $0.value != nil }.map(\.name))
        flags = Set(options.filter { $0.value == nil }.map(\.name))
        choices = Dictionary(
            uniqueKeysWithValues: options.compactMap { option in option.choices.map { (option.name, $0) } })
        repeatable = Set(options.filter(\.isRepeatable).map(\.name))
    }

    /// The OPTIONS section of a command's help: each option with its value and what it does,
    /// then `-h, --help`.
    var help: String {
        let entries =
            options.map { option in
                (
                    "\(option.name)" + (option.value.map { " <\($0)>" } ?? ""),
                    (option.choices.map { $0.joined(separator: " | ") + " " } ?? "") + option.help
                )
            } + [("-h, --help", "Show this help")]
        let column = min(30, (entries.map(\.0.count).max() ?? 0) + 4)
        var text = "OPTIONS:\n"
        for (left, right) in entries {
            let lines = right.split(separator: "\n", omittingEmptySubsequences: false)
            if left.count + 2 + 2 > column {
                text += "  " + left + "\n"
                text += lines.map { String(repeating: " ", count: column + 2) + $0 }.joined(separator: "\n") + "\n"
            } else {
                text += "  " + left.padding(toLength: column, withPad: " ", startingAt: 0) + lines[0] + "\n"
                text += lines.dropFirst().map { String(repeating: " ", count: column + 2) + $0 + "\n" }.joined()
            }
        }
        return text
    }

    /// `[--dialect sqlite|postgres] [--output FILE] …`, as the README's synopsis writes options.
    var synopsis: String {
        options.map { option in
            let value = option.choices?.joined(separator: "|") ?? option.value.map { $0.uppercased() }
            return "[" + option.name + (value.map { " " + $0 } ?? "") + "]" + (option.isRepeatable ? "…" : "")
        }.joined(separator: " ")
    }
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
                        message:
                            "invalid value '\(value)' for '\(name)'; expected one of: \(allowed.joined(separator: ", "))"
                    )
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
