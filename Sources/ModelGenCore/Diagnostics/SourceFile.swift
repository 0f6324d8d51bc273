#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of one input file and the means to turn a line (as libxml2 reports it) and a name
/// into a full `SourceLocation`.
///
/// Columns are found lazily, only when a diagnostic needs one: the parser keeps a line per element
/// and the column of an attribute or element is looked up in the source text of that line.
public final class SourceFile: Sendable {
    /// The path exactly as it was given; used verbatim in diagnostics.
    public let path: String
    public let bytes: [UInt8]
    /// Byte offsets at which each line starts (index 0 is line 1).
    private let lineStarts: [Int]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        starts.reserveCapacity(bytes.count / 48 + 1)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count, let hit = memchr(base + offset, 0x0A, buffer.count - offset) {
                let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                starts.append(index + 1)
                offset = index + 1
            }
        }
        self.lineStarts = starts
    }

    public var lineCount: Int { lineStarts.count }

    /// The 1-based line that starts at byte `offset`, or `nil` when no line starts there.
    func line(startingAt offset: Int) -> Int? {
        var low = 0
        var high = lineStarts.count
        while low < high {
            let middle = (low + high) / 2
            if lineStarts[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < lineStarts.count && lineStarts[low] == offset ? low + 1 : nil
    }

    /// A location at a known line and column.
    public func location(line: Int, column: Int = 1) -> SourceLocation {
        SourceLocation(file: path, line: max(line, 1), column: max(column, 1))
    }

    /// The location of the attribute `name` (`name="…"`) of the element that libxml2 placed on `line`.
    ///
    /// libxml2 reports the line on which a start tag ends, so a tag spread over several lines is
    /// searched backwards from there.
    public func location(line: Int, attribute name: String) -> SourceLocation {
        locate(
            line: line, needle: Array(name.utf8), followedBy: Self.equalsSign, precededBy: Self.whitespace, offset: 0)
    }

    /// The location of the start tag `<name` of the element that libxml2 placed on `line`.
    public func location(line: Int, element name: String) -> SourceLocation {
        locate(line: line, needle: Array(("<" + name).utf8), followedBy: Self.tagNameEnd, precededBy: nil, offset: 0)
    }

    /// The location of the first occurrence of `text` on `line` (column 1 when absent).
    public func location(line: Int, text: [UInt8]) -> SourceLocation {
        guard let range = byteRange(ofLine: line),
            let hit = firstMatch(of: text, in: range, followedBy: nil, precededBy: nil)
        else { return location(line: line) }
        return SourceLocation(file: path, line: line, column: hit - range.lowerBound + 1)
    }

    /// The location of the value of attribute `name`, advanced by `offset` bytes into the value.
    public func location(line: Int, attributeValue name: String, offset: Int) -> SourceLocation {
        let attribute = location(line: line, attribute: name)
        guard attribute.column > 1 || lineHas(attribute.line, Array(name.utf8)) else { return attribute }
        // name="value: the value starts after the name, `=` and the quote.
        return SourceLocation(file: path, line: attribute.line, column: attribute.column + name.utf8.count + 2 + offset)
    }

    /// The text of a 1-based line, without its line break.
    public func text(ofLine line: Int) -> String {
        guard let range = byteRange(ofLine: line) else { return "" }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    // Made once: a set literal at the call would build a set per lookup (one per attribute of a
    // model, when lowering records where each column comes from).
    private static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
    private static let equalsSign: Set<UInt8> = [0x3D]
    /// What may follow an element name in a tag: whitespace, `/` or `>`.
    private static let tagNameEnd: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x2F, 0x3E]

    private func byteRange(ofLine line: Int) -> Range<Int>? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return start..<max(start, end)
    }

    private func lineHas(_ line: Int, _ needle: [UInt8]) -> Bool {
        guard let range = byteRange(ofLine: line) else { return false }
        return firstMatch(of: needle, in: range, followedBy: nil, precededBy: nil) != nil
    }

    private func locate(
        line: Int,
        needle: [UInt8],
        followedBy: Set<UInt8>?,
        precededBy: Set<UInt8>?,
        offset: Int
    ) -> SourceLocation {
        // Search the reported line first, then up to 64 lines above it (multi-line start tags).
        var current = min(max(line, 1), max(lineStarts.count, 1))
        let lowest = max(1, current - 64)
        while current >= lowest {
            if let range = byteRange(ofLine: current),
                let hit = firstMatch(of: needle, in: range, followedBy: followedBy, precededBy: precededBy)
            {
                return SourceLocation(file: path, line: current, column: hit - range.lowerBound + 1 + offset)
            }
            current -= 1
        }
        return SourceLocation(file: path, line: max(line, 1), column: 1)
    }

    private func firstMatch(
        of needle: [UInt8],
        in range: Range<Int>,
        followedBy: Set<UInt8>?,
        precededBy: Set<UInt8>?
    ) -> Int? {
        guard !needle.isEmpty, range.count >= needle.count else { return nil }
        var index = range.lowerBound
        while index + needle.count <= range.upperBound {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) {
                let after = index + needle.count
                let followOK = followedBy.map { after < range.upperBound && $0.contains(bytes[after]) } ?? true
                let precedeOK = precededBy.map { index > range.lowerBound && $0.contains(bytes[index - 1]) } ?? true
                if followOK && precedeOK { return index }
            }
            index += 1
        }
        return nil
    }
}
