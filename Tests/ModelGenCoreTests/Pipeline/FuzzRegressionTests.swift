import Foundation
import Mustache
import PredicateSyntax
import TestSupport
import Testing

@testable import ModelGenCore

/// Replays every input kept in `Fixtures/FuzzRegressions/<target>/` (seeds and past fuzzer
/// findings) with the invariants the fuzz targets in `Tests/Fuzz` check; see `Scripts/fuzz.sh`.
@Suite struct FuzzRegressionTests {
    static let root = PackagePaths.tests("ModelGenCoreTests", "Fixtures/FuzzRegressions")

    static func inputs(_ target: String) -> [URL] {
        let directory = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test func everyTargetHasInputs() {
        for target in ["model", "predicate", "template"] { #expect(!Self.inputs(target).isEmpty, "\(target)") }
    }

    @Test(arguments: inputs("model"))
    func modelInputsGiveLocatedDiagnosticsOnly(_ url: URL) throws {
        let engine = DiagnosticEngine()
        _ = FrontEnd().run(
            SourceFile(path: "fuzz/contents", bytes: [UInt8](try Data(contentsOf: url))), diagnostics: engine)
        #expect(engine.diagnostics.filter { $0.severity == .error && $0.location == nil }.isEmpty)
    }

    @Test(arguments: inputs("predicate"))
    func predicateInputsRoundTrip(_ url: URL) throws {
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        do {
            let tree = try PredicateParser.parse(text)
            #expect(try PredicateParser.parse(tree.description).description == tree.description)
        } catch {
            #expect(error.offset >= 0 && error.offset <= text.utf8.count, "error offset inside the input")
        }
    }

    @Test(arguments: inputs("template"))
    func templateInputsRender(_ url: URL) throws {
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        do {
            let template = try MustacheTemplate(text)
            let context: MustacheValue = ["list": [1, 2], "a": "x"]
            let output = template.render(context, partials: ["p": text])
            #expect(output == template.render(context, partials: ["p": text]), "rendering is deterministic")
        } catch {
            #expect(error.offset >= 0 && error.offset <= text.utf8.count, "error offset inside the input")
        }
    }
}
