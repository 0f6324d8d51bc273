import CLibXML2

/// Reads XML bytes into a libxml2 document, securely: no network, no DTD loading, no external
/// entities, no entity expansion, bounded size and depth (libxml2's default limits without
/// `XML_PARSE_HUGE`: 256 levels, 10 MB per text node).
///
/// A document type declaration is refused before libxml2 sees the file: Xcode never writes one,
/// and without one no entity can be declared, so nothing can expand ("billion laughs") or be
/// fetched (XXE).
struct SecureXMLReader {
    /// Files larger than this are refused before parsing.
    static let maximumSize = 32 * 1024 * 1024

    static let parseOptions: Int32 = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_NOCDATA.rawValue
    )

    /// libxml2 must be initialised once, from one thread, before parsers run concurrently.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    static let tooLarge = DiagnosticMessage("file-too-large", .error, "file is larger than the limit of 32 MiB")
    static let doctype = DiagnosticMessage(
        "xml-doctype-not-allowed", .error, "document type declarations are not allowed in a model file")
    static func malformed(_ detail: String) -> DiagnosticMessage {
        DiagnosticMessage("xml-malformed", .error, "malformed XML: \(detail)")
    }
    static let empty = DiagnosticMessage("xml-malformed", .error, "malformed XML: the file is empty")

    /// Parses `source`; on failure reports a located diagnostic and returns `nil`.
    /// The caller owns the returned document and frees it with `xmlFreeDoc`.
    /// - Parameters:
    ///   - source: the file's bytes and path.
    ///   - allowsExternalDoctype: accept a `<!DOCTYPE name PUBLIC "…" "…">` without an internal
    ///     subset (property lists carry one); it is never loaded.
    ///   - diagnostics: where a failure is reported.
    /// - Returns: the document, or `nil` when the file is refused or not well-formed.
    static func read(
        _ source: SourceFile, allowsExternalDoctype: Bool = false, diagnostics: DiagnosticEngine
    ) -> xmlDocPtr? {
        guard precheck(source, allowsExternalDoctype: allowsExternalDoctype, diagnostics: diagnostics) else {
            return nil
        }
        guard let context = xmlNewParserCtxt() else {
            preconditionFailure("libxml2 could not allocate a parser context")
        }
        defer { xmlFreeParserCtxt(context) }
        let document = source.bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                xmlCtxtReadMemory(context, pointer, Int32(buffer.count), source.path, nil, parseOptions)
            }
        }
        if let document, context.pointee.wellFormed != 0 {
            return document
        }
        if let document { xmlFreeDoc(document) }
        report(LibXML2Error(context.pointee.lastError), in: source, diagnostics: diagnostics)
        return nil
    }

    /// Streams `source` through libxml2's SAX2 parser into `handler`, building no tree.
    /// - Returns: whether the document was well-formed (otherwise a located error was reported).
    static func stream(_ source: SourceFile, to handler: SAXHandler, diagnostics: DiagnosticEngine) -> Bool {
        guard precheck(source, allowsExternalDoctype: false, diagnostics: diagnostics) else { return false }
        let wellFormed = stream(source.bytes, to: handler)
        if handler.stopped || wellFormed { return true }
        if let error = handler.firstError ?? handler.lastError { report(error, in: source, diagnostics: diagnostics) }
        return false
    }

    /// Whether `source` passes the checks made before any parse (size, not empty, no document
    /// type declaration); reports nothing.
    static func isParseable(_ source: SourceFile) -> Bool {
        precheck(source, allowsExternalDoctype: false, diagnostics: DiagnosticEngine())
    }

    /// Streams `bytes` through libxml2's SAX2 parser into `handler`, with no checks before and no
    /// report after: whether the document was well-formed (the handler holds the first error).
    /// The bytes need not be a file of their own: `PartitionedParse` streams parts of one.
    static func stream(_ bytes: [UInt8], to handler: SAXHandler) -> Bool {
        _ = initialized
        let context: xmlParserCtxtPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                xmlCreateMemoryParserCtxt(pointer, Int32(buffer.count))
            }
        }
        guard let context else { preconditionFailure("libxml2 could not allocate a parser context") }
        defer {
            context.pointee.userData = nil
            xmlFreeParserCtxt(context)
        }
        var callbacks = xmlSAXHandler()
        callbacks.initialized = XML_SAX2_MAGIC
        callbacks.startElementNs = saxStartElement
        callbacks.endElementNs = saxEndElement
        callbacks.characters = saxCharacters
        callbacks.cdataBlock = saxCharacters
        context.pointee.sax.pointee = callbacks
        _ = xmlCtxtUseOptions(context, parseOptions)
        // libxml2's option handling may install default handlers; keep ours.
        context.pointee.sax.pointee.startElementNs = saxStartElement
        context.pointee.sax.pointee.endElementNs = saxEndElement
        context.pointee.sax.pointee.characters = saxCharacters
        context.pointee.sax.pointee.ignorableWhitespace = nil
        context.pointee.sax.pointee.serror = saxError
        handler.context = context
        let unmanaged = Unmanaged.passUnretained(handler)
        context.pointee.userData = unmanaged.toOpaque()
        _ = withExtendedLifetime(handler) { xmlParseDocument(context) }
        handler.context = nil
        if context.pointee.wellFormed != 0 { return true }
        handler.lastError = LibXML2Error(context.pointee.lastError)
        return false
    }

    private static func precheck(
        _ source: SourceFile, allowsExternalDoctype: Bool, diagnostics: DiagnosticEngine
    ) -> Bool {
        _ = initialized
        guard source.bytes.count <= maximumSize else {
            diagnostics.report(tooLarge, at: source.location(line: 1))
            return false
        }
        guard !source.bytes.isEmpty else {
            diagnostics.report(empty, at: source.location(line: 1))
            return false
        }
        if let offset = doctypeOffset(in: source.bytes),
            !allowsExternalDoctype || hasInternalSubset(source.bytes, doctypeAt: offset)
        {
            diagnostics.report(doctype, at: location(ofOffset: offset, in: source))
            return false
        }
        return true
    }

    private static func report(_ error: LibXML2Error, in source: SourceFile, diagnostics: DiagnosticEngine) {
        diagnostics.report(malformed(error.message), at: source.location(line: error.line, column: error.column))
    }

    /// The offset of `<!DOCTYPE` in the prolog, if any. The prolog ends at the first `<` that
    /// starts neither a processing instruction nor a comment nor a declaration.
    private static func doctypeOffset(in bytes: [UInt8]) -> Int? {
        let needle = Array("<!DOCTYPE".utf8)
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            var index = 0
            while index < buffer.count {
                if buffer[index] == 0x3C {  // <
                    let next = index + 1 < buffer.count ? buffer[index + 1] : 0
                    if next == 0x21 {  // <!
                        if index + needle.count <= buffer.count,
                            buffer[index..<index + needle.count].elementsEqual(needle)
                        {
                            return index
                        }
                    } else if next != 0x3F {  // not <?: the root element starts, the prolog is over
                        return nil
                    }
                }
                index += 1
            }
            return nil
        }
    }

    /// Whether the declaration at `offset` has an internal subset (`[ … ]`), where entities live.
    private static func hasInternalSubset(_ bytes: [UInt8], doctypeAt offset: Int) -> Bool {
        // `[` opens it; `>` ends a declaration without one; an unended declaration is refused.
        guard let end = bytes.firstOutsideQuotes(from: offset, where: { $0 == 0x5B || $0 == 0x3E }) else { return true }
        return bytes[end] == 0x5B
    }

    private static func location(ofOffset offset: Int, in source: SourceFile) -> SourceLocation {
        var line = 1
        var lineStart = 0
        for index in 0..<offset where source.bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return source.location(line: line, column: offset - lineStart + 1)
    }
}

