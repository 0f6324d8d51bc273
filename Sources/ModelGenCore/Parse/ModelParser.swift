import CLibXML2
import Foundation

/// Parse: the bytes of one `contents` file → `ModelSyntax`.
///
/// Input: a `SourceFile`. Output: the raw, located syntax of every element and attribute listed
/// in `corpus/FORMAT.md`, or `nil` when the file is not a readable model (malformed XML, a DTD,
/// too large, wrong root element), with a located error for why.
///
/// Invariants: never crashes, hangs or touches the network on any input (see `SecureXMLReader`);
/// unknown elements and attributes are warnings, never failures; values are not interpreted.
public struct ModelParser {
    public init() {}

    /// The libxml2 options the parser uses (for benchmarks that compare with libxml2 alone).
    public static var libxml2Options: Int32 { SecureXMLReader.parseOptions }

    static let wrongRoot = DiagnosticMessage(
        "wrong-root-element", .error, "the root element is not <model>: this is not a Core Data model file")
    static let wrongModelType = DiagnosticMessage(
        "unknown-model-type", .warning, "model type is not 'com.apple.IDECoreDataModeler.DataModel'")
    static func unknownAttribute(_ name: String, _ element: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-attribute", .warning, "unknown attribute '\(name)' on <\(element)> is ignored")
    }
    static func unknownElement(_ name: String, _ parent: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-element", .warning, "unknown element <\(name)> in <\(parent)> is ignored")
    }
    static func unexpectedText(_ element: String) -> DiagnosticMessage {
        DiagnosticMessage("unexpected-text", .warning, "text inside <\(element)> is ignored")
    }

    /// Parses one `contents` file.
    /// - Returns: the syntax, or `nil` when the file could not be read as a model (an error was reported).
    public func parse(_ source: SourceFile, diagnostics: DiagnosticEngine) -> ModelSyntax? {
        let parts = min(Self.cores, source.bytes.count / PartitionedParse.minimumPartSize)
        if parts > 1, let (model, findings) = PartitionedParse.parse(source, parts: parts) {
            for diagnostic in findings { diagnostics.report(diagnostic) }
            return model
        }
        return parseAsOne(source, diagnostics: diagnostics)
    }

    private static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Parses one `contents` file with one parser, whatever its size.
    func parseAsOne(_ source: SourceFile, diagnostics: DiagnosticEngine) -> ModelSyntax? {
        // The builder's own findings only count for a well-formed file: after a fatal XML error
        // they would be noise around the one error that matters.
        let findings = DiagnosticEngine()
        let builder = SyntaxBuilder(source: source, diagnostics: findings)
        guard SecureXMLReader.stream(source, to: builder, diagnostics: diagnostics) else { return nil }
        for diagnostic in findings.diagnostics { diagnostics.report(diagnostic) }
        guard let model = builder.model else {
            if !builder.rejectedRoot { diagnostics.report(Self.wrongRoot, at: source.location(line: 1)) }
            return nil
        }
        return model
    }
}
