import ModelGenCore

enum Help {
    static var commands: [any Command.Type] {
        [
            CheckCommand.self, DumpCommand.self, SQLCommand.self, GenerateCommand.self, DiffCommand.self,
            InspectCommand.self,
            ImportCommand.self,
        ]
    }

    static var overview: String {
        var text = """
            OVERVIEW: modelgen \(ModelGenVersion.current) — a schema compiler for Core Data models

            Reads the .xcdatamodeld bundles Xcode writes and checks, dumps and compiles them.

            USAGE: modelgen <command> [<options>] <model> ...

            COMMANDS:

            """
        for command in commands {
            text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        text += """

            OPTIONS:
              --version   Show the version
              -h, --help  Show this help

            See 'modelgen help <command>' or 'modelgen <command> --help' for a command's options.
            """
        return text
    }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }
}
