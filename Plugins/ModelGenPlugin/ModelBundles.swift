import Foundation

/// Finding the Core Data models of a target. Shared by both plugins (ModelGenCommand links to
/// this file: a plugin cannot depend on a library target).
enum ModelBundles {
    /// The model bundles (`.xcdatamodeld`, or a lone `.xcdatamodel`) under `directory`, in path
    /// order. Symbolic links to bundles count.
    static func find(in directory: URL) -> [URL] {
        var found: [URL] = []
        let keys: [URLResourceKey] = [.isDirectoryKey]
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else {
            return []
        }
        for case let url as URL in walker
        where url.pathExtension == "xcdatamodeld" || url.pathExtension == "xcdatamodel" {
            found.append(url)
            walker.skipDescendants()
        }
        return found.sorted { $0.path < $1.path }
    }
}
