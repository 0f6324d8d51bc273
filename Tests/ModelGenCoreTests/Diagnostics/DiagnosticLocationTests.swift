import Foundation
import Testing

@testable import ModelGenCore

/// Every diagnostic id of the front end, each proven at the line and column of a marker, with its
/// full rendered line.
@Suite struct DiagnosticLocationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var id: String
        var severity: Severity
        /// Body of a model document (inside `<model>`), or a whole document when `isDocument`.
        var marked: String
        var isDocument = false

        var testDescription: String { id }
    }

    static let path = "Tests/Marked.xcdatamodel/contents"

    /// Runs every stage the syntax allows (Resolve and Validate even after errors) so each rule can
    /// be exercised on its own.
    static func diagnose(_ text: String) -> [Diagnostic] {
        let engine = DiagnosticEngine()
        let file = SourceFile(path: path, bytes: Array(text.utf8))
        if let syntax = ModelParser().parse(file, diagnostics: engine) {
            let model = ModelResolver().resolve(syntax, diagnostics: engine)
            ModelValidator().validate(model, diagnostics: engine)
        }
        return engine.sorted
    }

    @Test(arguments: DiagnosticCases.all)
    func diagnosticPointsAtItsMarker(_ testCase: Case) throws {
        let marked = MarkedText(testCase.isDocument ? testCase.marked : modelDocument(testCase.marked))
        let diagnostics = Self.diagnose(marked.text)
        let expected = try #require(marked.positions["1️⃣"], "case has no 1️⃣ marker")
        let matching = diagnostics.filter { $0.id.rawValue == testCase.id }
        #expect(matching.count == 1, "\(diagnostics.map(\.rendered))")
        let diagnostic = try #require(matching.first)
        #expect(diagnostic.severity == testCase.severity)
        #expect(diagnostic.location?.line == expected.line, "\(diagnostic.rendered)")
        #expect(diagnostic.location?.column == expected.column, "\(diagnostic.rendered)")
        let firstLine = diagnostic.rendered.split(separator: "\n")[0]
        #expect(
            firstLine.hasPrefix("\(Self.path):\(expected.line):\(expected.column): \(testCase.severity.rawValue): "))
        #expect(firstLine.hasSuffix(" [\(testCase.id)]"))
        #expect(!diagnostic.message.hasSuffix("."), "messages have no trailing period")
        #expect(
            diagnostic.message.first?.isUppercase != true || diagnostic.message.hasPrefix("'"),
            "messages start lowercase")
    }

    /// Every id declared in ModelGenCore has a test here or in `LoaderTests`.
    @Test func everyDiagnosticIDIsTested() throws {
        let sources = TestPaths.packageRoot.appendingPathComponent("Sources/ModelGenCore")
        var declared = Set<String>()
        let pattern = try NSRegularExpression(pattern: #"DiagnosticMessage\(\s*"([a-z0-9-]+)""#)
        for url in TestPaths.files(withExtension: "swift", under: sources) {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                declared.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        #expect(declared.count > 60)
        let tested = Set(DiagnosticCases.all.map(\.id)).union(LoaderTests.testedIDs).union(LoweringTests.testedIDs)
            .union(CoreDataLayoutTests.testedIDs)
        #expect(declared.subtracting(tested).sorted() == [], "ids without a location test")
    }

    @Test func diagnosticsAreSortedByFileLineAndColumn() {
        let text = modelDocument(
            """
                <entity name="B" color="red"/>
                <entity name="A" isAbstract="maybe" size="9"/>
            """)
        let rendered = Self.diagnose(text).map(\.rendered)
        #expect(
            rendered
                == rendered.sorted { a, b in
                    let l = a.split(separator: ":").dropFirst().prefix(2).map { Int($0)! }
                    let r = b.split(separator: ":").dropFirst().prefix(2).map { Int($0)! }
                    return l.lexicographicallyPrecedes(r)
                })
        #expect(rendered.count == 3)
    }

    @Test func notesRenderOnTheirOwnLines() {
        let text = modelDocument(
            """
                <entity name="Author">
                    <relationship name="books" toMany="YES" destinationEntity="Bok"/>
                </entity>
                <entity name="Book"/>
            """)
        let diagnostic = Self.diagnose(text).first { $0.id == "unresolved-destination" }
        #expect(
            diagnostic?.rendered == """
                \(Self.path):4:49: error: relationship 'books' names destination 'Bok', which does not exist [unresolved-destination]
                \(Self.path):4:49: note: did you mean 'Book'?
                """)
    }

    @Test func warningsAsErrorsPromotesWarnings() {
        let engine = DiagnosticEngine(warningsAsErrors: true)
        let file = SourceFile(path: Self.path, bytes: Array(modelDocument(#"    <entity name="A" color="red"/>"#).utf8))
        #expect(FrontEnd().run(file, diagnostics: engine) == nil)
        #expect(engine.sorted.map(\.severity) == [.error])
    }
}

extension TestPaths {
    static func files(withExtension ext: String, under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        var result: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == ext { result.append(url) }
        return result.sorted { $0.path < $1.path }
    }
}
