/// How one attribute type looks in generated Swift and to the runtime.
struct SwiftValueType {
    /// The Swift type (`Int16`, `String`, …), unqualified.
    var swiftName: String
    /// The runtime's `ValueType` case name (`int16`, …).
    var runtimeCase: String
    /// A value for a required attribute that has no default (validation refuses to save it unset).
    var placeholder: String
    /// Whether values can be compared in a predicate (`find`, fetch request parameters).
    var isComparable: Bool

    init?(_ type: AttributeType) {
        switch type {
        case .integer16: self.init("Int16", "int16", "0")
        case .integer32: self.init("Int32", "int32", "0")
        case .integer64: self.init("Int64", "int64", "0")
        case .decimal: self.init("Decimal", "decimal", "0")
        case .double: self.init("Double", "double", "0")
        case .float: self.init("Float", "float", "0")
        case .string: self.init("String", "string", "\"\"")
        case .boolean: self.init("Bool", "bool", "false")
        case .date: self.init("Date", "date", "Date(timeIntervalSinceReferenceDate: 0)")
        case .binary: self.init("Data", "data", "Data()")
        case .uuid: self.init("UUID", "uuid", "UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))")
        case .uri: self.init("URL", "url", "URL(fileURLWithPath: \"/\")")
        // A transformable value is stored as the bytes its transformer produced.
        case .transformable: self.init("Data", "data", "Data()", comparable: false)
        case .composite, .objectID, .undefined: return nil
        }
    }

    private init(_ swiftName: String, _ runtimeCase: String, _ placeholder: String, comparable: Bool = true) {
        self.swiftName = swiftName
        self.runtimeCase = runtimeCase
        self.placeholder = placeholder
        self.isComparable = comparable
    }

    /// The Swift expression of a model default of this type.
    func literal(_ value: AttributeValue) -> String {
        switch value {
        case .integer(let number):
            if swiftName == "Bool" { return number != 0 ? "true" : "false" }
            return number == Int64.min ? "Int64.min" : String(number)
        case .double(let number): return SwiftValueType.doubleLiteral(number) ?? placeholder
        case .decimal(let text): return "Decimal(string: \(SwiftNames.literal(text))) ?? 0"
        case .string(let text): return swiftName == "String" ? SwiftNames.literal(text) : placeholder
        case .bool(let flag): return swiftName == "Bool" ? (flag ? "true" : "false") : (flag ? "1" : "0")
        case .date(let seconds):
            return "Date(timeIntervalSinceReferenceDate: \(SwiftValueType.doubleLiteral(seconds) ?? "0"))"
        case .uuid(let text): return "UUID(uuidString: \(SwiftNames.literal(text))) ?? \(placeholder)"
        case .uri(let text): return "URL(string: \(SwiftNames.literal(text))) ?? \(placeholder)"
        }
    }

    /// A Swift floating-point literal, `nil` for infinities and NaN.
    static func doubleLiteral(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        let text = String(value)
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}
