extension String {
    /// This text made safe for a one-line comment in generated code: line breaks and other
    /// control characters (a model file's name may hold them) become `\u{…}` escapes, so nothing
    /// after them can leave the comment.
    var commentSafe: String { NameRules.printable(self) }
}
