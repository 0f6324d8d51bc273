import Foundation
import Testing

@testable import Mustache

/// The official Mustache specification (core modules: comments, delimiters, interpolation,
/// inverted, partials, sections), read from the shared conformance folder at test time.
@Suite struct MustacheSpecTests {
    struct SpecFile: Decodable {
        var tests: [SpecCase]
    }

    struct SpecCase: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var desc: String
        var data: MustacheValue
        var template: String
        var partials: [String: String]?
        var expected: String
        var module = ""

        var testDescription: String { "\(module): \(name)" }

        private enum CodingKeys: String, CodingKey {
            case name, desc, data, template, partials, expected
        }
    }

    static let modules = ["comments", "delimiters", "interpolation", "inverted", "partials", "sections"]

    static let cases: [SpecCase] = {
        let folder = TestPaths.shared.appendingPathComponent("conformance/mustache-spec")
        return modules.flatMap { module -> [SpecCase] in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(module + ".json")),
                let file = try? JSONDecoder().decode(SpecFile.self, from: data)
            else { return [] }
            return file.tests.map { test in
                var test = test
                test.module = module
                return test
            }
        }
    }()

    @Test func specIsPresent() {
        guard TestPaths.sharedFolder("conformance/mustache-spec") != nil else { return }
        print("mustache spec: \(Self.cases.count) tests in \(Self.modules.count) modules")
        #expect(Self.cases.count == 136)
    }

    @Test(arguments: cases)
    func specCasePasses(_ test: SpecCase) throws {
        let template = try MustacheTemplate(test.template)
        let output = template.render(test.data, partials: test.partials ?? [:])
        #expect(output == test.expected, "\(test.desc)\ntemplate: \(test.template.debugDescription)")
    }

    @Test func badTemplatesAreErrorsWithOffsets() {
        let cases: [(String, String, Int)] = [
            ("Hello {{name", "unclosed tag", 6),
            ("{{#a}}x", "section 'a' is not closed", 0),
            ("{{#a}}x{{/b}}", "closing tag 'b' does not match an open section", 7),
            ("{{/a}}", "closing tag 'a' does not match an open section", 0),
            ("{{= | =}}", "invalid set-delimiter tag", 0),
        ]
        for (template, message, offset) in cases {
            #expect(throws: MustacheError(message: message, offset: offset)) { try MustacheTemplate(template) }
        }
    }

    @Test func recursivePartialsOverCyclicDepthStop() {
        let template = try? MustacheTemplate("{{>loop}}")
        let output = template?.render(["x": 1], partials: ["loop": "a{{>loop}}"])
        #expect(output == String(repeating: "a", count: 200))
    }
}
