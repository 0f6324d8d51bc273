/// Text with location markers (`1️⃣` … `9️⃣`): the markers are removed and their 1-based line and
/// column (in UTF-8 bytes, as modelgen counts) are kept, so a test states where a diagnostic must
/// point by writing the marker there.
struct MarkedText {
    static let markers = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]

    let text: String
    /// Marker → (line, column).
    let positions: [String: (line: Int, column: Int)]

    init(_ marked: String) {
        var text = ""
        var positions: [String: (line: Int, column: Int)] = [:]
        var line = 1
        var column = 1
        var rest = Substring(marked)
        outer: while !rest.isEmpty {
            for marker in Self.markers where rest.hasPrefix(marker) {
                positions[marker] = (line, column)
                rest = rest.dropFirst(marker.count)
                continue outer
            }
            let character = rest.removeFirst()
            text.append(character)
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += character.utf8.count
            }
        }
        self.text = text
        self.positions = positions
    }
}

/// A complete `contents` document around `body` (the lines inside `<model>`).
func modelDocument(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
    \(body)
    </model>
    """
}
