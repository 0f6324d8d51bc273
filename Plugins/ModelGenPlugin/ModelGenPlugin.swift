import Foundation
import PackagePlugin

/// Runs `modelgen generate` for every Core Data model in a target, so its generated Swift is
/// part of the build.
///
/// Each `.xcdatamodeld` bundle (or a lone `.xcdatamodel`) found under the target's directory
/// becomes one build command whose inputs are every file of the bundle (each version's `contents`,
/// `.xccurrentversion`) plus the options file and templates, and whose one output is
/// `<Model>.swift` (`--single-file`): editing the model regenerates, an untouched rebuild does not.
/// Options come from a `modelgen.json` next to the model (`modelgen generate --config` reads it):
///
/// ```json
/// { "access": "internal", "configuration": "Cloud", "templates": "Templates", "observable": true }
/// ```
@main
struct ModelGenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "modelgen")
        var names: Set<String> = []
        return try ModelBundles.find(in: target.directoryURL).map { model in
            let name = model.deletingPathExtension().lastPathComponent
            guard names.insert(name).inserted else {
                throw PluginError("two models named '\(name)' in target '\(target.name)'; rename one")
            }
            let options = Options(nextTo: model)
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(name, isDirectory: true)
            let file = output.appendingPathComponent(name + ".swift")
            var arguments = ["generate", model.path, "--output", output.path, "--single-file", file.lastPathComponent]
            if let config = options.url { arguments += ["--config", config.path] }
            return .buildCommand(
                displayName: "Generating Swift for \(model.lastPathComponent) with modelgen",
                executable: tool.url,
                arguments: arguments,
                inputFiles: Self.files(in: model) + options.files,
                outputFiles: [file])
        }
    }

    /// Every regular file inside a bundle (following a symbolic link to the bundle itself).
    static func files(in bundle: URL) -> [URL] {
        let root = bundle.resolvingSymlinksInPath()
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            // Named through the bundle path the build uses, so edits through either name count.
            files.append(bundle.appendingPathComponent(String(url.path.dropFirst(root.path.count + 1))))
        }
        return files.sorted { $0.path < $1.path }
    }
}

/// The `modelgen.json` beside a model, handed to `modelgen generate --config`, which checks it
/// and applies it. The plugin reads only the templates folder it names: those files are inputs
/// of the build command too.
struct Options {
    /// The file, when there is one.
    var url: URL?
    /// The options file and the templates, as build inputs.
    var files: [URL] = []

    private struct Templates: Decodable {
        var templates: String?
    }

    init(nextTo model: URL) {
        let url = model.deletingLastPathComponent().appendingPathComponent("modelgen.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        self.url = url
        files.append(url)
        // A file modelgen cannot read is its error to report, at build time, with the reason.
        guard let data = FileManager.default.contents(atPath: url.path),
            let templates = (try? JSONDecoder().decode(Templates.self, from: data))?.templates
        else { return }
        let directory = url.deletingLastPathComponent().appendingPathComponent(templates, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        files += names.filter { $0.hasSuffix(".mustache") }.sorted().map { directory.appendingPathComponent($0) }
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
