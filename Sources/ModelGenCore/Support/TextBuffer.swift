import Mustache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQL quoting on the text buffer generated SQL is written with.
extension TextBuffer {
    /// `"text"`, a double-quoted SQL identifier.
    mutating func append(identifier text: String) { append(text, quotedWith: UInt8(ascii: "\"")) }

    /// `'text'`, a single-quoted SQL string literal.
    mutating func append(sqlLiteral text: String) { append(text, quotedWith: UInt8(ascii: "'")) }

    /// `text` between `quote`s, each `quote` inside it doubled (SQL's identifier and string
    /// literal syntax).
    mutating func append(_ text: String, quotedWith quote: UInt8) {
        var text = text
        text.withUTF8 { append($0, quotedWith: quote) }
    }

    /// UTF-8 `text` between `quote`s, each `quote` inside it doubled.
    mutating func append(_ text: UnsafeBufferPointer<UInt8>, quotedWith quote: UInt8) {
        append(byte: quote)
        if var rest = text.baseAddress {
            var count = text.count
            // From one quote to the next with `memchr` (a snapshot is megabytes with few quotes).
            while let found = memchr(rest, Int32(quote), count) {
                let length = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - rest + 1
                write(rest, length)
                append(byte: quote)
                rest += length
                count -= length
            }
            write(rest, count)
        }
        append(byte: quote)
    }
}

extension String {
    /// `parts` joined, made in one step: the length added up, one string of that size written.
    /// Appending piece by piece (`+`, `+=`, interpolation) costs a few hundred instructions per
    /// piece; names and expressions made once per attribute of a large model add up.
    static func concatenating(_ parts: String...) -> String {
        var count = 0
        for part in parts { count += part.utf8.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            for var part in parts {
                part.withUTF8 { utf8 in
                    if let base = utf8.baseAddress {
                        (buffer.baseAddress! + offset).initialize(from: base, count: utf8.count)
                    }
                    offset += utf8.count
                }
            }
            return offset
        }
    }
}
