/// UTF-8 text built by appending many small pieces: bytes, not a `String`, because appending to
/// a `String` checks and grows its storage on every call (a few hundred instructions a piece),
/// and literals are copied from their static storage without going through `String` at all.
/// Rendered templates, the strings of a `MustacheTree` and modelgen's generated SQL are written
/// with it.
///
/// The bytes live in an array kept at its capacity (zero bytes past `count`), written through its
/// buffer: `Array.append(contentsOf:)` costs ~90 instructions a piece, most of it checks that a
/// buffer written in place needs once. `takeBytes()` trims the array in place and hands it over,
/// so the text is never copied. (Inlinable: the pieces are small and the calls many.)
public struct TextBuffer: Sendable {
    @usableFromInline var storage: [UInt8]
    /// How many bytes have been written.
    @inlinable public var count: Int { length }
    @usableFromInline var length = 0

    public init(capacity: Int = 0) {
        storage = [UInt8](repeating: 0, count: max(capacity, 64))
    }

    /// The text so far.
    public var text: String { withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }

    /// The bytes so far, handed over (the buffer is empty afterwards).
    public mutating func takeBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &storage)
        bytes.removeLast(bytes.count - length)
        length = 0
        return bytes
    }

    /// Calls `body` with the bytes so far.
    @inlinable
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// Makes room for `capacity` bytes in all.
    public mutating func reserveCapacity(_ capacity: Int) {
        if capacity > storage.count { grow(capacity) }
    }

    /// Room for `extra` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > storage.count { grow(count + extra) }
    }

    /// Moves the bytes written so far into a larger array (zero past them): one copy of what
    /// was written and one fill, where `append(contentsOf: repeatElement(0, …))` wrote the new
    /// bytes one by one (milliseconds for a buffer of megabytes).
    @usableFromInline @inline(never)
    mutating func grow(_ needed: Int) {
        let capacity = max(needed, storage.count * 2)
        let written = length
        storage = storage.withUnsafeBufferPointer { old in
            [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                let base = buffer.baseAddress!
                if written > 0 { base.initialize(from: old.baseAddress!, count: written) }
                (base + written).initialize(repeating: 0, count: capacity - written)
                initialized = capacity
            }
        }
    }

    /// Appends `length` bytes from `source`.
    @inlinable @inline(__always)
    public mutating func write(_ source: UnsafePointer<UInt8>, _ length: Int) {
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
        self.length += length
    }

    @inlinable @inline(__always)
    public mutating func append(_ literal: StaticString) {
        write(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    @inlinable @inline(__always)
    public mutating func append(string text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { write(base, utf8.count) }
        }
    }

    @inlinable @inline(__always)
    public mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
        if let base = bytes.baseAddress { write(base, bytes.count) }
    }

    @inlinable @inline(__always)
    public mutating func append(byte: UInt8) {
        reserve(1)
        let offset = count
        storage.withUnsafeMutableBufferPointer { $0[offset] = byte }
        length += 1
    }

    /// Appends the decimal digits of `value`.
    public mutating func append(integer value: Int64) {
        if value < 0 { append(byte: UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var length = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - length] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                length += 1
            } while magnitude > 0
            let start = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + (24 - length)
            write(start, length)
        }
    }
}
