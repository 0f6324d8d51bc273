import Foundation
import Testing

/// ModelGenCommand as a team that commits its generated code meets it: the consumer's `Inventory`
/// target holds its generated Swift in `Sources/Inventory/Generated`. `--check` passes on what is
/// committed (the code the CLI writes for the same model and options), the package builds and
/// runs with it, a model edit makes `--check` fail naming the stale file, running the command
/// updates it, and removing an entity removes its file and nothing of the user's.
/// (The first command builds modelgen again in the consumer: minutes, not seconds.)
@Suite(.serialized) struct CommandPluginTests {
    static func generateModelCode(_ package: URL, _ arguments: [String]) throws -> CLIRunner.Result {
        let swift = URL(fileURLWithPath: "/usr/bin/env")
        return try CLIRunner.run(
            swift,
            [
                "swift", "package", "--package-path", package.path, "--allow-writing-to-package-directory",
                "generate-model-code",
            ]
                + arguments, in: package, timeout: 1_500)
    }

    static func contents(of folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test func committedCodeIsCheckedAndRewrittenByTheCommand() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = try PluginTests.consumer(in: directory)
        let source = package.appendingPathComponent("Sources/Inventory")
        let generated = source.appendingPathComponent("Generated")

        // What is committed is current, and it is what the CLI writes for the same inputs.
        let check = try Self.generateModelCode(package, ["--target", "Inventory", "--check"])
        #expect(check.status == 0, "\(check.stdout)\n\(check.stderr)")
        let reference = directory.appendingPathComponent("reference")
        let cli = try CLIRunner.run([
            "generate", source.appendingPathComponent("Inventory.xcdatamodeld").path, "--output", reference.path,
            "--config", source.appendingPathComponent("modelgen.json").path,
        ])
        try #require(cli.status == 0, "\(cli.stderr)")
        let committed = try Self.contents(of: generated)
        #expect(committed == (try Self.contents(of: reference)))
        #expect(committed.keys.sorted() == ["Bin.swift", "InventoryModel.swift", "Item.swift"])

        // The package builds and runs on the committed code.
        let build = try PluginTests.swiftBuild(package)
        try #require(build.status == 0, "\(build.stdout)\n\(build.stderr)")
        let run = try CLIRunner.run(package.appendingPathComponent(".build/debug/Inventory"), [])
        #expect(run.stdout == "A1: 2 items, 65 pieces\n", "\(run.stderr)")

        // A model edit makes the check fail, naming the stale file; the command brings it up to date.
        let contents = source.appendingPathComponent("Inventory.xcdatamodeld/Inventory.xcdatamodel/contents")
        let model = try String(contentsOf: contents, encoding: .utf8)
        try model.replacingOccurrences(
            of: #"<attribute name="quantity""#,
            with: #"<attribute name="sku" optional="YES" attributeType="String"/>"# + "\n        "
                + #"<attribute name="quantity""#
        ).write(to: contents, atomically: true, encoding: .utf8)
        let stale = try Self.generateModelCode(package, ["--check"])
        #expect(stale.status != 0)
        let staleOutput = stale.stdout + stale.stderr
        #expect(staleOutput.contains("Generated/Item.swift is out of date"), "\(staleOutput)")
        #expect(!staleOutput.contains("Bin.swift is out of date"))
        #expect(
            committed["Item.swift"] == (try Data(contentsOf: generated.appendingPathComponent("Item.swift"))),
            "--check wrote")
        let update = try Self.generateModelCode(package, ["--target", "Inventory"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(
            try String(contentsOf: generated.appendingPathComponent("Item.swift"), encoding: .utf8).contains(
                "var sku: String?"))
        #expect(try Self.generateModelCode(package, ["--check"]).status == 0)

        // Removing an entity removes its file; a file of the user's in the folder stays.
        let note = generated.appendingPathComponent("Notes.swift")
        try "// Written by hand.\nlet inventoryNote = 1\n".write(to: note, atomically: true, encoding: .utf8)
        // The model without the entity Bin and the relationship to it.
        var lines = try String(contentsOf: contents, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let binStart = try #require(lines.firstIndex { $0.contains(#"<entity name="Bin""#) })
        let binEnd = try #require(lines[binStart...].firstIndex { $0.contains("</entity>") })
        lines.removeSubrange(binStart...binEnd)
        lines.removeAll { $0.contains(#"<relationship name="bin""#) }
        try lines.joined(separator: "\n").write(to: contents, atomically: true, encoding: .utf8)
        let removed = try Self.generateModelCode(package, [])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: generated.path).sorted() == [
                "InventoryModel.swift", "Item.swift", "Notes.swift",
            ])

        // Mistakes in the command's own arguments are errors that say what it takes.
        let wrong = try Self.generateModelCode(package, ["--chek"])
        #expect(wrong.status != 0)
        #expect((wrong.stdout + wrong.stderr).contains("the options are --target NAME, --output FOLDER, --check"))
    }
}
