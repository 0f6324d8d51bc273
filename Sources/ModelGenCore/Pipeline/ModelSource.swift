import Foundation

/// What the user pointed modelgen at: a versioned `.xcdatamodeld` bundle, a bare `.xcdatamodel`
/// folder, or a `contents` file, with the versions it holds.
public struct ModelSource: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case bundle
        case versionFolder
        case contentsFile
    }

    /// One version of a model: a `.xcdatamodel` folder (or the lone `contents` file).
    public struct Version: Sendable, Equatable {
        /// The folder name without `.xcdatamodel` (e.g. `Model 2`), or the file's name.
        public var name: String
        /// The path of its `contents` file, spelled from the path the user gave.
        public var contentsPath: String
        /// Whether the folder holds only Xcode 3's binary `elements` file.
        public var isLegacyBinary: Bool
    }

    /// The path as given.
    public var path: String
    public var kind: Kind
    /// The model's name: the bundle's or folder's name without its extension.
    public var name: String
    /// Every version, sorted by name (numbers compared as numbers).
    public var versions: [Version]
    /// The name of the current version, when it could be determined.
    public var currentVersion: String?

    public func version(named name: String) -> Version? {
        let bare = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        return versions.first { $0.name == bare }
    }
}

extension ModelSource {
    static func notFound(_ path: String) -> DiagnosticMessage {
        DiagnosticMessage("input-not-found", .error, "no such file or directory: '\(path)'")
    }
    static func notAModel(_ path: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "not-a-model", .error,
            "'\(path)' is not a model: expected a .xcdatamodeld bundle, a .xcdatamodel folder or a contents file")
    }
    static let noVersions = DiagnosticMessage(
        "no-model-versions", .error, "the model bundle contains no .xcdatamodel version")
    static func noCurrentVersion(_ count: Int) -> DiagnosticMessage {
        DiagnosticMessage(
            "no-current-version", .error,
            "cannot tell which of the \(count) versions is current: .xccurrentversion is missing or names none, and no version is named like the bundle"
        )
    }
    static func unknownCurrentVersion(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "unknown-current-version", .error, ".xccurrentversion names version '\(name)', which is not in the bundle")
    }
    static func unknownVersion(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-model-version", .error, "the model has no version named '\(name)'")
    }
    static func legacyBinary(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "legacy-binary-model", .error,
            "version '\(name)' uses Xcode 3's binary 'elements' format, which is not supported; open and save it in a current Xcode"
        )
    }
    static func missingContents(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("missing-contents", .error, "version '\(name)' has no contents file")
    }
    static let unreadableVersionPlist = DiagnosticMessage(
        "unreadable-current-version", .warning, ".xccurrentversion cannot be read; the current version is guessed")
}
