#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension String {
    /// Whether the UTF-8 of the string holds `byte`: `memchr` over native storage (a generic walk
    /// of `utf8` costs a few percent of generating a large model, whose schema snapshot is
    /// megabytes of text).
    func containsByte(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ buffer in
            buffer.isEmpty ? false : memchr(buffer.baseAddress!, Int32(byte), buffer.count) != nil
        }) {
            return found
        }
        return utf8.contains(byte)
    }

    /// Whether some UTF-8 byte of the string needs escaping in a quoted JSON or Swift string: a
    /// control character (and DEL when `includingDelete`), `"` or `\`. A plain loop over native
    /// storage (every name the generators print passes through here).
    func hasByteNeedingEscape(includingDelete: Bool = false) -> Bool {
        @inline(__always) func needs(_ byte: UInt8) -> Bool {
            byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (includingDelete && byte == 0x7F)
        }
        if let found = utf8.withContiguousStorageIfAvailable({ buffer in
            for byte in buffer where needs(byte) { return true }
            return false
        }) {
            return found
        }
        return utf8.contains(where: needs)
    }
}

extension Array where Element == UInt8 {
    /// The offset of the first occurrence of `needle` at or after `start`: `memchr` for its first
    /// byte, `memcmp` for the rest.
    func firstOffset(of needle: [UInt8], from start: Int) -> Int? {
        guard start >= 0, !needle.isEmpty else { return nil }
        return withUnsafeBufferPointer { buffer -> Int? in
            needle.withUnsafeBufferPointer { needle -> Int? in
                guard let base = buffer.baseAddress, let first = needle.baseAddress else { return nil }
                var offset = start
                while offset + needle.count <= buffer.count,
                    let hit = memchr(base + offset, Int32(needle[0]), buffer.count - needle.count + 1 - offset)
                {
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + index, first, needle.count) == 0 { return index }
                    offset = index + 1
                }
                return nil
            }
        }
    }

    /// The offset of the first byte from `start` on that satisfies `isTarget` and lies outside a
    /// quoted (`"…"` or `'…'`) attribute value: the end of an XML tag or declaration.
    func firstOutsideQuotes(from start: Int, where isTarget: (UInt8) -> Bool) -> Int? {
        var quote: UInt8?
        for index in start..<Swift.max(start, count) {
            let byte = self[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == 0x22 || byte == 0x27 {
                quote = byte
            } else if isTarget(byte) {
                return index
            }
        }
        return nil
    }
}
