#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTF-8 text built by appending many small pieces: bytes, not a `String`, because appending to
/// a `String` checks and grows its storage on every call (a few hundred instructions a piece,
/// most of the time of writing a large model's DDL), and literals are copied from their static
/// storage without going through `String` at all.
///
/// The bytes live in an array kept at its capacity (zero bytes past `count`), written through its
/// buffer: `Array.append(contentsOf:)` cost ~90 instructions a piece, most of it checks that a
/// buffer written in place needs once. `takeBytes()` trims the array in place and hands it over,
/// so the text is never copied.
struct TextBuffer {
    private var storage: [UInt8]
    private(set) var count = 0

    init(capacity: Int = 0) {
        storage = [UInt8](repeating: 0, count: max(capacity, 64))
    }

    /// The text so far.
    var text: String { storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<count]), as: UTF8.self) } }

    /// The bytes so far, handed over (the buffer is empty afterwards).
    mutating func takeBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &storage)
        bytes.removeLast(bytes.count - count)
        count = 0
        return bytes
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > storage.count { grow(count + extra) }
    }

    @inline(never)
    private mutating func grow(_ needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(needed, storage.count * 2) - storage.count))
    }

    @inline(__always)
    private mutating func write(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length)
        let offset = count
        storage.withUnsafeMutableBufferPointer { buffer in
            let target = buffer.baseAddress! + offset
            // Most pieces are a few bytes: a loop beats a call to memcpy.
            if length <= 16 {
                for index in 0..<length { target[index] = source[index] }
            } else {
                target.update(from: source, count: length)
            }
        }
        count += length
    }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        write(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    @inline(__always)
    mutating func append(string text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { write(base, utf8.count) }
        }
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        reserve(1)
        let offset = count
        storage.withUnsafeMutableBufferPointer { $0[offset] = byte }
        count += 1
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
                    if let base = utf8.baseAddress { (buffer.baseAddress! + offset).initialize(from: base, count: utf8.count) }
                    offset += utf8.count
                }
            }
            return offset
        }
    }
}
