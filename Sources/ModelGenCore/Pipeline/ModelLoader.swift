import Foundation

/// The bundle loader: the only part of the compiler that touches the file system.
///
/// It finds the versions of a model input, picks the current one (`.xccurrentversion`, else the
/// only version, else the version named like the bundle), reads `contents` files and runs the
/// front end (Parse → Resolve → Validate) on them.
public struct ModelLoader: Sendable {
    public init() {}

    /// Describes the input at `path`: its kind, versions and current version.
    /// - Returns: `nil` when the path is not a model (an error was reported).
    public func source(at path: String, diagnostics: DiagnosticEngine) -> ModelSource? {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            diagnostics.report(ModelSource.notFound(path), at: nil)
            return nil
        }
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let lastComponent = (trimmed as NSString).lastPathComponent
        guard isDirectory.boolValue else {
            let name =
                lastComponent == "contents"
                ? Self.stem(((trimmed as NSString).deletingLastPathComponent as NSString).lastPathComponent)
                : Self.stem(lastComponent)
            let version = ModelSource.Version(name: name, contentsPath: path, isLegacyBinary: false)
            return ModelSource(path: path, kind: .contentsFile, name: name, versions: [version], currentVersion: name)
        }
        if fileManager.fileExists(atPath: Self.join(trimmed, "contents"))
            || fileManager.fileExists(atPath: Self.join(trimmed, "elements"))
            || lastComponent.hasSuffix(".xcdatamodel")
        {
            let version = versionFolder(trimmed, name: Self.stem(lastComponent))
            return ModelSource(
                path: path, kind: .versionFolder, name: version.name, versions: [version], currentVersion: version.name)
        }
        return bundle(trimmed, given: path, diagnostics: diagnostics)
    }

    private func bundle(_ directory: String, given path: String, diagnostics: DiagnosticEngine) -> ModelSource? {
        let name = Self.stem((directory as NSString).lastPathComponent)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let versions = entries.filter { $0.hasSuffix(".xcdatamodel") }
            .map { versionFolder(Self.join(directory, $0), name: Self.stem($0)) }
            .sorted { NaturalOrder.less($0.name, $1.name) }
        let hasPlist = entries.contains(".xccurrentversion")
        if versions.isEmpty {
            let message =
                hasPlist || directory.hasSuffix(".xcdatamodeld") ? ModelSource.noVersions : ModelSource.notAModel(path)
            diagnostics.report(
                message,
                at: hasPlist ? SourceLocation(file: Self.join(directory, ".xccurrentversion"), line: 1, column: 1) : nil
            )
            return nil
        }
        var current: String?
        if hasPlist {
            let plistPath = Self.join(directory, ".xccurrentversion")
            if let named = currentVersionName(plistPath: plistPath, diagnostics: diagnostics) {
                let bare = Self.stem(named)
                if versions.contains(where: { $0.name == bare }) {
                    current = bare
                } else {
                    diagnostics.report(
                        ModelSource.unknownCurrentVersion(bare), at: SourceLocation(file: plistPath, line: 1, column: 1)
                    )
                    return nil
                }
            }
        }
        if current == nil {
            if versions.count == 1 {
                current = versions[0].name
            } else if versions.contains(where: { $0.name == name }) {
                current = name
            }
        }
        return ModelSource(path: path, kind: .bundle, name: name, versions: versions, currentVersion: current)
    }

    private func versionFolder(_ folder: String, name: String) -> ModelSource.Version {
        let contents = Self.join(folder, "contents")
        let fileManager = FileManager.default
        let isLegacy =
            !fileManager.fileExists(atPath: contents) && fileManager.fileExists(atPath: Self.join(folder, "elements"))
        return ModelSource.Version(name: name, contentsPath: contents, isLegacyBinary: isLegacy)
    }

    /// `_XCCurrentVersionName` of an `.xccurrentversion` plist, or `nil` when it has none.
    private func currentVersionName(plistPath: String, diagnostics: DiagnosticEngine) -> String? {
        guard let bytes = try? Self.readBytes(plistPath) else { return nil }
        let quiet = DiagnosticEngine()
        let plist = PropertyListReader.dictionary(SourceFile(path: plistPath, bytes: bytes), diagnostics: quiet)
        guard let plist else {
            diagnostics.report(ModelSource.unreadableVersionPlist, at: quiet.sorted.first?.location)
            return nil
        }
        return plist["_XCCurrentVersionName"].flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: - Loading

    /// Reads the file of one version.
    public func sourceFile(for version: ModelSource.Version, diagnostics: DiagnosticEngine) -> SourceFile? {
        if version.isLegacyBinary {
            diagnostics.report(ModelSource.legacyBinary(version.name), at: nil)
            return nil
        }
        do {
            return SourceFile(path: version.contentsPath, bytes: try Self.readBytes(version.contentsPath))
        } catch ModelGenError.unreadableFile(_, let reason) where reason == Self.missingReason {
            diagnostics.report(ModelSource.missingContents(version.name), at: nil)
        } catch ModelGenError.unreadableFile(_, let reason) where reason == Self.tooLargeReason {
            diagnostics.report(
                SecureXMLReader.tooLarge, at: SourceLocation(file: version.contentsPath, line: 1, column: 1))
        } catch {
            diagnostics.report(DiagnosticMessage("unreadable-input", .error, "\(error)"), at: nil)
        }
        return nil
    }

    /// The version to use: `requested` when given, else the current one.
    public func selectVersion(
        of source: ModelSource, requested: String?, diagnostics: DiagnosticEngine
    ) -> ModelSource.Version? {
        if let requested {
            if let version = source.version(named: requested) { return version }
            diagnostics.report(
                ModelSource.unknownVersion(requested), at: nil,
                notes: [Diagnostic.Note("versions: " + source.versions.map { "'\($0.name)'" }.joined(separator: ", "))])
            return nil
        }
        if let current = source.currentVersion, let version = source.version(named: current) { return version }
        diagnostics.report(
            ModelSource.noCurrentVersion(source.versions.count), at: nil,
            notes: [
                Diagnostic.Note(
                    "pick one with --model-version: " + source.versions.map { "'\($0.name)'" }.joined(separator: ", "))
            ])
        return nil
    }

    /// Loads and checks one version of the model at `path` (the current one unless `version` is given).
    /// - Returns: the model, or `nil` when it has errors (reported to `diagnostics`).
    public func load(path: String, version requested: String? = nil, diagnostics: DiagnosticEngine) -> ObjectModel? {
        guard let source = source(at: path, diagnostics: diagnostics),
            let version = selectVersion(of: source, requested: requested, diagnostics: diagnostics)
        else { return nil }
        return load(version, of: source, diagnostics: diagnostics)
    }

    /// Loads and checks one version of `source`.
    public func load(_ version: ModelSource.Version, of source: ModelSource, diagnostics: DiagnosticEngine)
        -> ObjectModel?
    {
        guard let file = sourceFile(for: version, diagnostics: diagnostics) else { return nil }
        var model = FrontEnd().run(file, diagnostics: diagnostics)
        model?.modelName = source.name
        model?.versionName = version.name
        return model
    }

    /// Loads every version of the model at `path`, in version order; `nil` entries had errors.
    public func loadAll(path: String, diagnostics: DiagnosticEngine) -> [(ModelSource.Version, ObjectModel?)] {
        guard let source = source(at: path, diagnostics: diagnostics) else { return [] }
        return source.versions.map { ($0, load($0, of: source, diagnostics: diagnostics)) }
    }

    // MARK: - Files

    static let missingReason = "no such file"
    static let tooLargeReason = "file too large"

    static func readBytes(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ModelGenError.unreadableFile(path: path, reason: exists ? "permission denied" : missingReason)
        }
        defer { try? handle.close() }
        // Read at most one byte past the limit, so a huge file is refused without reading it all.
        let data = try handle.read(upToCount: SecureXMLReader.maximumSize + 1) ?? Data()
        if data.count > SecureXMLReader.maximumSize {
            throw ModelGenError.unreadableFile(path: path, reason: tooLargeReason)
        }
        return [UInt8](data)
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// A file or folder name without its extension (`Model 2.xcdatamodel` → `Model 2`).
    static func stem(_ name: String) -> String {
        for suffix in [".xcdatamodeld", ".xcdatamodel"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }
}

/// Orders names with embedded numbers as people expect: `Model 2` < `Model 10`.
enum NaturalOrder {
    static func less(_ a: String, _ b: String) -> Bool {
        let x = chunks(a)
        let y = chunks(b)
        for (left, right) in zip(x, y) where left != right {
            if let l = Int(left), let r = Int(right), l != r { return l < r }
            return left < right
        }
        return x.count != y.count ? x.count < y.count : a < b
    }

    private static func chunks(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var inDigits = false
        for character in text {
            let isDigit = character.isASCII && character.isNumber
            if !current.isEmpty && isDigit != inDigits {
                result.append(current)
                current = ""
            }
            inDigits = isDigit
            current.append(character)
        }
        if !current.isEmpty { result.append(current) }
        return result
    }
}
