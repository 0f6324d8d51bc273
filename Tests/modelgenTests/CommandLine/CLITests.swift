import Foundation
import Testing

/// The `modelgen` command line: arguments, exit codes, exact output.
@Suite struct CLITests {
    @Test func versionAndHelp() throws {
        let version = try CLIRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "modelgen 0.1.0\n")
        let help = try CLIRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: modelgen <command>"))
        #expect(help.stdout.contains("check") && help.stdout.contains("dump"))
        for command in ["check", "dump"] {
            let viaFlag = try CLIRunner.run([command, "--help"])
            let viaHelp = try CLIRunner.run(["help", command])
            #expect(viaFlag.status == 0)
            #expect(viaFlag.stdout.contains("USAGE: modelgen \(command)"))
            #expect(viaFlag.stdout == viaHelp.stdout)
        }
    }

    /// The README's synopsis of each command names exactly the options its `--help` lists (which
    /// is written from the table the arguments are parsed with).
    @Test func theReadmeSynopsisListsEveryOption() throws {
        let readme = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.firstMatch(of: /## The CLI\n\n```\n([\s\S]*?)```/)?.1)
        var synopses: [String: String] = [:]
        var current: String?
        for line in block.split(separator: "\n") {
            if let command = line.firstMatch(of: /^modelgen ([a-z]+)\s/)?.1 {
                current = String(command)
                synopses[String(command), default: ""] += line + "\n"
            } else if line.hasPrefix(" "), let current {
                synopses[current, default: ""] += line + "\n"
            }
        }
        let optionName = /--[a-z-]+/
        for command in ["check", "generate", "sql", "dump", "diff", "inspect"] {
            let help = try CLIRunner.run([command, "--help"])
            let optionsSection = try #require(help.stdout.firstMatch(of: /OPTIONS:\n([\s\S]*?)\n\n/)?.1)
            let listed = Set(
                optionsSection.split(separator: "\n").compactMap { $0.firstMatch(of: /^  (--[a-z-]+)/)?.1 }.map(
                    String.init))
            let synopsis = try #require(synopses[command], "no synopsis of \(command) in the README")
            let named = Set(synopsis.matches(of: optionName).map { String($0.0) })
            #expect(named == listed, "\(command): README names \(named.sorted()), --help lists \(listed.sorted())")
        }
    }

    @Test(arguments: [
        ([], "OVERVIEW"),
        (["frobnicate"], "modelgen: error: unknown command 'frobnicate'"),
        (["check"], "modelgen: error: missing model path"),
        (["check", "--colour", "Models/Fruits.xcdatamodeld"], "modelgen: error: unknown option '--colour'"),
        (
            ["dump", "--stage", "emit", "Models/Fruits.xcdatamodeld"],
            "modelgen: error: invalid value 'emit' for '--stage'"
        ),
        (["dump", "--format"], "modelgen: error: option '--format' needs a value"),
        (
            ["dump", "Models/Fruits.xcdatamodeld", "Models/GradeBook.xcdatamodeld"],
            "modelgen: error: dump takes one model"
        ),
        (["check", "--all-versions", "--model-version", "X", "Models/Fruits.xcdatamodeld"], "cannot be used together"),
        (["help", "frobnicate"], "modelgen: error: unknown command 'frobnicate'"),
        (["inspect"], "modelgen: error: missing store path"),
    ])
    func usageErrorsExitWith64(_ arguments: [String], _ message: String) throws {
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func checkOfCleanModelsPrintsNothingAndExitsZero() throws {
        let models = try FileManager.default.contentsOfDirectory(
            atPath: CLIRunner.packageRoot.appendingPathComponent("Models").path
        )
        .filter { $0.hasSuffix(".xcdatamodeld") }.sorted().map { "Models/" + $0 }
        #expect(models.count == 10)
        let result = try CLIRunner.run(["check", "--warnings-as-errors"] + models)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func errorsAreRenderedWithThePathAsGivenAndExitOne() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Order" color="red">
                <relationship name="items" toMany="YES" deletionRule="Cascade" destinationEntity="Item"/>
            </entity>
        </model>
        """.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["check", "./Shop.xcdatamodel"], in: directory)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                ./Shop.xcdatamodel/contents:3:26: warning: unknown attribute 'color' on <entity> is ignored [unknown-attribute]
                ./Shop.xcdatamodel/contents:4:72: error: relationship 'items' names destination 'Item', which does not exist [unresolved-destination]

                """)
        let strict = try CLIRunner.run(["check", "--warnings-as-errors", "Shop.xcdatamodel/contents"], in: directory)
        #expect(strict.status == 1)
        #expect(strict.stderr.hasPrefix("Shop.xcdatamodel/contents:3:26: error: unknown attribute 'color'"))
    }

    @Test func warningsAloneExitZero() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("contents")
        try #"<?xml version="1.0"?><model><entity name="A" color="red"/></model>"#.write(
            to: file, atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["check", file.path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("warning: unknown attribute 'color'"))
        #expect(try CLIRunner.run(["check", "--warnings-as-errors", file.path]).status == 1)
    }

    @Test func dumpIsDeterministicInBothFormats() throws {
        for stage in ["parse", "resolve"] {
            let text = try CLIRunner.run(["dump", "--stage", stage, "Models/GradeBook.xcdatamodeld"])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(
                text.stdout == (try CLIRunner.run(["dump", "--stage", stage, "Models/GradeBook.xcdatamodeld"])).stdout)
            let json = try CLIRunner.run([
                "dump", "--stage", stage, "--format", "json", "Models/GradeBook.xcdatamodeld",
            ])
            #expect(json.status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let entities = object?["entities"] as? [[String: Any]]
            #expect(entities?.map { $0["name"] as? String } == ["Grade", "Quiz", "Student"])
        }
        let resolved = try CLIRunner.run(["dump", "Models/GradeBook.xcdatamodeld"])
        #expect(resolved.stdout.contains("name: \"GradeForStudentAndQuiz\""))
        #expect(resolved.stdout.contains("predicate: \"student.id == $STUDENT_ID AND quiz.id == $QUIZ_ID\""))
        #expect(resolved.stdout.contains("variables:\n      - \"STUDENT_ID\"\n      - \"QUIZ_ID\""))
    }

    @Test func dumpOfABrokenModelPrintsOnlyDiagnostics() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("contents")
        try #"<?xml version="1.0"?><model><entity name="A" parentEntity="B"/></model>"#.write(
            to: file, atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["dump", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("[unresolved-parent-entity]"))
    }
}

