import Mustache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Spelling Swift: identifiers that must be back-quoted, string literals, type names that must be
/// qualified because a generated class took the plain name.
enum SwiftNames {
    /// Words that cannot be used as a plain identifier in a declaration or expression.
    static let keywords: WordSet = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "as", "Any", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_", "Type", "Protocol",
        "await", "async", "consume", "borrowing", "consuming", "copy", "discard", "each", "some", "any",
    ]

    /// Names a generated class may not take (they are members or types the generated code and the
    /// runtime rely on); such an entity's class gets the suffix `Entity`.
    static let reservedTypeNames: WordSet = [
        "Any", "AnyObject", "Self", "Type", "Protocol", "ManagedObject", "ObjectContext", "PersistentStore",
        "FetchRequest", "ObjectPredicate", "ObjectSortDescriptor", "SortedArray", "Statement", "EntityDescription",
        "AttributeDescription", "RelationshipDescription", "DatabaseError", "ObjectID", "GeneratedEntity",
        "ModelGenRuntime", "Foundation", "Swift", "ColumnValue", "Connection", "StoreDialect", "DeletionRule",
        "FetchableObject",
        "GeneratedCodeVersion_0_2", "MergePolicy", "ValueType", "ObjectLifecycle", "ObjectsDidChange",
        "ObservationHandle",
        "ObservedResults", "ObservedResultsSequence", "ResultPosition", "ResultsChanges", "ResultsObservation",
        "ResultsSection",
        "SQLTraceEvent", "StoreChange", "ValueCoding", "ValueConversion", "ValueTransformers", "Aggregate",
        "AggregateCondition", "BatchedResults", "BatchValue", "CoreDataCompiledModel", "CoreDataStoreInspection",
        "CoreDataStoreReport",
        "ResultColumn", "ResultRow", "ResultTerm", "ValueColumn",
        "StoreExecutor", "UniquenessConstraint", "ValuesRequest",
    ]

    /// Member names of `ManagedObject` a property may not take; such a property gets a trailing `_`.
    static let reservedMembers: WordSet = [
        "objectID", "context", "hasChanges", "hashValue", "entityDescription", "init", "deinit", "Type",
        "observationRegistrar", "modelGenValuesDidChange", "modelGenRelationshipDidChange",
    ]

    /// `name` as an identifier: back-quoted when it is a keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        guard text.hasByteNeedingEscape(includingDelete: true) else { return quoted(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 2)
        appendEscapedLiteral(text, to: &result)
        return result
    }

    /// `literal(text)` appended to `output`.
    static func appendLiteral(_ text: String, to output: inout TextBuffer) {
        guard text.hasByteNeedingEscape(includingDelete: true) else {
            output.append(byte: UInt8(ascii: "\""))
            output.append(string: text)
            output.append(byte: UInt8(ascii: "\""))
            return
        }
        var escaped = ""
        appendEscapedLiteral(text, to: &escaped)
        output.append(string: escaped)
    }

    /// `"text"` for text that needs no escape, made in one step (a name is usually short enough
    /// to be stored inline, so this allocates nothing; three appends cost several times more).
    private static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { utf8 in
            String(unsafeUninitializedCapacity: utf8.count + 2) { buffer in
                buffer[0] = UInt8(ascii: "\"")
                if let base = utf8.baseAddress { (buffer.baseAddress! + 1).initialize(from: base, count: utf8.count) }
                buffer[utf8.count + 1] = UInt8(ascii: "\"")
                return utf8.count + 2
            }
        }
    }

    /// The literal of `text`, which has characters to escape.
    private static func appendEscapedLiteral(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\0": output += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    output += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    /// A raw multi-line string literal holding `text` exactly: more `#`s than the longest run of
    /// `#` in `text` (so nothing in it ends the literal or starts an escape), closing delimiter at
    /// the start of its line (so no line is re-indented).
    /// Written straight into `output` (the text is the DDL, megabytes for a large model: no
    /// `String` of it is made, which would copy it and check its UTF-8 once more).
    static func appendRawMultilineLiteral(_ text: [UInt8], to output: inout TextBuffer) {
        // The longest run of `#`, from one `#` to the next with `memchr` (DDL has few).
        var longest = 0
        text.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            var offset = 0
            while offset < text.count, let found = memchr(base + offset, Int32(UInt8(ascii: "#")), text.count - offset)
            {
                var end = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                let start = end
                while end < text.count && text[end] == UInt8(ascii: "#") { end += 1 }
                longest = max(longest, end - start)
                offset = end
            }
        }
        let hashes = longest + 1
        output.reserveCapacity(output.count + hashes + 4 + text.count + 4 + hashes)
        for _ in 0..<hashes { output.append(byte: UInt8(ascii: "#")) }
        output.append("\"\"\"\n")
        text.withUnsafeBufferPointer { output.append(bytes: $0) }
        output.append("\n\"\"\"")
        for _ in 0..<hashes { output.append(byte: UInt8(ascii: "#")) }
    }

    /// The class name an entity's `representedClassName` asks for: a leading `.` or a module prefix
    /// dropped; `nil` when it names no class of its own (`NSManagedObject`, empty, not an identifier).
    static func className(fromRepresented represented: String?) -> String? {
        guard let represented else { return nil }
        // Trimmed by hand: Foundation's trimming makes a character set for every call.
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        let utf8 = represented.utf8
        let start = utf8.firstIndex { !isBlank($0) } ?? utf8.endIndex
        let end = utf8.lastIndex { !isBlank($0) }.map { utf8.index(after: $0) } ?? start
        guard start < end else { return nil }
        var name = start == utf8.startIndex && end == utf8.endIndex ? represented : String(represented[start..<end])
        if let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) { name = String(name[name.utf8.index(after: dot)...]) }
        guard isIdentifier(name), name != "NSManagedObject" else { return nil }
        return name
    }

    /// Whether `name` is a plain Swift identifier (letters, digits, `_`; not starting with a digit).
    static func isIdentifier(_ name: String) -> Bool {
        // Nearly every name is ASCII: decided from its bytes in place; `nil` when it has others.
        var text = name
        let ascii: Bool? = text.withUTF8 { utf8 in
            guard let first = utf8.first else { return false }
            if first >= 0x30 && first <= 0x39 { return false }
            for byte in utf8 where !isASCIIIdentifierByte(byte) { return nil }
            return true
        }
        if let ascii { return ascii }
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    private static func isASCIIIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x5F
    }

    /// `text` with its first letter upper-cased (`grades` → `Grades`).
    static func capitalized(_ text: String) -> String {
        guard let byte = text.utf8.first else { return text }
        // An ASCII first character (nearly every name) without Unicode case tables.
        if isLoneASCII(text) {
            guard byte >= 0x61 && byte <= 0x7A else { return text }
            return String(UnicodeScalar(byte - 0x20)) + text.dropFirst()
        }
        return text.first!.uppercased() + text.dropFirst()
    }

    /// `text` with its first letter lower-cased (`AllStudents` → `allStudents`).
    static func lowercasedFirst(_ text: String) -> String {
        guard let byte = text.utf8.first else { return text }
        if isLoneASCII(text) {
            guard byte >= 0x41 && byte <= 0x5A else { return text }
            return String(UnicodeScalar(byte + 0x20)) + text.dropFirst()
        }
        return text.first!.lowercased() + text.dropFirst()
    }

    /// Whether the first character of `text` is one ASCII byte: the first byte is ASCII and the
    /// second is not a combining mark or other continuation (those are never ASCII).
    private static func isLoneASCII(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), first < 0x80, first != 0x0D else { return false }
        return bytes.next().map { $0 < 0x80 } ?? true
    }

    /// A Swift identifier made from arbitrary text: characters that cannot appear become `_`.
    static func sanitized(_ text: String) -> String {
        if isIdentifier(text) { return text }
        var result = String(
            text.unicodeScalars.map { scalar in
                scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    ? Character(scalar) : "_"
            })
        if result.isEmpty || result.first!.isNumber { result = "_" + result }
        return result
    }
}

