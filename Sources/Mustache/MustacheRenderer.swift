/// Renders compiled nodes against a stack of contexts.
struct MustacheRenderer {
    let partials: MustachePartials
    let escapingHTML: Bool
    /// Partial nesting depth, bounded so a recursive partial over cyclic data cannot run away.
    private var depth = 0
    static let maximumDepth = 200
    /// Partial expansions left for this render: a partial that includes itself inside a list
    /// branches at every level, so depth alone does not bound the work.
    private var expansionsLeft = 10_000
    /// Work left in this render (a node is 1, a lookup the depth of the context stack): a bound
    /// whatever the data and partials (generated code uses a few tens of thousands per file).
    private var nodesLeft = 2_000_000
    /// Set when a bound stopped part of the output.
    private(set) var limitReached = false

    init(partials: MustachePartials, escapingHTML: Bool) {
        self.partials = partials
        self.escapingHTML = escapingHTML
    }

    mutating func render(_ nodes: [MustacheTemplate.Node], stack: [MustacheValue], into output: inout [UInt8]) {
        var stack = stack
        render(nodes, stack: &stack, into: &output)
    }

    /// Renders with `stack` pushed and popped in place (no copy per section item), appending UTF-8
    /// to `output` (bytes, not a `String`: appending to a string checks and tracks more per call,
    /// and a file is thousands of appends).
    mutating func render(_ nodes: [MustacheTemplate.Node], stack: inout [MustacheValue], into output: inout [UInt8]) {
        for node in nodes {
            guard nodesLeft > 0 else {
                limitReached = true
                return
            }
            nodesLeft -= 1
            switch node {
            case .text(let bytes):
                output.append(contentsOf: bytes)
            case .variable(let path, let escaped):
                // A lookup walks the context stack: charge its depth to the work bound.
                nodesLeft -= stack.count
                var text = Self.lookup(path, in: stack).text
                if escaped && escapingHTML { text = Self.escapeHTML(text) }
                // Copied from the string's contiguous UTF-8 (a generic append walks the view).
                text.withUTF8 { output.append(contentsOf: $0) }
            case .section(let path, let children, let inverted):
                nodesLeft -= stack.count
                let value = Self.lookup(path, in: stack)
                if inverted {
                    if !value.isTruthy { render(children, stack: &stack, into: &output) }
                    continue
                }
                guard value.isTruthy else { continue }
                if case .list(let items) = value {
                    for item in items {
                        stack.append(item)
                        render(children, stack: &stack, into: &output)
                        stack.removeLast()
                    }
                } else {
                    stack.append(value)
                    render(children, stack: &stack, into: &output)
                    stack.removeLast()
                }
            case .partial(let name, let indentation):
                guard depth < Self.maximumDepth, expansionsLeft > 0 else {
                    limitReached = true
                    continue
                }
                guard let template = partial(name, indentation: indentation) else { continue }
                expansionsLeft -= 1
                depth += 1
                render(template.nodes, stack: &stack, into: &output)
                depth -= 1
            }
        }
    }

    /// A partial, compiled once per indentation: a standalone partial tag indents every line of
    /// the partial's template (not the data interpolated into it).
    private mutating func partial(_ name: String, indentation: String) -> MustacheTemplate? {
        let key = indentation + "\u{0}" + name
        if let cached = partials.compiled[key] { return cached }
        guard let source = partials.sources[name] else { return nil }
        let indented = indentation.isEmpty ? source : Self.indent(source, with: indentation)
        guard let template = try? MustacheTemplate(indented) else { return nil }
        partials.compiled[key] = template
        return template
    }

    static func indent(_ source: String, with indentation: String) -> String {
        var result = ""
        var atLineStart = true
        for character in source {
            if atLineStart {
                result += indentation
                atLineStart = false
            }
            result.append(character)
            if character == "\n" { atLineStart = true }
        }
        return result
    }

    /// Resolves a dotted name: the first part up the context stack, the rest inside what it found.
    static func lookup(_ path: [String], in stack: [MustacheValue]) -> MustacheValue {
        guard let first = path.first else { return stack.last ?? .null }  // `.`: the current context
        // Through the buffer, innermost context first: no copy (retain and release) of each
        // context passed over.
        let value: MustacheValue? = stack.withUnsafeBufferPointer { contexts in
            var index = contexts.count
            while index > 0 {
                index -= 1
                if case .object(let members) = contexts[index], let found = members[first] { return found }
            }
            return nil
        }
        guard var current = value else { return .null }
        for part in path.dropFirst() {
            guard case .object(let members) = current, let next = members[part] else { return .null }
            current = next
        }
        return current
    }

    static func escapeHTML(_ text: String) -> String {
        // Checked on bytes: the four characters are ASCII, and never part of another character.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") })
        else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
