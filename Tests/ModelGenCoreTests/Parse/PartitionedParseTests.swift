import Foundation
import Testing

@testable import ModelGenCore

/// A file parsed in parts on several cores gives exactly what parsing it as one gives (syntax and
/// findings, lines included), or gives nothing so that it is parsed as one.
@Suite struct PartitionedParseTests {
    /// What a parse produced, comparable: the syntax as JSON and the findings in report order.
    struct Outcome: Equatable, CustomStringConvertible {
        var syntax: String?
        var findings: [Diagnostic]

        var description: String { "\(findings.map(\.rendered)) \(syntax?.prefix(300) ?? "nil")" }
    }

    static func encode(_ syntax: ModelSyntax?) -> String? {
        guard let syntax else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(syntax), as: UTF8.self)
    }

    static func asOne(_ source: SourceFile) -> Outcome {
        let engine = DiagnosticEngine()
        let syntax = ModelParser().parseAsOne(source, diagnostics: engine)
        return Outcome(syntax: encode(syntax), findings: engine.diagnostics)
    }

    static func inParts(_ source: SourceFile, _ parts: Int) -> Outcome? {
        guard let (syntax, findings) = PartitionedParse.parse(source, parts: parts) else { return nil }
        return Outcome(syntax: encode(syntax), findings: findings)
    }

    static func source(_ text: String) -> SourceFile {
        SourceFile(path: "Parts.xcdatamodel/contents", bytes: Array(text.utf8))
    }

    /// Whether the file has a place to cut into `parts`.
    static func canCut(_ source: SourceFile, _ parts: Int) -> Bool {
        guard let end = PartitionedParse.modelTagEnd(in: source.bytes) else { return false }
        return !PartitionedParse.cuts(in: source.bytes, after: end, parts: parts).isEmpty
    }

    @Test func everyCorpusVersionParsesTheSameInParts() throws {
        guard let root = TestPaths.sharedFolder("corpus") else { return }
        var cut = 0
        var checked = 0
        for url in TestPaths.files(named: "contents", under: root) {
            let source = SourceFile(path: url.path, bytes: try [UInt8](Data(contentsOf: url)))
            let whole = Self.asOne(source)
            for parts in 2...4 {
                checked += 1
                guard let split = Self.inParts(source, parts) else {
                    // Real models are well-formed and have no text directly inside <model>: a
                    // file with a place to cut must be parsed in parts.
                    #expect(!Self.canCut(source, parts), "\(url.path) in \(parts) parts fell back")
                    continue
                }
                cut += 1
                #expect(split == whole, "\(url.path) in \(parts) parts")
            }
        }
        print("partitioned parse: \(cut) of \(checked) corpus parses (versions × 2, 3, 4 parts) were cut")
        #expect(cut * 2 > checked)
    }

    /// Bad and odd inputs: whenever the parts are used, they agree with the whole file.
    @Test(arguments: DiagnosticCases.parse + DiagnosticCases.values)
    func diagnosticCasesParseTheSameInParts(_ testCase: DiagnosticLocationTests.Case) {
        let marked = MarkedText(testCase.isDocument ? testCase.marked : modelDocument(testCase.marked))
        let source = Self.source(marked.text)
        let whole = Self.asOne(source)
        for parts in 2...3 {
            if let split = Self.inParts(source, parts) { #expect(split == whole, "\(parts) parts") }
        }
    }

    /// Lines in later parts are the file's lines: findings there point where the whole parse points.
    @Test func findingsInLaterPartsKeepTheirLines() throws {
        var body = ""
        for index in 0..<12 {
            body += """
                    <entity name="E\(index)" representedClassName="E\(index)" bogus\(index)="1">
                        <attribute name="a" optional="YES" attributeType="String"/>
                        <unknownThing/>
                    </entity>

                """
        }
        let text = modelDocument(body)
        let source = Self.source(text)
        let whole = Self.asOne(source)
        #expect(whole.findings.count == 24)
        let lastLine = text.split(separator: "\n", omittingEmptySubsequences: false).lastIndex {
            $0.contains("<unknownThing")
        }
        #expect(whole.findings.last?.location?.line == lastLine.map { $0 + 1 })
        for parts in 2...4 {
            let split = try #require(Self.inParts(source, parts))
            #expect(split == whole, "\(parts) parts")
        }
    }

    /// A cut that would fall inside a comment, a CDATA section, a processing instruction or a
    /// nested element, or after `</model>`, is refused: the parse is made as one.
    @Test(arguments: [
        "<!--\n<entity name=\"X\"/>\n-->",
        "<userInfo><entry key=\"k\" value=\"v\"/></userInfo><![CDATA[\n<entity name=\"X\"/>\n]]>",
        "<?note\n<entity name=\"X\"/>\n?>",
        "<entity name=\"Outer\" representedClassName=\"FILLER\">\n<entity name=\"X\"/>\n</entity>",
        "<elements>\n<entity name=\"X\"/>\n</elements>",
    ])
    func cutsInTheWrongPlaceFallBack(_ hostile: String) {
        // The first place to cut comes after the middle of the file: inside the hostile part.
        let filler = String(repeating: "A", count: 2_000)
        let body =
            hostile.contains("FILLER")
            ? hostile.replacing("FILLER", with: filler)
            : "    <entity name=\"A\" representedClassName=\"\(filler)\"/>\n" + hostile
        let text = modelDocument(body)
        let source = Self.source(text)
        #expect(Self.canCut(source, 2), "the test must offer the cut")
        #expect(Self.inParts(source, 2) == nil)
    }

    @Test func anEntityAfterTheModelFallsBack() {
        let text =
            modelDocument("    <entity name=\"A\" representedClassName=\"\(String(repeating: "A", count: 2_000))\"/>")
            + "\n<entity name=\"X\"/>\n"
        let source = Self.source(text)
        #expect(Self.canCut(source, 2))
        #expect(Self.inParts(source, 2) == nil)
        #expect(Self.asOne(source).syntax == nil)
    }

    /// Text directly inside `<model>` is reported once for the whole file, so parts cannot say.
    @Test func textInsideTheModelFallsBack() {
        let filler = String(repeating: "A", count: 2_000)
        let text = modelDocument(
            "stray\n    <entity name=\"A\" representedClassName=\"\(filler)\"/>\nmore\n    <entity name=\"B\"/>")
        let source = Self.source(text)
        #expect(Self.canCut(source, 2))
        #expect(Self.inParts(source, 2) == nil)
        #expect(Self.asOne(source).findings.map(\.id.rawValue) == ["unexpected-text"])
    }

    /// A part that is not well-formed gives nothing; the whole parse reports the error.
    @Test func aMalformedLaterPartFallsBack() {
        let text = modelDocument(
            "    <entity name=\"A\" representedClassName=\"\(String(repeating: "A", count: 2_000))\"/>\n    <entity name=\"B\" a=1/>"
        )
        let source = Self.source(text)
        #expect(Self.canCut(source, 2))
        #expect(Self.inParts(source, 2) == nil)
        #expect(Self.asOne(source).findings.map(\.id.rawValue) == ["xml-malformed"])
    }

    /// A file large enough is parsed in parts by `ModelParser` itself, with the same result.
    @Test func aLargeFileIsParsedInPartsAlike() throws {
        var body = ""
        for index in 0..<400 {
            body += "    <entity name=\"Entity\(index)\" representedClassName=\"Entity\(index)\" syncable=\"YES\">\n"
            for attribute in 0..<12 {
                body +=
                    "        <attribute name=\"attribute\(attribute)\" optional=\"YES\" attributeType=\"Integer 64\" defaultValueString=\"\(attribute)\" usesScalarValueType=\"YES\"/>\n"
            }
            body += "    </entity>\n"
        }
        let source = Self.source(modelDocument(body))
        #expect(source.bytes.count > 2 * PartitionedParse.minimumPartSize)
        let whole = Self.asOne(source)
        let split = try #require(Self.inParts(source, 2))
        #expect(split == whole)
        let engine = DiagnosticEngine()
        let parsed = ModelParser().parse(source, diagnostics: engine)
        #expect(parsed?.entities.count == 400)
        #expect(Outcome(syntax: Self.encode(parsed), findings: engine.diagnostics) == whole)
    }
}
