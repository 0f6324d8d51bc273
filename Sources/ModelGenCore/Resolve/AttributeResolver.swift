/// Turns `AttributeSyntax` into a typed `Attribute`: type, flags, default value and bounds.
struct AttributeResolver {
    let values: ValueReader
    var source: SourceFile { values.source }
    var diagnostics: DiagnosticEngine { values.diagnostics }

    static func unknownType(_ type: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-attribute-type", .error, "unknown attribute type '\(type)'")
    }
    static func missingType(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "missing-attribute-type", .error,
            "attribute '\(name)' has no type; only transient attributes may be Undefined")
    }
    static func staleDefault(_ value: String, _ type: AttributeType) -> DiagnosticMessage {
        DiagnosticMessage(
            "stale-default-value", .warning,
            "default '\(value)' of a \(type.rawValue) attribute is a boolean; read as \(value.uppercased() == "YES" ? 1 : 0), as Core Data does"
        )
    }
    static func invalidDefault(_ value: String, _ type: AttributeType) -> DiagnosticMessage {
        DiagnosticMessage(
            "invalid-default-value", .warning,
            "default '\(value)' is not a valid \(type.rawValue) value; the attribute has no default, as in Core Data")
    }
    static func inexactDefault(_ value: String, _ type: AttributeType, readAs: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "inexact-default-value", .warning,
            "default '\(value)' does not fit a \(type.rawValue) attribute as written; read as \(readAs), as Core Data does"
        )
    }
    static func defaultOutOfRange(_ value: String, _ type: AttributeType) -> DiagnosticMessage {
        DiagnosticMessage("default-out-of-range", .error, "default '\(value)' does not fit in \(type.rawValue)")
    }
    static func invalidBound(_ value: String, _ type: AttributeType) -> DiagnosticMessage {
        DiagnosticMessage("invalid-bound", .error, "'\(value)' is not a valid bound for a \(type.rawValue) attribute")
    }

    func resolve(_ syntax: AttributeSyntax, name: String) -> Attribute {
        let line = syntax.line
        let isTransient = values.bool(syntax.transient, "transient", line: line)
        let type = resolveType(syntax, name: name, isTransient: isTransient)
        let isDerived = values.bool(syntax.derived, "derived", line: line)
        let defaultValue = defaultValue(syntax, type: type)
        let minimum = bound(
            syntax.minValueString, interval: syntax.minDateTimeInterval,
            names: ("minValueString", "minDateTimeInterval"), type: type, line: line)
        let maximum = bound(
            syntax.maxValueString, interval: syntax.maxDateTimeInterval,
            names: ("maxValueString", "maxDateTimeInterval"), type: type, line: line)
        return Attribute(
            name: name,
            type: type,
            isOptional: values.bool(syntax.optional, "optional", line: line),
            isTransient: isTransient,
            isIndexed: values.bool(syntax.indexed, "indexed", line: line),
            defaultValue: defaultValue,
            minimum: minimum,
            maximum: maximum,
            regularExpression: syntax.regularExpressionString,
            derivation: isDerived ? (syntax.derivationExpression ?? "") : nil,
            valueTransformerName: syntax.valueTransformerName.flatMap { $0.isEmpty ? nil : $0 },
            customClassName: syntax.customClassName.flatMap { $0.isEmpty ? nil : $0 },
            compositeName: syntax.composite,
            allowsExternalBinaryDataStorage: values.bool(
                syntax.allowsExternalBinaryDataStorage, "allowsExternalBinaryDataStorage", line: line),
            usesScalarValueType: values.optionalBool(syntax.usesScalarValueType, "usesScalarValueType", line: line),
            elementID: syntax.elementID ?? syntax.renamingIdentifier,
            versionHashModifier: syntax.versionHashModifier,
            preserveAfterDeletion: values.bool(syntax.preserveAfterDeletion, "preserveAfterDeletion", line: line),
            spotlightIndexingEnabled: values.bool(
                syntax.spotlightIndexingEnabled, "spotlightIndexingEnabled", line: line),
            storedInTruthFile: values.bool(syntax.storedInTruthFile, "storedInTruthFile", line: line),
            allowsCloudEncryption: values.bool(syntax.allowsCloudEncryption, "allowsCloudEncryption", line: line),
            userInfo: UserInfoResolver.resolve(syntax.userInfo),
            line: line
        )
    }

    private func resolveType(_ syntax: AttributeSyntax, name: String, isTransient: Bool) -> AttributeType {
        guard let text = syntax.attributeType else {
            if !isTransient {
                diagnostics.report(Self.missingType(name), at: source.location(line: syntax.line, element: "attribute"))
            }
            return .undefined
        }
        if let type = AttributeType.byName[text] { return type }
        switch text {
        case "Binary Data": return .binary
        case "ObjectID", "Object ID": return .objectID
        default:
            diagnostics.report(
                Self.unknownType(text), at: source.location(line: syntax.line, attribute: "attributeType"))
            return .undefined
        }
    }

    // MARK: - Defaults

    private func defaultValue(_ syntax: AttributeSyntax, type: AttributeType) -> AttributeValue? {
        let line = syntax.line
        if type == .date, let interval = syntax.defaultDateTimeInterval {
            if let seconds = ValueReader.parseDouble(interval) { return .date(seconds) }
            diagnostics.report(
                Self.invalidDefault(interval, type),
                at: source.location(line: line, attribute: "defaultDateTimeInterval"))
            return nil
        }
        guard let text = syntax.defaultValueString else { return nil }
        let location = { source.location(line: line, attribute: "defaultValueString") }
        switch type {
        case .integer16, .integer32, .integer64:
            if let flag = staleBoolean(text) {
                diagnostics.report(Self.staleDefault(text, type), at: location())
                return .integer(flag ? 1 : 0)
            }
            guard let value = ValueReader.parseInteger(text) else {
                if let number = ValueReader.parseDouble(text), number.isFinite {
                    diagnostics.report(Self.defaultOutOfRange(text, type), at: location())
                } else {
                    diagnostics.report(Self.invalidDefault(text, type), at: location())
                }
                return nil
            }
            guard type.integerRange!.contains(value) else {
                diagnostics.report(Self.defaultOutOfRange(text, type), at: location())
                return nil
            }
            return .integer(value)
        case .double, .float, .decimal:
            if let flag = staleBoolean(text) {
                diagnostics.report(Self.staleDefault(text, type), at: location())
                return type == .decimal ? .decimal(flag ? "1" : "0") : .double(flag ? 1 : 0)
            }
            guard let value = ValueReader.parseDouble(text), value.isFinite else {
                diagnostics.report(Self.invalidDefault(text, type), at: location())
                return nil
            }
            if type == .float && abs(value) > Double(Float.greatestFiniteMagnitude) {
                diagnostics.report(Self.defaultOutOfRange(text, type), at: location())
                return nil
            }
            let trimmed = text.trimmingCharacters(in: " \t")
            if type == .decimal, Self.significantDigits(trimmed) > 38 {
                // A Decimal holds 38 digits: the rest is rounded away where the value is read.
                diagnostics.report(Self.inexactDefault(text, type, readAs: "its first 38 digits"), at: location())
            }
            return type == .decimal ? .decimal(trimmed) : .double(value)
        case .boolean:
            if let flag = ValueReader.parseBool(text) { return .bool(flag) }
            if let number = ValueReader.parseDouble(text) {
                if number != 0 && number != 1 {
                    diagnostics.report(Self.inexactDefault(text, type, readAs: "YES"), at: location())
                }
                return .bool(number != 0)
            }
            diagnostics.report(Self.invalidDefault(text, type), at: location())
            return nil
        case .string:
            return .string(text)
        case .uri:
            return .uri(text)
        case .uuid:
            if ValueReader.isUUID(text) { return .uuid(text.uppercased()) }
            diagnostics.report(Self.invalidDefault(text, type), at: location())
            return nil
        case .date:
            // Xcode writes the interval; a lone human-readable date is read as `yyyy-MM-dd HH:mm:ss ±zzzz`.
            if let seconds = DateText.referenceInterval(text) { return .date(seconds) }
            diagnostics.report(Self.invalidDefault(text, type), at: location())
            return nil
        case .binary, .transformable, .composite, .objectID, .undefined:
            diagnostics.report(Self.invalidDefault(text, type), at: location())
            return nil
        }
    }

    /// The significant digits of a decimal number written out (`0.00120` has 3).
    static func significantDigits(_ text: String) -> Int {
        let mantissa = text.split(whereSeparator: { $0 == "e" || $0 == "E" }).first ?? ""
        let digits = mantissa.filter(\.isNumber).drop { $0 == "0" }
        return digits.reversed().drop { $0 == "0" }.count
    }

    private func staleBoolean(_ text: String) -> Bool? {
        switch text.uppercased() {
        case "YES": true
        case "NO": false
        default: nil
        }
    }

    // MARK: - Bounds

    private func bound(
        _ text: String?,
        interval: String?,
        names: (value: String, interval: String),
        type: AttributeType,
        line: Int
    ) -> AttributeValue? {
        if type == .date {
            guard let interval else { return nil }
            if let seconds = ValueReader.parseDouble(interval) { return .date(seconds) }
            diagnostics.report(
                Self.invalidBound(interval, type), at: source.location(line: line, attribute: names.interval))
            return nil
        }
        guard let text, !text.isEmpty else { return nil }
        let location = { source.location(line: line, attribute: names.value) }
        switch type {
        case .integer16, .integer32, .integer64:
            if let value = ValueReader.parseInteger(text) { return .integer(value) }
        case .double, .float:
            if let value = ValueReader.parseDouble(text), value.isFinite { return .double(value) }
        case .decimal:
            if let value = ValueReader.parseDouble(text), value.isFinite { return .decimal(text) }
        case .string, .binary, .uri, .transformable:
            // Length bounds.
            if let value = ValueReader.parseInteger(text), value >= 0 { return .integer(value) }
        default:
            return nil
        }
        diagnostics.report(Self.invalidBound(text, type), at: location())
        return nil
    }
}

enum UserInfoResolver {
    static func resolve(_ syntax: UserInfoSyntax?) -> UserInfo {
        guard let syntax else { return UserInfo() }
        return UserInfo(entries: syntax.entries.map { UserInfo.Entry(key: $0.key ?? "", value: $0.value ?? "") })
    }
}
