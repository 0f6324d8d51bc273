import Foundation

/// An attribute whose Swift type is the program's own instead of the type its column stores.
///
/// - A `userInfo` entry `modelgen.type` names the type: on a transformable or binary attribute a
///   `Codable` type, on any other a `RawRepresentable` type stored as its raw value (an enum).
///   mogenerator's `attributeValueScalarType` is read the same way on other attributes, so models
///   prepared for it carry over. The value `Data` keeps a transformable as its bytes.
/// - Without the entry, a transformable's `customClassName` is its Swift type when it is one:
///   not an Objective-C class of Apple's frameworks (`NSAttributedString`, `UIColor`, …), which
///   stays `Data`.
///
/// A `Codable` type is stored as JSON, or through the value transformer the program registers
/// under the attribute's `valueTransformerName` when that is not one of Core Data's archivers.
struct SwiftTypedValue: Hashable {
    enum Kind: Hashable {
        /// A `RawRepresentable` type stored as its raw value.
        case rawValue
        /// A `Codable` type stored as JSON.
        case json
        /// A type stored by the value transformer registered under this name.
        case transformer(String)
    }

    var typeName: String
    var kind: Kind

    /// The `userInfo` key that names an attribute's Swift type.
    static let userInfoKey = "modelgen.type"
    /// mogenerator's key for the scalar type of a number attribute.
    static let mogeneratorKey = "attributeValueScalarType"
    /// Core Data's own transformers: with one of them (or none), a `Codable` type is stored as JSON.
    static let archiverNames: Set<String> = [
        "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer", "NSKeyedUnarchiveFromData",
        "NSUnarchiveFromData",
    ]
    /// Class-name prefixes of Apple's Objective-C frameworks (followed by a capitalised word).
    static let frameworkPrefixes: [String] = [
        "NS", "UI", "CG", "CI", "CL", "MK", "AV", "PH", "CK", "CN", "UN", "EK", "HK", "SK", "GK", "WK", "MP", "CA",
        "CT", "AR", "PK",
    ]

    /// The Swift type of `attribute`, `nil` when it is the stored type's.
    init?(_ attribute: Attribute) {
        let named = attribute.userInfo[Self.userInfoKey].map { $0.trimmingCharacters(in: .whitespaces) }
        switch attribute.type {
        case .transformable, .binary:
            let name = named ?? (attribute.type == .transformable ? attribute.customClassName : nil)
            guard let name, Self.isTypeName(name), name != "Data", name != "Foundation.Data" else { return nil }
            // Only a name the model gives as the Swift type says so of an Objective-C class.
            if named == nil && Self.isFrameworkClass(name) { return nil }
            let transformer = attribute.valueTransformerName.flatMap { Self.archiverNames.contains($0) ? nil : $0 }
            self.init(typeName: name, kind: transformer.map(Kind.transformer) ?? .json)
        case .composite, .objectID, .undefined:
            return nil
        default:
            guard
                let name = named
                    ?? attribute.userInfo[Self.mogeneratorKey].map({ $0.trimmingCharacters(in: .whitespaces) }),
                Self.isTypeName(name), SwiftValueType(attribute.type)?.swiftName != name
            else { return nil }
            self.init(typeName: name, kind: .rawValue)
        }
    }

    private init(typeName: String, kind: Kind) {
        self.typeName = typeName
        self.kind = kind
    }

    /// Whether `name` reads as a Swift type: identifiers joined by dots, with generic arguments,
    /// array and dictionary brackets (`Tag`, `Shop.Tag`, `[String]`, `[String: Int]`,
    /// `Set<String>`). Not a keyword, nothing else.
    static func isTypeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "[" || first == "_" || first.properties.isAlphabetic
        else { return false }
        var depth = 0
        var word = ""
        var words: [String] = []
        for scalar in name.unicodeScalars {
            if scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(scalar)
                continue
            }
            if !word.isEmpty {
                words.append(word)
                word = ""
            }
            switch scalar {
            case "[", "<": depth += 1
            case "]", ">":
                depth -= 1
                if depth < 0 { return false }
            case ".", ",", ":", " ", "?": continue
            default: return false
            }
        }
        if !word.isEmpty { words.append(word) }
        return depth == 0 && !words.isEmpty
            && !words.contains { SwiftNames.keywords.contains($0) || $0.first!.isNumber }
    }

    /// Whether `name` is an Objective-C class of Apple's frameworks (`NSAttributedString`,
    /// `UIColor`): a known prefix, then an upper-case letter and a lower-case one.
    static func isFrameworkClass(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        return frameworkPrefixes.contains { prefix in
            let count = prefix.unicodeScalars.count
            guard scalars.count > count + 1, String(String.UnicodeScalarView(scalars[..<count])) == prefix else {
                return false
            }
            return scalars[count].properties.isUppercase && scalars[count + 1].properties.isLowercase
        }
    }

    /// The `ValueCoding` expression of a `Codable` type (`nil` for a raw value).
    var codingExpression: String? {
        switch kind {
        case .rawValue: nil
        case .json: "ValueCoding<\(typeName)>.json"
        case .transformer(let name): "ValueCoding<\(typeName)>.transformer(named: \(SwiftNames.literal(name)))"
        }
    }

    /// The `ValueConversion` expression the runtime's description of the attribute carries.
    var conversionExpression: String {
        codingExpression.map { ".coded(\($0))" } ?? ".rawValue(\(typeName).self)"
    }

    /// What the generated file tells the reader about the type (which the program declares).
    /// The generated code uses it from any thread, so in a target whose default isolation is the
    /// main actor the type is declared `nonisolated`.
    func requirement(rawType: String) -> String {
        let what =
            switch kind {
            case .rawValue: "a `RawRepresentable` type whose raw value is `\(rawType)`"
            case .json: "a `Codable` type, stored as JSON"
            case .transformer(let name):
                "stored by the value transformer registered as \"\(name)\" (`ValueTransformers.register`)"
            }
        return what + " (`nonisolated` in a target whose default isolation is the main actor)"
    }
}
