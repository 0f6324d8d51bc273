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

    /// Renders `program` against `tree` from its root.
    mutating func render(_ program: MustacheProgram, tree: MustacheTree, into output: inout TextBuffer) {
        var stack = [tree.root.index]
        render(program, 0..<program.instructions.count, tree: tree, stack: &stack, into: &output)
    }

    /// Renders the instructions `range` of `program` with `stack` (the contexts, as nodes of
    /// `tree`, innermost last) pushed and popped in place, appending UTF-8 to `output` (bytes, not
    /// a `String`: a file is thousands of appends).
    mutating func render(
        _ program: MustacheProgram, _ range: Range<Int>, tree: MustacheTree, stack: inout [Int],
        into output: inout TextBuffer
    ) {
        var position = range.lowerBound
        while position < range.upperBound {
            guard nodesLeft > 0 else {
                limitReached = true
                return
            }
            nodesLeft -= 1
            let instruction = program.instructions[position]
            position += 1
            switch instruction.operation {
            case .text:
                program.text.withUnsafeBufferPointer {
                    output.write($0.baseAddress! + instruction.first, instruction.count)
                }
            case .variable, .escapedVariable:
                // A lookup walks the context stack: charge its depth to the work bound.
                nodesLeft -= stack.count
                if let value = Self.lookup(program.names, instruction.first, instruction.count, in: stack, of: tree) {
                    tree.appendText(
                        value, escapingHTML: instruction.operation == .escapedVariable && escapingHTML, to: &output)
                }
            case .section, .invertedSection:
                nodesLeft -= stack.count
                let children = position..<instruction.end
                position = instruction.end
                let value = Self.lookup(program.names, instruction.first, instruction.count, in: stack, of: tree)
                if instruction.operation == .invertedSection {
                    if !tree.isTruthy(value) { render(program, children, tree: tree, stack: &stack, into: &output) }
                    continue
                }
                guard let value, tree.isTruthy(value) else { continue }
                let found = tree.nodes[value]
                if found.kind == .list {
                    for item in found.start..<found.start + found.count {
                        stack.append(tree.items[item])
                        render(program, children, tree: tree, stack: &stack, into: &output)
                        stack.removeLast()
                    }
                } else {
                    stack.append(value)
                    render(program, children, tree: tree, stack: &stack, into: &output)
                    stack.removeLast()
                }
            case .partial:
                guard depth < Self.maximumDepth, expansionsLeft > 0 else {
                    limitReached = true
                    continue
                }
                let tag = program.partials[instruction.first]
                guard let template = partial(tag.name, indentation: tag.indentation) else { continue }
                expansionsLeft -= 1
                depth += 1
                render(
                    template.program, 0..<template.program.instructions.count, tree: tree, stack: &stack, into: &output)
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

    /// Resolves the dotted name `names[first..<first + count]`: the first part up the context
    /// stack, the rest inside what it found; `nil` when it is missing.
    static func lookup(_ names: [Int32], _ first: Int, _ count: Int, in stack: [Int], of tree: MustacheTree) -> Int? {
        guard count > 0 else { return stack.last }  // `.`: the current context
        var found: Int? = nil
        var index = stack.count
        while index > 0 {
            index -= 1
            if let value = tree.member(names[first], of: stack[index]) {
                found = value
                break
            }
        }
        guard var current = found else { return nil }
        for part in first + 1..<first + count {
            guard let next = tree.member(names[part], of: current) else { return nil }
            current = next
        }
        return current
    }
}
