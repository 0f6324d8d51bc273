import Foundation
import Testing

/// `modelgen generate` and `modelgen dump --stage swift`: files written, options, template
/// overrides, errors.
@Suite struct GenerateCommandTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("generate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func files(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func writesOneFilePerEntityAndTheModelAndMatchesTheReference() throws {
        let output = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try CLIRunner.run(["generate", "Models/GradeBook.xcdatamodeld", "--output", output.path, "--sql"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        #expect(try Self.files(output) == ["Grade.swift", "GradeBook.postgres.sql", "GradeBook.sqlite.sql", "GradeBookModel.swift", "Quiz.swift", "Student.swift"])
        let reference = CLIRunner.packageRoot.appendingPathComponent("Tests/GeneratedModels/GradeBook")
        for name in ["Grade.swift", "GradeBookModel.swift", "Quiz.swift", "Student.swift"] {
            #expect(
                try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
                    == String(contentsOf: reference.appendingPathComponent(name), encoding: .utf8), "\(name)")
        }
        let sql = try String(contentsOf: output.appendingPathComponent("GradeBook.sqlite.sql"), encoding: .utf8)
        let referenceSQL = try String(
            contentsOf: CLIRunner.packageRoot.appendingPathComponent("Tests/ModelGenCoreTests/Reference/GradeBook/sqlite.sql"), encoding: .utf8)
        #expect(sql == referenceSQL)

        // A second run with the same input leaves the files untouched (builds see no change).
        let url = output.appendingPathComponent("Grade.swift")
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try CLIRunner.run(["generate", "Models/GradeBook.xcdatamodeld", "--output", output.path]).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date == before)
    }

    @Test func internalAccessDropsPublic() throws {
        let output = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try CLIRunner.run(["generate", "Models/Library.xcdatamodeld", "--output", output.path, "--access", "internal"])
        #expect(result.status == 0, "\(result.stderr)")
        for name in try Self.files(output) {
            let text = try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("public "), "\(name)")
            #expect(text.contains("GeneratedCodeVersion_0_1"), "\(name)")
        }
    }

    @Test func templatesReplaceBuiltInOnesByName() throws {
        let output = try Self.temporaryDirectory()
        let templates = try Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: templates)
        }
        try "\nextension {{className}} {\n    static let entityName = \"{{entityName}}\"\n}\n"
            .write(to: templates.appendingPathComponent("helpers.mustache"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.run([
            "generate", "Models/Fruits.xcdatamodeld", "--output", output.path, "--templates", templates.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: output.appendingPathComponent("FruitEntity.swift"), encoding: .utf8)
        #expect(text.hasSuffix("extension FruitEntity {\n    static let entityName = \"FruitEntity\"\n}\n"))
        #expect(text.contains("public final class FruitEntity: ManagedObject {"), "the other templates stay built in")
    }

    @Test(arguments: [
        ("nonsense.mustache", "{{x}}", "'nonsense.mustache' in"),
        ("entity.mustache", "{{#open}} never closed", "template 'entity.mustache':"),
        ("helpers.mustache", "{{> helpers}}", "rendering stopped at a bound"),
    ])
    func badTemplatesAreReportedWithTheirName(_ file: String, _ source: String, _ message: String) throws {
        let output = try Self.temporaryDirectory()
        let templates = try Self.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: templates)
        }
        try source.write(to: templates.appendingPathComponent(file), atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["generate", "Models/Fruits.xcdatamodeld", "--output", output.path, "--templates", templates.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try Self.files(output).isEmpty)
    }

    @Test func usageErrors() throws {
        let missingOutput = try CLIRunner.run(["generate", "Models/Fruits.xcdatamodeld"])
        #expect(missingOutput.status == 64)
        #expect(missingOutput.stderr.contains("missing --output"))
        let badAccess = try CLIRunner.run(["generate", "Models/Fruits.xcdatamodeld", "--output", "/tmp/x", "--access", "open"])
        #expect(badAccess.status == 64)
        let missingTemplates = try CLIRunner.run([
            "generate", "Models/Fruits.xcdatamodeld", "--output", "/tmp/x", "--templates", "/nonexistent/templates",
        ])
        #expect(missingTemplates.status == 1)
        #expect(missingTemplates.stderr.contains("does not exist"))
    }

    @Test func dumpSwiftPrintsTheTemplateContextDeterministically() throws {
        let first = try CLIRunner.run(["dump", "--stage", "swift", "--format", "json", "Models/Library.xcdatamodeld"])
        let second = try CLIRunner.run(["dump", "--stage", "swift", "--format", "json", "Models/Library.xcdatamodeld"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["className"] as? String } == [
            "Audiobook", "Author", "Book", "Loan", "Media", "Member", "Note", "Reminder", "Shelf",
        ])
        let book = try #require(entities.first { $0["className"] as? String == "Book" })
        #expect(book["superclass"] as? String == "Media")
        #expect((book["attributes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["title", "year", "isbn", "pages"])
        #expect((json["model"] as? [String: Any])?["modelTypeName"] as? String == "LibraryModel")
    }
}
