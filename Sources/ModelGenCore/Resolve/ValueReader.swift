/// Reads the textual values of the XML (booleans, integers, numbers, dates) and reports the ones
/// that cannot be read.
struct ValueReader {
    let source: SourceFile
    let diagnostics: DiagnosticEngine

    static func invalidBoolean(_ name: String, _ value: String) -> DiagnosticMessage {
        DiagnosticMessage("invalid-boolean", .warning, "'\(value)' is not a boolean for '\(name)'; treated as NO")
    }
    static func invalidInteger(_ name: String, _ value: String) -> DiagnosticMessage {
        DiagnosticMessage("invalid-number", .error, "'\(value)' is not a valid number for '\(name)'")
    }

    /// `YES`/`NO`, `true`/`false`, `1`/`0` in any case; absent means NO.
    func bool(_ value: String?, _ name: String, line: Int) -> Bool {
        guard let value else { return false }
        if let parsed = Self.parseBool(value) { return parsed }
        diagnostics.report(Self.invalidBoolean(name, value), at: source.location(line: line, attribute: name))
        return false
    }

    /// Like `bool`, but keeps "absent" apart from NO.
    func optionalBool(_ value: String?, _ name: String, line: Int) -> Bool? {
        guard value != nil else { return nil }
        return bool(value, name, line: line)
    }

    static func parseBool(_ value: String) -> Bool? {
        if value == "YES" { return true }  // what Xcode writes; the fast path
        if value == "NO" { return false }
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0", "": return false
        default: return nil
        }
    }

    /// A non-negative integer attribute (counts, limits); reports an error when unreadable.
    func count(_ value: String?, _ name: String, line: Int) -> Int? {
        guard let value else { return nil }
        if let parsed = Int(value.trimmingCharacters(in: " \t")), parsed >= 0 { return parsed }
        diagnostics.report(Self.invalidInteger(name, value), at: source.location(line: line, attribute: name))
        return nil
    }

    /// Parses an integer written as `12`, `-1` or `12.0`.
    static func parseInteger(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: " \t")
        if let value = Int64(trimmed) { return value }
        if let value = Double(trimmed), value.rounded() == value, abs(value) < 9.2e18 { return Int64(value) }
        return nil
    }

    static func parseDouble(_ text: String) -> Double? {
        Double(text.trimmingCharacters(in: " \t"))
    }

    /// Whether `text` is a UUID in its canonical 8-4-4-4-12 hexadecimal form.
    static func isUUID(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != 0x2D { return false }
            } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46)
                || (byte >= 0x61 && byte <= 0x66))
            {
                return false
            }
        }
        return true
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        // Fast path: nothing to trim (the common case for values Xcode writes).
        if let first = utf8.first, let last = utf8.last, !set.utf8.contains(first), !set.utf8.contains(last) {
            return self
        }
        let characters = Set(set)
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
