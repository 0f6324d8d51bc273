import Mustache

/// How model names become SQL identifiers.
public enum SQLNaming {
    /// The longest identifier both dialects keep intact (PostgreSQL truncates past 63 bytes).
    public static let maximumLength = 63

    /// `BusinessEntity` → `business_entity`, `dateJoined` → `date_joined`, `URLString` →
    /// `url_string`, `userID` → `user_id`, `first_name` stays.
    public static func snakeCase(_ name: String) -> String {
        // Most names are ASCII: decided on bytes, the same rules as for characters below. An ASCII
        // name without capitals is its own snake case (one pass over its bytes, no copy).
        let (isASCII, hasCapital) =
            name.utf8.withContiguousStorageIfAvailable { bytes in
                var capital = false
                for byte in bytes {
                    if byte >= 0x80 { return (false, capital) }
                    if byte >= 0x41 && byte <= 0x5A { capital = true }
                }
                return (true, capital)
            } ?? (name.utf8.allSatisfy { $0 < 0x80 }, true)
        if isASCII && !hasCapital { return name }
        if isASCII {
            let bytes = Array(name.utf8)
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 4)
            let isUpper = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A }
            let isLower = { (byte: UInt8) in byte >= 0x61 && byte <= 0x7A }
            let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
            for (index, byte) in bytes.enumerated() {
                if isUpper(byte), index > 0 {
                    let previous = bytes[index - 1]
                    let nextIsLower = index + 1 < bytes.count && isLower(bytes[index + 1])
                    if isLower(previous) || isDigit(previous) || (isUpper(previous) && nextIsLower) {
                        if result.last != UInt8(ascii: "_") { result.append(UInt8(ascii: "_")) }
                    }
                }
                result.append(isUpper(byte) ? byte + 0x20 : byte)
            }
            return String(decoding: result, as: UTF8.self)
        }
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
        identifier.containsByte(UInt8(ascii: "\""))
            ? "\"" + identifier.replacing("\"", with: "\"\"") + "\"" : "\"" + identifier + "\""
    }

    /// A single-quoted string literal (`'` doubled).
    public static func literal(_ text: String) -> String {
        var output = TextBuffer()
        output.append(sqlLiteral: text)
        return output.text
    }
}
