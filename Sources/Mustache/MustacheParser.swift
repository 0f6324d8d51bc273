/// Turns template text into nodes: tokenizes tags (honouring set-delimiter tags), applies the
/// specification's standalone-line rule, then nests sections.
struct MustacheParser {
    enum Kind {
        case variable, unescaped, comment, sectionOpen, invertedOpen, sectionClose, partial, delimiters

        /// Tags that vanish with their line when they stand alone on it.
        var canStandAlone: Bool {
            switch self {
            case .variable, .unescaped: false
            default: true
            }
        }
    }

    struct Tag {
        var kind: Kind
        var content: String
        var offset: Int
    }

    enum Piece {
        case text(Range<Int>)
        case tag(Tag)
    }

    private let bytes: [UInt8]

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    mutating func parse() throws(MustacheError) -> [MustacheTemplate.Node] {
        var pieces = try tokenize()
        let indentations = applyStandaloneRule(&pieces)
        return try nest(pieces, indentations: indentations)
    }

    // MARK: - Tokens

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    private func tokenize() throws(MustacheError) -> [Piece] {
        var open = Array("{{".utf8)
        var close = Array("}}".utf8)
        var pieces: [Piece] = []
        var index = 0
        while index < bytes.count {
            guard let start = find(open, from: index) else {
                pieces.append(.text(index..<bytes.count))
                break
            }
            if start > index { pieces.append(.text(index..<start)) }
            var cursor = start + open.count
            let sigil = cursor < bytes.count ? bytes[cursor] : 0
            var kind = Kind.variable
            var closing = close
            switch sigil {
            case UInt8(ascii: "!"): kind = .comment
            case UInt8(ascii: "#"): kind = .sectionOpen
            case UInt8(ascii: "^"): kind = .invertedOpen
            case UInt8(ascii: "/"): kind = .sectionClose
            case UInt8(ascii: ">"): kind = .partial
            case UInt8(ascii: "&"): kind = .unescaped
            case UInt8(ascii: "{"):
                kind = .unescaped
                closing = Array("}".utf8) + close
            case UInt8(ascii: "="):
                kind = .delimiters
                closing = Array("=".utf8) + close
            default: break
            }
            if kind != .variable { cursor += 1 }
            guard let end = find(closing, from: cursor) else {
                throw MustacheError(message: "unclosed tag", offset: start)
            }
            let content = Self.trimmed(bytes[cursor..<end])
            index = end + closing.count
            if kind == .delimiters {
                let parts = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard parts.count == 2, !parts[0].contains("="), !parts[1].contains("=") else {
                    throw MustacheError(message: "invalid set-delimiter tag", offset: start)
                }
                open = Array(parts[0].utf8)
                close = Array(parts[1].utf8)
            }
            pieces.append(.tag(Tag(kind: kind, content: content, offset: start)))
        }
        return pieces
    }

    // MARK: - Standalone lines

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Removes the whitespace and line break around tags that stand alone on their line, and
    /// returns the indentation of each standalone partial (by piece index).
    private func applyStandaloneRule(_ pieces: inout [Piece]) -> [Int: String] {
        var trims: [(piece: Int, newStart: Int?, newEnd: Int?)] = []
        var indentations: [Int: String] = [:]
        for (position, piece) in pieces.enumerated() {
            guard case .tag(let tag) = piece, tag.kind.canStandAlone else { continue }
            // The line must start here or with blanks only.
            var lineStart: Int?
            if position == 0 {
                lineStart = nil
            } else if case .text(let range) = pieces[position - 1] {
                var cursor = range.upperBound
                while cursor > range.lowerBound, Self.isBlank(bytes[cursor - 1]) { cursor -= 1 }
                if cursor == range.lowerBound {
                    guard position - 1 == 0 else { continue }  // blanks only, but a tag precedes them
                } else if bytes[cursor - 1] != 0x0A {
                    continue
                }
                lineStart = cursor
            } else {
                continue
            }
            // The line must end here, with blanks only before its break (or the end).
            var lineEnd: Int?
            if position + 1 < pieces.count {
                guard case .text(let range) = pieces[position + 1] else { continue }
                var cursor = range.lowerBound
                while cursor < range.upperBound, Self.isBlank(bytes[cursor]) { cursor += 1 }
                if cursor < range.upperBound {
                    if bytes[cursor] == 0x0A {
                        cursor += 1
                    } else if bytes[cursor] == 0x0D, cursor + 1 < range.upperBound, bytes[cursor + 1] == 0x0A {
                        cursor += 2
                    } else {
                        continue
                    }
                } else if position + 1 != pieces.count - 1 {
                    continue
                }
                lineEnd = cursor
            }
            if let lineStart, case .text(let range) = pieces[position - 1] {
                trims.append((position - 1, nil, lineStart))
                if tag.kind == .partial {
                    indentations[position] = String(decoding: bytes[lineStart..<range.upperBound], as: UTF8.self)
                }
            }
            if let lineEnd { trims.append((position + 1, lineEnd, nil)) }
        }
        for trim in trims {
            guard case .text(let range) = pieces[trim.piece] else { continue }
            var lower = range.lowerBound
            var upper = range.upperBound
            if let newStart = trim.newStart { lower = max(lower, newStart) }
            if let newEnd = trim.newEnd { upper = min(upper, newEnd) }
            pieces[trim.piece] = .text(lower..<max(lower, upper))
        }
        return indentations
    }

    // MARK: - Nesting

    private func nest(_ pieces: [Piece], indentations: [Int: String]) throws(MustacheError) -> [MustacheTemplate.Node] {
        var stack: [(tag: Tag?, nodes: [MustacheTemplate.Node])] = [(nil, [])]
        for (position, piece) in pieces.enumerated() {
            switch piece {
            case .text(let range):
                if !range.isEmpty { stack[stack.count - 1].nodes.append(.text(Array(bytes[range]))) }
            case .tag(let tag):
                switch tag.kind {
                case .comment, .delimiters:
                    break
                case .variable, .unescaped:
                    stack[stack.count - 1].nodes.append(
                        .variable(path: Self.path(tag.content), escaped: tag.kind == .variable))
                case .partial:
                    stack[stack.count - 1].nodes.append(
                        .partial(name: tag.content, indentation: indentations[position] ?? ""))
                case .sectionOpen, .invertedOpen:
                    stack.append((tag, []))
                case .sectionClose:
                    guard stack.count > 1, let open = stack.last?.tag, open.content == tag.content else {
                        throw MustacheError(
                            message: "closing tag '\(tag.content)' does not match an open section", offset: tag.offset)
                    }
                    let section = stack.removeLast()
                    stack[stack.count - 1].nodes.append(
                        .section(
                            path: Self.path(open.content), nodes: section.nodes, inverted: open.kind == .invertedOpen))
                }
            }
        }
        if stack.count > 1, let open = stack.last?.tag {
            throw MustacheError(message: "section '\(open.content)' is not closed", offset: open.offset)
        }
        return stack[0].nodes
    }

    /// A dotted name's parts as keys (none for `.`, the current context).
    private static func path(_ name: String) -> [Int32] {
        name == "."
            ? [] : name.split(separator: ".", omittingEmptySubsequences: false).map { MustacheKey(String($0)).id }
    }
}
