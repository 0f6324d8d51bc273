import CLibXML2

/// The attributes libxml2's SAX2 parser hands to `startElementNs`: five pointers per attribute
/// (local name, prefix, URI, value start, value end).
struct SAXAttributes {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    /// Calls `body` with each attribute's name and value, in document order.
    func forEach(_ body: (String, String) -> Void) {
        guard let base else { return }
        for index in 0..<count {
            let slot = base + index * 5
            guard let name = slot[0], let start = slot[3], let end = slot[4] else { continue }
            body(Self.string(name), Self.value(start, end))
        }
    }

    static func string(_ pointer: UnsafePointer<xmlChar>) -> String {
        String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    }

    /// The attribute's value. libxml2 (without entity substitution) hands a `&` that came from
    /// `&amp;` or `&#38;` over as the text `&#38;`; turn it back into `&`.
    static func value(_ start: UnsafePointer<xmlChar>, _ end: UnsafePointer<xmlChar>) -> String {
        let buffer = UnsafeBufferPointer(start: start, count: end - start)
        guard buffer.contains(0x26) else { return String(decoding: buffer, as: UTF8.self) }
        return String(decoding: buffer, as: UTF8.self).replacing("&#38;", with: "&")
    }
}