/// `modelgen sql`.
@Suite struct SQLCommandTests {
    static let reference = CLIRunner.packageRoot.appendingPathComponent("Tests/ModelGenCoreTests/Reference/GradeBook")

    @Test func writesTheReferenceDDLForEachDialect() throws {
        for dialect in ["sqlite", "postgres"] {
            let result = try CLIRunner.run(["sql", "Models/GradeBook.xcdatamodeld", "--dialect", dialect])
            #expect(result.status == 0, "\(result.stderr)")
            let expected = try String(
                contentsOf: Self.reference.appendingPathComponent("\(dialect).sql"), encoding: .utf8)
            #expect(result.stdout == expected + "\n" || result.stdout == expected)
        }
        let defaulted = try CLIRunner.run(["sql", "Models/GradeBook.xcdatamodeld"])
        #expect(defaulted.stdout.contains("-- Dialect: SQLite."))
    }

    @Test func writesToAFileOnlyWhenTheBytesChange() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("schema.sql")
        let first = try CLIRunner.run(["sql", "--output", file.path, "Models/Fruits.xcdatamodeld"])
        #expect(first.status == 0 && first.stdout.isEmpty)
        let written = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try CLIRunner.run(["sql", "--output", file.path, "Models/Fruits.xcdatamodeld"]).status == 0)
        let rewritten = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        #expect(written == rewritten)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(#"CREATE TABLE "fruit_entity""#))

        // A file that is there with other contents is replaced whole (new files are written in
        // place, existing ones atomically): longer and shorter old contents alike.
        let expected = try Data(contentsOf: file)
        for old in [Data(repeating: UInt8(ascii: "x"), count: expected.count * 2), Data("-- old".utf8)] {
            try old.write(to: file)
            #expect(try CLIRunner.run(["sql", "--output", file.path, "Models/Fruits.xcdatamodeld"]).status == 0)
            #expect(try Data(contentsOf: file) == expected)
        }
    }

    @Test func errorsAndUsage() throws {
        let dialect = try CLIRunner.run(["sql", "--dialect", "oracle", "Models/Fruits.xcdatamodeld"])
        #expect(dialect.status == 64)
        #expect(dialect.stderr.contains("invalid value 'oracle' for '--dialect'; expected one of: sqlite, postgres"))
        let configuration = try CLIRunner.run(["sql", "--configuration", "Cloud", "Models/Fruits.xcdatamodeld"])
        #expect(configuration.status == 1)
        #expect(configuration.stderr.contains("[unknown-configuration]"))
        #expect(configuration.stdout.isEmpty)
        let output = try CLIRunner.run(["sql", "--output", "/nonexistent/dir/x.sql", "Models/Fruits.xcdatamodeld"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("modelgen: error: cannot write '/nonexistent/dir/x.sql'"))
        let schema = try CLIRunner.run(["dump", "--stage", "schema", "Models/Businesses.xcdatamodeld"])
        #expect(schema.status == 0)
        #expect(schema.stdout.contains("name: \"business_entity_departments\""))
    }
}
