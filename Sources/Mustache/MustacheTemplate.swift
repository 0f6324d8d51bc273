/// A parse error in a template: what is wrong and the byte offset.
public struct MustacheError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public var description: String { "\(message) (at offset \(offset))" }
}

/// A compiled Mustache template (the logic-less subset modelgen uses: variables, sections,
/// inverted sections, comments, partials and set-delimiter tags; no lambdas), following the
/// official specification including its standalone-line rules.
///
/// ```swift
/// let template = try MustacheTemplate("Hello {{name}}!")
/// template.render(["name": "Ada"])  // "Hello Ada!"
/// ```
public struct MustacheTemplate: Sendable {
    indirect enum Node: Sendable {
        /// Literal text, as the UTF-8 bytes rendering copies out.
        case text([UInt8])
        /// `path`: the dotted name's parts, as `MustacheKey` numbers.
        case variable(path: [Int32], escaped: Bool)
        case section(path: [Int32], nodes: [Node], inverted: Bool)
        case partial(name: String, indentation: String)
    }

    let program: MustacheProgram

    /// Compiles `source`.
    /// - Throws: `MustacheError` for unclosed tags or sections, mismatched closes and bad delimiters.
    public init(_ source: String) throws(MustacheError) {
        var parser = MustacheParser(source)
        program = MustacheProgram(try parser.parse())
    }

    /// Renders the template with `context`; `partials` supplies the source of `{{> name}}` partials
    /// (a missing partial renders as nothing).
    /// `escapingHTML: false` prints variables as they are (for generating code, not HTML).
    public func render(_ context: MustacheValue, partials: [String: String] = [:], escapingHTML: Bool = true) -> String
    {
        render(context, partials: MustachePartials(partials), escapingHTML: escapingHTML)
    }

    /// Renders with a set of partials that keeps them compiled across renders. Rendering is
    /// bounded (partial nesting 200, partial expansions 10,000, nodes 2,000,000); past a bound the
    /// rest is left out — `renderChecked` reports that instead.
    public func render(_ context: MustacheValue, partials: MustachePartials, escapingHTML: Bool = true) -> String {
        var renderer = MustacheRenderer(partials: partials, escapingHTML: escapingHTML)
        var output = TextBuffer()
        renderer.render(program, tree: MustacheTree(context), into: &output)
        return output.text
    }

    /// Renders like `render`, but throws when a bound cut the output short (a partial that keeps
    /// including itself, or data that makes the output explode).
    /// `reservingCapacity`: the expected size of the output in bytes (growing a large output step
    /// by step copies it several times).
    public func renderChecked(
        _ context: MustacheValue, partials: MustachePartials, escapingHTML: Bool = true,
        reservingCapacity capacity: Int = 0
    ) throws(MustacheError) -> String {
        String(
            decoding: try renderBytes(
                context, partials: partials, escapingHTML: escapingHTML, reservingCapacity: capacity), as: UTF8.self)
    }

    /// `renderChecked`'s output as UTF-8 bytes, for output that is written to a file (making a
    /// `String` of it is a copy).
    public func renderBytes(
        _ context: MustacheValue, partials: MustachePartials, escapingHTML: Bool = true,
        reservingCapacity capacity: Int = 0
    ) throws(MustacheError) -> [UInt8] {
        try renderBytes(
            MustacheTree(context), partials: partials, escapingHTML: escapingHTML, reservingCapacity: capacity)
    }

    /// `renderBytes` with a context built as a tree (what a large context should be: see
    /// `MustacheTree`).
    public func renderBytes(
        _ context: MustacheTree, partials: MustachePartials, escapingHTML: Bool = true,
        reservingCapacity capacity: Int = 0
    ) throws(MustacheError) -> [UInt8] {
        var renderer = MustacheRenderer(partials: partials, escapingHTML: escapingHTML)
        var output = TextBuffer(capacity: capacity)
        renderer.render(program, tree: context, into: &output)
        if renderer.limitReached {
            throw MustacheError(
                message:
                    "rendering stopped at a bound (partials nested over 200 deep, over 10,000 partial expansions or 2,000,000 nodes): is a partial including itself?",
                offset: 0)
        }
        return output.takeBytes()
    }
}

/// Partial templates by name, compiled on first use and kept for later renders.
public final class MustachePartials {
    let sources: [String: String]
    /// Compiled partials by indentation and name.
    var compiled: [String: MustacheTemplate] = [:]

    public init(_ sources: [String: String]) {
        self.sources = sources
    }
}
