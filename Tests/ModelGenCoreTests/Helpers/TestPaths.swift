import Foundation
import TestSupport
import Testing

/// Paths the tests read: the package root and the shared folder (`MODELGEN_SHARED`, default
/// `../shared` beside the package).
enum TestPaths {
    static var packageRoot: URL { PackagePaths.root }

    static var models: URL { packageRoot.appendingPathComponent("Models") }

    static var shared: URL { PackagePaths.shared }

    /// The shared folder when present (see `PackagePaths.sharedFolder`).
    static func sharedFolder(_ sub: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL? {
        PackagePaths.sharedFolder(sub, sourceLocation: sourceLocation)
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
