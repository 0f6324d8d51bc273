extension String {
    /// This text made safe for a one-line comment in generated code or a diagnostic: line breaks
    /// and other control characters (a model file's name may hold them) become `\u{…}` escapes,
    /// so nothing after them can leave the line.
    var commentSafe: String {
        var text = ""
        for scalar in unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                text += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
