import Foundation
import Testing

@testable import ModelGenCore

/// The bundle loader: inputs of every kind, version selection, and the loader's diagnostics.
@Suite struct LoaderTests {
    /// Ids whose tests live here rather than in `DiagnosticCases`.
    static let testedIDs: Set<String> = [
        "input-not-found", "not-a-model", "no-model-versions", "no-current-version", "unknown-current-version",
        "unknown-model-version", "legacy-binary-model", "missing-contents", "unreadable-current-version",
        "invalid-property-list", "unreadable-input", "file-too-large",
    ]

    static let minimalModel = modelDocument(#"    <entity name="A"/>"#)

    /// Builds a bundle `Name.xcdatamodeld` with the given versions (name → contents) and plist.
    static func makeBundle(
        in directory: URL, name: String = "Model", versions: [String: String?], plist: String?
    ) throws -> URL {
        let bundle = directory.appendingPathComponent("\(name).xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for (version, contents) in versions {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if let contents {
                try contents.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
            }
        }
        if let plist {
            try plist.write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        }
        return bundle
    }

    static func plist(current: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(current)</string>
        </dict>
        </plist>
        """
    }

    func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    func ids(_ engine: DiagnosticEngine) -> [String] { engine.sorted.map(\.id.rawValue) }

    // MARK: - Version selection

    @Test func currentVersionComesFromThePlist() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(
                in: directory,
                versions: ["Model": Self.minimalModel, "Model 2": Self.minimalModel, "Model 10": Self.minimalModel],
                plist: Self.plist(current: "Model 2.xcdatamodel"))
            let engine = DiagnosticEngine()
            let source = try #require(ModelLoader().source(at: bundle.path, diagnostics: engine))
            #expect(source.kind == .bundle)
            #expect(source.currentVersion == "Model 2")
            #expect(source.versions.map(\.name) == ["Model", "Model 2", "Model 10"])
            #expect(source.versions[1].contentsPath == bundle.path + "/Model 2.xcdatamodel/contents")
            let model = ModelLoader().load(path: bundle.path, diagnostics: engine)
            #expect(model?.versionName == "Model 2")
            #expect(engine.diagnostics.isEmpty)
        }
    }

    @Test func emptyPlistFallsBackToTheOnlyVersionOrTheBundleName() throws {
        try withTemporaryDirectory { directory in
            let empty = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict/>\n</plist>\n"
            let single = try Self.makeBundle(
                in: directory, name: "Single", versions: ["Anything": Self.minimalModel], plist: empty)
            let named = try Self.makeBundle(
                in: directory, name: "Named", versions: ["Named": Self.minimalModel, "Named 2": Self.minimalModel],
                plist: nil)
            let engine = DiagnosticEngine()
            #expect(ModelLoader().source(at: single.path, diagnostics: engine)?.currentVersion == "Anything")
            #expect(ModelLoader().source(at: named.path, diagnostics: engine)?.currentVersion == "Named")
            #expect(engine.diagnostics.isEmpty)
        }
    }

    @Test func ambiguousVersionsAreAnErrorWithTheChoicesInANote() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(
                in: directory, versions: ["V1": Self.minimalModel, "V2": Self.minimalModel], plist: nil)
            let engine = DiagnosticEngine()
            #expect(ModelLoader().load(path: bundle.path, diagnostics: engine) == nil)
            #expect(ids(engine) == ["no-current-version"])
            #expect(engine.sorted[0].rendered.contains("note: pick one with --model-version: 'V1', 'V2'"))
            #expect(
                ModelLoader().load(path: bundle.path, version: "V2.xcdatamodel", diagnostics: DiagnosticEngine())?
                    .versionName == "V2")
        }
    }

    @Test func everyVersionCanBeLoaded() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(
                in: directory,
                versions: ["Model": Self.minimalModel, "Model 2": modelDocument(#"    <entity name="B"/>"#)],
                plist: Self.plist(current: "Model 2.xcdatamodel"))
            let engine = DiagnosticEngine()
            let loaded = ModelLoader().loadAll(path: bundle.path, diagnostics: engine)
            #expect(loaded.map { $0.1?.entities.map(\.name) ?? [] } == [["A"], ["B"]])
        }
    }

    @Test func bareVersionFolderAndContentsFileAreInputs() throws {
        try withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("Bare.xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.minimalModel.write(
                to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
            let engine = DiagnosticEngine()
            let source = try #require(ModelLoader().source(at: folder.path, diagnostics: engine))
            #expect(source.kind == .versionFolder)
            #expect(source.name == "Bare")
            let contents = folder.appendingPathComponent("contents").path
            #expect(ModelLoader().source(at: contents, diagnostics: engine)?.kind == .contentsFile)
            #expect(ModelLoader().load(path: contents, diagnostics: engine)?.entities.count == 1)
        }
    }

    @Test func naturalOrderSortsNumbersAsNumbers() {
        let names = ["Model 10", "Model 2", "Model", "Model 1.10", "Model 1.9"]
        #expect(names.sorted(by: NaturalOrder.less) == ["Model", "Model 1.9", "Model 1.10", "Model 2", "Model 10"])
    }

    // MARK: - Loader diagnostics

    @Test func missingInputIsReported() {
        let engine = DiagnosticEngine()
        #expect(ModelLoader().source(at: "/nonexistent/Model.xcdatamodeld", diagnostics: engine) == nil)
        #expect(
            engine.sorted.map(\.rendered) == [
                "modelgen: error: no such file or directory: '/nonexistent/Model.xcdatamodeld' [input-not-found]"
            ])
    }

    @Test func aDirectoryWithoutModelsIsNotAModel() throws {
        try withTemporaryDirectory { directory in
            let engine = DiagnosticEngine()
            #expect(ModelLoader().source(at: directory.path, diagnostics: engine) == nil)
            #expect(ids(engine) == ["not-a-model"])
            let empty = directory.appendingPathComponent("Empty.xcdatamodeld")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let second = DiagnosticEngine()
            #expect(ModelLoader().source(at: empty.path, diagnostics: second) == nil)
            #expect(ids(second) == ["no-model-versions"])
        }
    }

    @Test func plistNamingAMissingVersionIsAnError() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(
                in: directory, versions: ["Model": Self.minimalModel], plist: Self.plist(current: "Gone.xcdatamodel"))
            let engine = DiagnosticEngine()
            #expect(ModelLoader().source(at: bundle.path, diagnostics: engine) == nil)
            #expect(
                engine.sorted.map(\.rendered) == [
                    "\(bundle.path)/.xccurrentversion:1:1: error: .xccurrentversion names version 'Gone', which is not in the bundle [unknown-current-version]"
                ])
        }
    }

    @Test func unknownRequestedVersionListsTheVersions() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(in: directory, versions: ["Model": Self.minimalModel], plist: nil)
            let engine = DiagnosticEngine()
            #expect(ModelLoader().load(path: bundle.path, version: "Model 9", diagnostics: engine) == nil)
            #expect(
                engine.sorted.map(\.rendered) == [
                    "modelgen: error: the model has no version named 'Model 9' [unknown-model-version]\nmodelgen: note: versions: 'Model'"
                ])
        }
    }

    @Test func legacyBinaryVersionsAreUnsupportedNotCrashedOn() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(
                in: directory, versions: ["Old": nil], plist: Self.plist(current: "Old.xcdatamodel"))
            let folder = bundle.appendingPathComponent("Old.xcdatamodel")
            try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x00, 0xFF]).write(
                to: folder.appendingPathComponent("elements"))
            let engine = DiagnosticEngine()
            #expect(ModelLoader().load(path: bundle.path, diagnostics: engine) == nil)
            #expect(ids(engine) == ["legacy-binary-model"])
        }
    }

    @Test func versionWithoutContentsIsReported() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(in: directory, versions: ["Model": nil], plist: nil)
            let engine = DiagnosticEngine()
            #expect(ModelLoader().load(path: bundle.path, diagnostics: engine) == nil)
            #expect(ids(engine) == ["missing-contents"])
        }
    }

    @Test func unreadableContentsIsReported() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(in: directory, versions: ["Model": nil], plist: nil)
            // A directory where the contents file should be cannot be read as a file.
            try FileManager.default.createDirectory(
                at: bundle.appendingPathComponent("Model.xcdatamodel/contents"), withIntermediateDirectories: true)
            let engine = DiagnosticEngine()
            #expect(ModelLoader().load(path: bundle.path, diagnostics: engine) == nil)
            #expect(ids(engine) == ["unreadable-input"])
        }
    }

    @Test func brokenPlistIsAWarningAndTheVersionIsGuessed() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Self.makeBundle(
                in: directory, versions: ["Model": Self.minimalModel], plist: "<plist><dict>")
            let engine = DiagnosticEngine()
            #expect(ModelLoader().source(at: bundle.path, diagnostics: engine)?.currentVersion == "Model")
            #expect(ids(engine) == ["unreadable-current-version"])
            #expect(engine.sorted[0].location?.file == bundle.path + "/.xccurrentversion")
        }
    }

    @Test func aPlistWithoutADictIsReported() {
        let engine = DiagnosticEngine()
        let file = SourceFile(path: "x.plist", bytes: Array("<?xml version=\"1.0\"?>\n<plist><array/></plist>".utf8))
        #expect(PropertyListReader.dictionary(file, diagnostics: engine) == nil)
        #expect(
            engine.sorted.map(\.rendered) == [
                "x.plist:2:1: error: not an XML property list with a <dict> [invalid-property-list]"
            ])
    }

    @Test func filesOverTheSizeLimitAreRefusedWithoutParsing() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("contents")
            try Data(count: SecureXMLReader.maximumSize + 10).write(to: path)
            let engine = DiagnosticEngine()
            #expect(ModelLoader().load(path: path.path, diagnostics: engine) == nil)
            #expect(
                engine.sorted.map(\.rendered) == [
                    "\(path.path):1:1: error: file is larger than the limit of 32 MiB [file-too-large]"
                ])
            let inMemory = DiagnosticEngine()
            let big = SourceFile(path: "big", bytes: [UInt8](repeating: 0x20, count: SecureXMLReader.maximumSize + 1))
            #expect(ModelParser().parse(big, diagnostics: inMemory) == nil)
            #expect(ids(inMemory) == ["file-too-large"])
        }
    }
}
