import Foundation
import TestSupport
import Testing

/// Paths the tests read: the package root and the shared folder (`MODELGEN_SHARED`, default
/// `../shared` beside the package).
enum TestPaths {
    static var packageRoot: URL { PackagePaths.root }

    static var models: URL { packageRoot.appendingPathComponent("Models") }

    static var shared: URL {
        if let path = ProcessInfo.processInfo.environment["MODELGEN_SHARED"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }

    static var requiresShared: Bool { ProcessInfo.processInfo.environment["MODELGEN_REQUIRE_SHARED"] == "1" }

    /// The shared folder when present. When it is missing, prints a notice and returns `nil`
    /// (the caller skips), unless `MODELGEN_REQUIRE_SHARED=1`, where a missing folder is a failure.
    static func sharedFolder(_ sub: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL? {
        let url = shared.appendingPathComponent(sub)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        if requiresShared {
            Issue.record(
                "shared folder missing at \(url.path) (MODELGEN_REQUIRE_SHARED=1)", sourceLocation: sourceLocation)
        } else {
            print("notice: skipping, shared folder not found at \(url.path) (set MODELGEN_SHARED)")
        }
        return nil
    }

    /// Every file named `name` below `root`, sorted by path.
    static func files(named name: String, under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        var result: [URL] = []
        for case let url as URL in enumerator where url.lastPathComponent == name {
            result.append(url)
        }
        return result.sorted { $0.path < $1.path }
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
