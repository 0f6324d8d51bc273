import Foundation
import Testing

/// ModelGenPlugin as a user meets it: `Tests/PluginConsumer`, a package outside this package's
/// graph, depends on modelgen by path and uses the plugin. The test builds it, checks that an
/// untouched rebuild does not run the generator, edits the model and checks that the build
/// regenerates, and breaks the model and checks that the error points into the model file.
/// (It builds modelgen a second time in a scratch directory: minutes, not seconds.)
@Suite(.serialized) struct PluginTests {
    static let announcement = "Generating Swift for Shop.xcdatamodeld with modelgen"

    static func swiftBuild(_ package: URL) throws -> CLIRunner.Result {
        let swift = URL(fileURLWithPath: "/usr/bin/env")
        // The first build compiles modelgen again: minutes on two cores.
        return try CLIRunner.run(
            swift, ["swift", "build", "--package-path", package.path], in: package, timeout: 1_500)
    }

    /// The plugin's output for the consumer's model.
    static func generatedFile(_ package: URL) throws -> URL {
        let outputs = package.appendingPathComponent(".build/plugins/outputs")
        let walker = try #require(FileManager.default.enumerator(at: outputs, includingPropertiesForKeys: nil))
        for case let url as URL in walker where url.lastPathComponent == "Shop.swift" { return url }
        Issue.record("no Shop.swift under \(outputs.path)")
        throw CancellationError()
    }

    /// A copy of `Tests/PluginConsumer` in `directory`, beside a link named `modelgen` to this
    /// checkout (the consumer depends on "../modelgen").
    static func consumer(in directory: URL) throws -> URL {
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("modelgen"), withDestinationURL: CLIRunner.packageRoot)
        let package = directory.appendingPathComponent("consumer")
        try FileManager.default.copyItem(
            at: CLIRunner.packageRoot.appendingPathComponent("Tests/PluginConsumer"), to: package)
        return package
    }

    @Test func theConsumerPackageBuildsRegeneratesOnlyOnChangeAndShowsModelErrors() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = try Self.consumer(in: directory)

        let first = try Self.swiftBuild(package)
        try #require(first.status == 0, "first build failed:\n\(first.stdout)\n\(first.stderr)")
        #expect(first.stdout.contains(Self.announcement))
        let run = try CLIRunner.run(package.appendingPathComponent(".build/debug/Shop"), [])
        #expect(run.stdout == "Cocoa: 5\nTea: 3\nobserved: a change to Tea's stock\n", "\(run.stderr)")
        // The runtime and the generated code compile without a warning in a user's build.
        let warnings = (first.stdout + "\n" + first.stderr).split(separator: "\n").filter { line in
            line.contains("warning:")
                && (line.contains("/Sources/ModelGenRuntime/") || line.contains("/plugins/outputs/"))
        }
        #expect(warnings.isEmpty, "\(warnings.joined(separator: "\n"))")
        // Catalog (Swift 6, top-level code that awaits): every catch form compiles and catches,
        // global requests are Sendable, find and merge policies work over a to-one uniqueness.
        let catalog = try CLIRunner.run(package.appendingPathComponent(".build/debug/Catalog"), [])
        #expect(
            catalog.stdout
                == "as DatabaseError: uniqueness on sku\nwhere .uniqueness: Part\nis DatabaseError\ncode: uniqueness\nfound bolt in A1; parts 2\nlow stock: bolt\n",
            "\(catalog.stderr)")
        let generated = try Self.generatedFile(package)
        let before = try String(contentsOf: generated, encoding: .utf8)
        #expect(before.contains("\nnonisolated final class Product"), "modelgen.json asks for internal access")
        #expect(
            before.contains("final class Product: ManagedObject, Observation.Observable {"), "and observable classes")

        // An untouched rebuild does not run the generator. (SwiftPM relinks a tool built from
        // source on the first rebuild after a clean build, and a command whose tool changed runs
        // again; from then on the build is settled.)
        _ = try Self.swiftBuild(package)
        let stamp = try FileManager.default.attributesOfItem(atPath: generated.path)[.modificationDate] as? Date
        let again = try Self.swiftBuild(package)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains(Self.announcement), "the generator ran again:\n\(again.stdout)")
        #expect(try FileManager.default.attributesOfItem(atPath: generated.path)[.modificationDate] as? Date == stamp)

        // Editing the model regenerates.
        let contents = package.appendingPathComponent("Sources/Shop/Shop.xcdatamodeld/Shop.xcdatamodel/contents")
        let model = try String(contentsOf: contents, encoding: .utf8)
        try model.replacingOccurrences(
            of: #"<attribute name="stock""#,
            with: #"<attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>"#
                + "\n        "
                + #"<attribute name="stock""#
        ).write(to: contents, atomically: true, encoding: .utf8)
        let edited = try Self.swiftBuild(package)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.stdout.contains(Self.announcement))
        let after = try String(contentsOf: generated, encoding: .utf8)
        #expect(after != before)
        #expect(after.contains("var price: Double?"))

        // A model error is a build error located in the model file.
        try model.replacingOccurrences(of: #"attributeType="Integer 32""#, with: #"attributeType="Integer 33""#)
            .write(to: contents, atomically: true, encoding: .utf8)
        let broken = try Self.swiftBuild(package)
        #expect(broken.status != 0)
        let output = broken.stdout + broken.stderr
        #expect(output.contains("Shop.xcdatamodel/contents:5:"), "\(output)")
        #expect(output.contains("error:"))

        // So is a mistake in modelgen.json, named by modelgen, which reads the file.
        try model.write(to: contents, atomically: true, encoding: .utf8)
        let options = package.appendingPathComponent("Sources/Shop/modelgen.json")
        try #"{ "access": "internal", "observabel": true }"#.write(to: options, atomically: true, encoding: .utf8)
        let misspelt = try Self.swiftBuild(package)
        #expect(misspelt.status != 0)
        #expect(
            (misspelt.stdout + misspelt.stderr).contains("modelgen.json: unknown option 'observabel'"),
            "\(misspelt.stdout)")
    }
}
