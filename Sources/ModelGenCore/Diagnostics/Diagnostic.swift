/// How serious a diagnostic is.
public enum Severity: String, Sendable, Codable, Comparable {
    case note
    case warning
    case error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// The stable, kebab-case identifier of a kind of diagnostic, e.g. `unresolved-destination`.
///
/// Identifiers never change once released: scripts and tests match on them.
public struct DiagnosticID: Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The kind of a diagnostic: its id, default severity and message text, declared beside the rule
/// that reports it (never as a literal at the call site).
public struct DiagnosticMessage: Sendable {
    public let id: DiagnosticID
    public let severity: Severity
    public let text: String

    public init(_ id: DiagnosticID, _ severity: Severity, _ text: String) {
        self.id = id
        self.severity = severity
        self.text = text
    }
}

/// One problem found in a model, with where it is and, optionally, notes that help fix it.
public struct Diagnostic: Hashable, Sendable, Codable {
    /// A note attached to a diagnostic: a hint or a related location.
    public struct Note: Hashable, Sendable, Codable {
        public var message: String
        public var location: SourceLocation?

        public init(_ message: String, at location: SourceLocation? = nil) {
            self.message = message
            self.location = location
        }
    }

    public var severity: Severity
    public var id: DiagnosticID
    public var message: String
    public var location: SourceLocation?
    public var notes: [Note]

    public init(
        severity: Severity,
        id: DiagnosticID,
        message: String,
        location: SourceLocation?,
        notes: [Note] = []
    ) {
        self.severity = severity
        self.id = id
        self.message = message
        self.location = location
        self.notes = notes
    }

    public init(_ message: DiagnosticMessage, at location: SourceLocation?, notes: [Note] = []) {
        self.init(severity: message.severity, id: message.id, message: message.text, location: location, notes: notes)
    }

    /// The diagnostic as lines of text: `path:line:column: severity: message [id]`, then one line per note.
    public var rendered: String {
        var lines = [Self.renderedLine(location, severity.rawValue, "\(message) [\(id.rawValue)]")]
        for note in notes {
            lines.append(Self.renderedLine(note.location ?? location, "note", note.message))
        }
        return lines.joined(separator: "\n")
    }

    private static func renderedLine(_ location: SourceLocation?, _ severity: String, _ text: String) -> String {
        if let location {
            return "\(location.rendered): \(severity): \(text)"
        }
        return "modelgen: \(severity): \(text)"
    }
}

extension Diagnostic: Comparable {
    /// Diagnostics sort by file, line and column; unlocated ones first; then by id and message so
    /// that the order never depends on the order in which rules ran.
    public static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        switch (lhs.location, rhs.location) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (.some(let l), .some(let r)) where l != r: return l < r
        default: break
        }
        if lhs.id != rhs.id { return lhs.id.rawValue < rhs.id.rawValue }
        return lhs.message < rhs.message
    }
}
