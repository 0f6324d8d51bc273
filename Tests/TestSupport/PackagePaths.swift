import Foundation
import Testing

/// Where the package's files are, for tests that read them (`Models/`, goldens, fixtures): found
/// from this file's own path, so that a test's place in the tree does not matter.
public enum PackagePaths {
    /// The package root (the folder holding `Package.swift`).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `Tests/<target>/<path>`: a test target's own resources (goldens, fixtures).
    public static func tests(_ target: String, _ path: String) -> URL {
        root.appendingPathComponent("Tests").appendingPathComponent(target).appendingPathComponent(path)
    }

    /// The shared folder (`MODELGEN_SHARED`, default `../shared` beside the package).
    public static var shared: URL {
        if let path = ProcessInfo.processInfo.environment["MODELGEN_SHARED"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return root.deletingLastPathComponent().appendingPathComponent("shared")
    }

    /// `sub` of the shared folder when present. When it is missing, prints a notice and returns
    /// `nil` (the caller skips), unless `MODELGEN_REQUIRE_SHARED=1`, where that is a failure.
    public static func sharedFolder(_ sub: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL? {
        let url = shared.appendingPathComponent(sub)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        if ProcessInfo.processInfo.environment["MODELGEN_REQUIRE_SHARED"] == "1" {
            Issue.record(
                "shared folder missing at \(url.path) (MODELGEN_REQUIRE_SHARED=1)", sourceLocation: sourceLocation)
        } else {
            print("notice: skipping, shared folder not found at \(url.path) (set MODELGEN_SHARED)")
        }
        return nil
    }
}
