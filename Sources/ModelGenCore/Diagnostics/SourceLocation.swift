/// A position in a source file: the path exactly as it was given, a 1-based line and a 1-based column.
public struct SourceLocation: Hashable, Sendable, Codable, Comparable {
    /// The file's path, as the user (or the plugin) spelled it.
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column, counted in bytes of UTF-8.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }

    /// `file:line:column`, the prefix of a rendered diagnostic.
    public var rendered: String { "\(file):\(line):\(column)" }
}