/// An error libxml2 raised, as a diagnostic needs it.
struct LibXML2Error {
    var message: String
    var line: Int
    var column: Int

    init(_ error: xmlError) {
        message = (error.message.map { String(cString: $0) } ?? "the document is not well-formed")
            .trimmingTrailingWhitespace()
        line = error.line > 0 ? Int(error.line) : 1
        column = error.int2 > 0 ? Int(error.int2) : 1
    }
}

/// Receives the SAX events of one document.
class SAXHandler {
    /// The parser, while a parse runs (for the current line and for stopping).
    var context: xmlParserCtxtPtr?
    /// Set when the handler stopped the parse on purpose (it reported why).
    private(set) var stopped = false
    /// The first error libxml2 raised: the cause, where later errors are often consequences.
    var firstError: LibXML2Error?
    /// libxml2's last error, when the document was not well-formed.
    var lastError: LibXML2Error?
    /// Added to libxml2's line numbers: the lines that come before the bytes being parsed, when
    /// they are a part of a file (`PartitionedParse`).
    var lineOffset = 0

    /// The line libxml2 is on: for a start tag, the line on which the tag ends.
    var currentLine: Int {
        guard let input = context?.pointee.input else { return 1 }
        return Int(input.pointee.line) + lineOffset
    }

    /// The offset in the parsed bytes that libxml2 has read up to: for a start tag, just past it.
    var currentOffset: Int {
        guard let input = context?.pointee.input, let base = input.pointee.base, let current = input.pointee.cur else {
            return -1
        }
        return Int(input.pointee.consumed) + base.distance(to: current)
    }

    func stop() {
        stopped = true
        if let context { xmlStopParser(context) }
    }

    /// Whether libxml2 has met a fatal error; the events it may still deliver afterwards are
    /// noise, so handlers stop the parse when they see one.
    var hasFailed: Bool { (context?.pointee.wellFormed ?? 1) == 0 }

    /// Ends a parse that already failed; the failure is reported by the reader.
    func abandon() {
        if let context { xmlStopParser(context) }
    }

    func startElement(_ name: String, _ attributes: SAXAttributes, line: Int) {}
    func endElement() {}
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}
}

private func handler(_ userData: UnsafeMutableRawPointer?) -> SAXHandler? {
    guard let userData else { return nil }
    return Unmanaged<SAXHandler>.fromOpaque(userData).takeUnretainedValue()
}

private let saxStartElement: startElementNsSAX2Func = { userData, name, _, _, _, _, count, _, attributes in
    guard let handler = handler(userData), let name else { return }
    handler.startElement(
        SAXAttributes.string(name), SAXAttributes(base: attributes, count: Int(count)), line: handler.currentLine)
}

private let saxError: xmlStructuredErrorFunc = { userData, error in
    guard let handler = handler(userData), let error, handler.firstError == nil,
        error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue
    else { return }
    handler.firstError = LibXML2Error(error.pointee)
}

private let saxEndElement: endElementNsSAX2Func = { userData, _, _, _ in
    handler(userData)?.endElement()
}

private let saxCharacters: charactersSAXFunc = { userData, bytes, count in
    guard let handler = handler(userData), let bytes, count > 0 else { return }
    handler.characters(UnsafeBufferPointer(start: bytes, count: Int(count)))
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
