#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTF-8 text built by appending many small pieces: bytes, not a `String`, because appending to
/// a `String` checks and grows its storage on every call (a few hundred instructions a piece,
/// most of the time of writing a large model's DDL), and literals are copied from their static
/// storage without going through `String` at all.
struct TextBuffer {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// The text so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func append(string text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

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
        bytes.append(quote)
        if var rest = text.baseAddress {
            var count = text.count
            // From one quote to the next with `memchr` (a snapshot is megabytes with few quotes).
            while let found = memchr(rest, Int32(quote), count) {
                let length = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - rest + 1
                bytes.append(contentsOf: UnsafeBufferPointer(start: rest, count: length))
                bytes.append(quote)
                rest += length
                count -= length
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: rest, count: count))
        }
        bytes.append(quote)
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
                    if let base = utf8.baseAddress { (buffer.baseAddress! + offset).initialize(from: base, count: utf8.count) }
                    offset += utf8.count
                }
            }
            return offset
        }
    }
}
