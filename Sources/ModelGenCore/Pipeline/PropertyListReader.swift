import CLibXML2

/// Reads the top-level `<dict>` of an XML property list whose values are strings
/// (`.xccurrentversion`), with the same secure libxml2 settings as model files.
enum PropertyListReader {
    static let notAPlist = DiagnosticMessage("invalid-property-list", .error, "not an XML property list with a <dict>")

    static func dictionary(_ source: SourceFile, diagnostics: DiagnosticEngine) -> [String: String]? {
        guard let document = SecureXMLReader.read(source, allowsExternalDoctype: true, diagnostics: diagnostics) else {
            return nil
        }
        defer { xmlFreeDoc(document) }
        guard let rootNode = xmlDocGetRootElement(document) else {
            diagnostics.report(notAPlist, at: source.location(line: 1))
            return nil
        }
        var dict: XMLElement?
        let root = XMLElement(node: rootNode)
        if root.name == "dict" {
            dict = root
        } else if root.name == "plist" {
            root.forEachChildElement { child in if dict == nil && child.name == "dict" { dict = child } }
        }
        guard let dict else {
            diagnostics.report(notAPlist, at: source.location(line: root.line))
            return nil
        }
        var result: [String: String] = [:]
        var pendingKey: String?
        dict.forEachChildElement { child in
            if child.name == "key" {
                pendingKey = child.text
            } else if let key = pendingKey {
                if child.name == "string" { result[key] = child.text }
                pendingKey = nil
            }
        }
        return result
    }
}
