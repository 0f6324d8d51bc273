/// How model names become SQL identifiers.
public enum SQLNaming {
    /// The longest identifier both dialects keep intact (PostgreSQL truncates past 63 bytes).
    public static let maximumLength = 63

    /// `BusinessEntity` → `business_entity`, `dateJoined` → `date_joined`, `URLString` →
    /// `url_string`, `userID` → `user_id`, `first_name` stays.
    public static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    if !result.hasSuffix("_") { result.append("_") }
                }
            }
            result += character.lowercased()
        }
        return result
    }

    /// `name` if it fits, else a deterministic shortening: a prefix and a hash of the whole name.
    public static func fitted(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        let digest = SHA256.hex(Array(name.utf8)).prefix(8)
        var prefix = ""
        for character in name {
            if prefix.utf8.count + character.utf8.count > maximumLength - 9 { break }
            prefix.append(character)
        }
        return prefix + "_" + digest
    }

    /// A double-quoted identifier (`"` doubled), safe for any name in both dialects.
    public static func quoted(_ identifier: String) -> String {
        identifier.utf8.contains(UInt8(ascii: "\"")) ? "\"" + identifier.replacing("\"", with: "\"\"") + "\"" : "\"" + identifier + "\""
    }

    /// A single-quoted string literal (`'` doubled).
    public static func literal(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
        return "'" + text.replacing("'", with: "''") + "'"
    }
}
