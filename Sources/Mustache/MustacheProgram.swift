/// A compiled template laid out flat for rendering: one array of instructions, a section's
/// children right after it, literal text and names in two shared buffers. Rendering reads
/// instructions by index, with no reference counting per node (an enum of nested arrays retains
/// and releases each node's payload whenever it is matched).
struct MustacheProgram: Sendable {
    enum Operation: UInt8, Sendable {
        /// Copies `text[first..<first + count]`.
        case text
        /// Interpolates the name `names[first..<first + count]`; `escaped` for `{{name}}`.
        case variable, escapedVariable
        /// A section over that name; its children are the instructions up to `end`.
        case section, invertedSection
        /// Includes `partials[first]`.
        case partial
    }

    struct Instruction: Sendable {
        var operation: Operation
        var first: Int
        var count: Int
        /// For a section: the index after its last child.
        var end: Int
    }

    private(set) var instructions: [Instruction] = []
    private(set) var text: [UInt8] = []
    /// Dotted names, as `MustacheKey` numbers part after part (none for `.`).
    private(set) var names: [Int32] = []
    /// Partial tags: the partial's name and the indentation of a standalone tag.
    private(set) var partials: [(name: String, indentation: String)] = []

    init(_ nodes: [MustacheTemplate.Node]) {
        append(nodes)
    }

    private mutating func append(_ nodes: [MustacheTemplate.Node]) {
        for node in nodes {
            switch node {
            case .text(let bytes):
                instructions.append(Instruction(operation: .text, first: text.count, count: bytes.count, end: 0))
                text += bytes
            case .variable(let path, let escaped):
                instructions.append(
                    Instruction(
                        operation: escaped ? .escapedVariable : .variable, first: names.count, count: path.count, end: 0
                    ))
                names += path
            case .section(let path, let children, let inverted):
                let position = instructions.count
                instructions.append(
                    Instruction(
                        operation: inverted ? .invertedSection : .section, first: names.count, count: path.count, end: 0
                    ))
                names += path
                append(children)
                instructions[position].end = instructions.count
            case .partial(let name, let indentation):
                instructions.append(Instruction(operation: .partial, first: partials.count, count: 0, end: 0))
                partials.append((name, indentation))
            }
        }
    }
}
