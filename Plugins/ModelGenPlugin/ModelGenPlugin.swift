import Foundation
import PackagePlugin

/// Runs `modelgen generate` for every Core Data model in a target, so its generated Swift is
/// part of the build.
///
/// Each `.xcdatamodeld` bundle (or a lone `.xcdatamodel`) found under the target's directory
/// becomes one build command whose inputs are every file of the bundle (each version's `contents`,
/// `.xccurrentversion`) plus the options file and templates, and whose one output is
/// `<Model>.swift` (`--single-file`): editing the model regenerates, an untouched rebuild does not.
/// Options come from a `modelgen.json` next to the model:
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
        return try Self.models(in: target.directoryURL).map { model in
            let name = model.deletingPathExtension().lastPathComponent
            guard names.insert(name).inserted else {
                throw PluginError("two models named '\(name)' in target '\(target.name)'; rename one")
            }
            let options = try Options(nextTo: model)
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(name, isDirectory: true)
            let file = output.appendingPathComponent(name + ".swift")
            var arguments = ["generate", model.path, "--output", output.path, "--single-file", file.lastPathComponent]
            arguments += ["--access", options.access ?? "public"]
            if let configuration = options.configuration { arguments += ["--configuration", configuration] }
            if let templates = options.templates { arguments += ["--templates", templates.path] }
            if options.observable { arguments.append("--observable") }
            return .buildCommand(
                displayName: "Generating Swift for \(model.lastPathComponent) with modelgen",
                executable: tool.url,
                arguments: arguments,
                inputFiles: Self.files(in: model) + options.files,
                outputFiles: [file])
        }
    }

    /// The model bundles under `directory`, in path order. Symbolic links to bundles count.
    static func models(in directory: URL) -> [URL] {
        var found: [URL] = []
        let keys: [URLResourceKey] = [.isDirectoryKey]
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else { return [] }
        for case let url as URL in walker {
            switch url.pathExtension {
            case "xcdatamodeld":
                found.append(url)
                walker.skipDescendants()
            case "xcdatamodel":
                found.append(url)
                walker.skipDescendants()
            default:
                continue
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Every regular file inside a bundle (following a symbolic link to the bundle itself).
    static func files(in bundle: URL) -> [URL] {
        let root = bundle.resolvingSymlinksInPath()
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            // Named through the bundle path the build uses, so edits through either name count.
            files.append(bundle.appendingPathComponent(String(url.path.dropFirst(root.path.count + 1))))
        }
        return files.sorted { $0.path < $1.path }
    }
}

/// The contents of a `modelgen.json` beside a model.
struct Options {
    var access: String?
    var configuration: String?
    var templates: URL?
    var observable = false
    /// The options file and the templates, as build inputs.
    var files: [URL] = []

    init(nextTo model: URL) throws {
        let url = model.deletingLastPathComponent().appendingPathComponent("modelgen.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        files.append(url)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        } catch {
            throw PluginError("\(url.path): not valid JSON (\(error.localizedDescription))")
        }
        guard let values = object as? [String: Any] else { throw PluginError("\(url.path): expected a JSON object") }
        for (key, value) in values {
            if key == "observable" {
                guard let flag = value as? Bool else { throw PluginError("\(url.path): 'observable' must be true or false") }
                observable = flag
                continue
            }
            guard let text = value as? String else { throw PluginError("\(url.path): '\(key)' must be a string") }
            switch key {
            case "access":
                guard text == "public" || text == "internal" else {
                    throw PluginError("\(url.path): 'access' must be \"public\" or \"internal\", not \"\(text)\"")
                }
                access = text
            case "configuration":
                configuration = text
            case "templates":
                let directory = url.deletingLastPathComponent().appendingPathComponent(text, isDirectory: true)
                templates = directory
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                files += names.filter { $0.hasSuffix(".mustache") }.sorted().map { directory.appendingPathComponent($0) }
            default:
                throw PluginError("\(url.path): unknown option '\(key)' (known: access, configuration, templates, observable)")
            }
        }
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
