/// Parses a large `contents` file on several cores: the file is cut at the starts of top-level
/// `<entity>` elements and each part is parsed by its own libxml2 parser and `SyntaxBuilder`;
/// the parts' syntax and findings are joined in file order.
///
/// Each part is made a document of its own. The first is the file up to the first cut with
/// `</model>` added; a later one is the file's `<model>` start tag (with everything before it)
/// followed by its part, with `</model>` added unless it is the last. If every part is
/// well-formed, so is the file, and the parts' events are the file's events: the first part
/// being well-formed proves each cut lies directly inside `<model>`, outside any comment, CDATA
/// section or processing instruction. Anything else (a part that is not well-formed, a cut in the
/// wrong place, text directly inside `<model>`, which the file reports once) gives `nil`, and the
/// caller parses the whole file as one, so results and diagnostics are those of that parse.
enum PartitionedParse {
    /// Files smaller than this are parsed as one: a part should take milliseconds.
    static let minimumPartSize = 256 * 1024

    /// Parses `source` in parts on several cores.
    /// - Parameters:
    ///   - source: the model file.
    ///   - parts: how many parts to cut the file into at most.
    /// - Returns: the syntax and the parser's findings, or `nil` when the file must be parsed as one.
    static func parse(_ source: SourceFile, parts: Int) -> (ModelSyntax, [Diagnostic])? {
        guard parts > 1, SecureXMLReader.isParseable(source), let tagEnd = modelTagEnd(in: source.bytes) else {
            return nil
        }
        let cuts = cuts(in: source.bytes, after: tagEnd, parts: parts)
        guard !cuts.isEmpty else { return nil }
        let cutLines = cuts.map { source.line(startingAt: $0)! }
        let prologLines = source.bytes[..<tagEnd].count { $0 == 0x0A }
        let results = Parallel.map(cuts.count + 1) { part -> Part? in
            let start = part == 0 ? 0 : cuts[part - 1]
            let end = part == cuts.count ? source.bytes.count : cuts[part]
            var bytes: [UInt8] = []
            bytes.reserveCapacity(end - start + tagEnd + closingTag.count)
            if part > 0 { bytes += source.bytes[..<tagEnd] }
            bytes += source.bytes[start..<end]
            if part < cuts.count { bytes += closingTag }
            let findings = DiagnosticEngine()
            let builder = SyntaxBuilder(source: source, diagnostics: findings, isLaterPart: part > 0)
            // The part's first line after the copied tag is the cut's line of the file.
            if part > 0 { builder.lineOffset = cutLines[part - 1] - (prologLines + 1) }
            guard SecureXMLReader.stream(bytes, to: builder) else { return nil }
            guard !builder.stopped, !builder.reportedModelText, builder.modelTagEnd + 1 == tagEnd,
                let model = builder.model
            else { return nil }
            return Part(model: model, findings: findings.diagnostics)
        }
        guard var model = results[0]?.model else { return nil }
        var findings = results[0]!.findings
        for result in results.dropFirst() {
            guard let result else { return nil }
            model.entities += result.model.entities
            model.composites += result.model.composites
            model.fetchRequests += result.model.fetchRequests
            model.configurations += result.model.configurations
            model.layoutElementCount += result.model.layoutElementCount
            findings += result.findings
        }
        return (model, findings)
    }

    private struct Part: Sendable {
        var model: ModelSyntax
        var findings: [Diagnostic]
    }

    private static let closingTag = Array("</model>".utf8)

    /// Where the root element's start tag `<model …>` ends (just past its `>`), if the root is
    /// `<model>`. A wrong guess is caught: every part checks it against where libxml2 read the tag.
    static func modelTagEnd(in bytes: [UInt8]) -> Int? {
        let needle = Array("<model".utf8)
        var index = 0
        // The prolog: the XML declaration, comments and processing instructions.
        while index < bytes.count {
            guard bytes[index] == 0x3C else {
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            if bytes[index + 1] == 0x3F {
                guard let end = bytes.firstOffset(of: Array("?>".utf8), from: index + 2) else { return nil }
                index = end + 2
            } else if bytes[index + 1] == 0x21 {
                guard let end = bytes.firstOffset(of: Array("-->".utf8), from: index + 2) else { return nil }
                index = end + 3
            } else {
                break
            }
        }
        guard index + needle.count < bytes.count, bytes[index..<index + needle.count].elementsEqual(needle),
            isTagNameEnd(bytes[index + needle.count])
        else { return nil }
        // The end of the tag: the first `>` outside a quoted attribute value (not `/>`: a
        // model with nothing in it has nothing to cut).
        guard let end = bytes.firstOutsideQuotes(from: index + needle.count, where: { $0 == 0x3E }),
            bytes[end - 1] != 0x2F
        else { return nil }
        return end + 1
    }

    /// Up to `parts - 1` cut offsets, increasing, each the start of a line that holds only blanks
    /// before `<entity`, the first at or after each equal share of the bytes after `tagEnd`.
    static func cuts(in bytes: [UInt8], after tagEnd: Int, parts: Int) -> [Int] {
        let needle = Array("<entity".utf8)
        let share = (bytes.count - tagEnd) / parts
        var cuts: [Int] = []
        for part in 1..<parts {
            var index = max(tagEnd + share * part, (cuts.last ?? tagEnd) + 1)
            while let hit = bytes.firstOffset(of: needle, from: index) {
                index = hit + needle.count
                guard index < bytes.count, isTagNameEnd(bytes[index]) else { continue }
                var lineStart = hit
                while lineStart > tagEnd, bytes[lineStart - 1] == 0x20 || bytes[lineStart - 1] == 0x09 {
                    lineStart -= 1
                }
                guard lineStart > tagEnd, bytes[lineStart - 1] == 0x0A else { continue }
                cuts.append(lineStart)
                break
            }
        }
        return cuts
    }

    private static func isTagNameEnd(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x3E || byte == 0x2F
    }
}
