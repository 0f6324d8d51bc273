#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether the UTF-8 of the string holds `byte`: `memchr` over native storage (a generic walk
    /// of `utf8` was a few percent of generating a large model, whose schema snapshot is
    /// megabytes of text).
    func containsByte(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ buffer in
            buffer.isEmpty ? false : memchr(buffer.baseAddress!, Int32(byte), buffer.count) != nil
        }) {
            return found
        }
        return utf8.contains(byte)
    }
}
