import CLibXML2

/// A thin, non-owning view of a libxml2 element node, valid while its document lives.
struct XMLElement {
    let node: xmlNodePtr

    var name: String { String(cString: UnsafeRawPointer(node.pointee.name).assumingMemoryBound(to: CChar.self)) }

    /// The line libxml2 recorded for the element (the line on which its start tag ends).
    var line: Int { Int(xmlGetLineNo(node)) }

    /// Calls `body` with each attribute's name and value, in document order.
    func forEachAttribute(_ body: (String, String) -> Void) {
        var attribute = node.pointee.properties
        while let current = attribute {
            let name = String(cString: UnsafeRawPointer(current.pointee.name).assumingMemoryBound(to: CChar.self))
            body(name, Self.value(of: current))
            attribute = current.pointee.next
        }
    }

    /// Calls `body` with each child element, in document order; text, comments and processing
    /// instructions are skipped.
    func forEachChildElement(_ body: (XMLElement) -> Void) {
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                body(XMLElement(node: current))
            }
            child = current.pointee.next
        }
    }

    /// The text of the element's text children (used for plist `<string>` values).
    var text: String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { modelgen_xmlFree(content) }
        return String(cString: UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self))
    }

    private static func value(of attribute: xmlAttrPtr) -> String {
        if let text = attribute.pointee.children, text.pointee.next == nil, text.pointee.type == XML_TEXT_NODE,
            let content = text.pointee.content
        {
            return String(cString: UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self))
        }
        guard let joined = xmlNodeListGetString(attribute.pointee.doc, attribute.pointee.children, 1) else {
            return ""
        }
        defer { modelgen_xmlFree(joined) }
        return String(cString: UnsafeRawPointer(joined).assumingMemoryBound(to: CChar.self))
    }
}