/// A fixed set of words asked about for every name of a model (keywords, reserved names): most
/// names are ruled out by their length and first byte before any hashing.
struct WordSet: ExpressibleByArrayLiteral, Sendable {
    private let words: Set<String>
    /// Bit `n` set: some word is `n` bytes long (words are shorter than 64 bytes).
    private let lengths: UInt64
    /// Bit `b % 64` of word `b / 64` set: some word starts with byte `b`.
    private let firstBytes: (UInt64, UInt64, UInt64, UInt64)

    init(arrayLiteral words: String...) {
        self.words = Set(words)
        var lengths: UInt64 = 0
        var firstBytes: [UInt64] = [0, 0, 0, 0]
        for word in words {
            precondition(!word.isEmpty && word.utf8.count < 64, "a word set holds short words")
            lengths |= 1 << UInt64(word.utf8.count)
            let first = word.utf8.first!
            firstBytes[Int(first >> 6)] |= 1 << UInt64(first & 63)
        }
        self.lengths = lengths
        self.firstBytes = (firstBytes[0], firstBytes[1], firstBytes[2], firstBytes[3])
    }

    func contains(_ name: String) -> Bool {
        let utf8 = name.utf8
        let count = utf8.count
        guard count < 64, lengths & (1 << UInt64(count)) != 0, let first = utf8.first else { return false }
        let bits: UInt64
        switch first >> 6 {
        case 0: bits = firstBytes.0
        case 1: bits = firstBytes.1
        case 2: bits = firstBytes.2
        default: bits = firstBytes.3
        }
        return bits & (1 << UInt64(first & 63)) != 0 && words.contains(name)
    }
}
