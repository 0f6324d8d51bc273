import Foundation

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
}
