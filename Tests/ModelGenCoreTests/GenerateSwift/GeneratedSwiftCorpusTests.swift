import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// The generated Swift of every model version in the corpus type-checks against ModelGenRuntime
/// in Swift 6 mode with no error and no warning (`swiftc -typecheck`, one model per invocation,
/// two at a time).
@Suite struct GeneratedSwiftCorpusTests {
    /// Where `swift build` put the runtime's module (the tests run after the build).
    static let modulesDirectory = TestPaths.packageRoot.appendingPathComponent(".build/debug/Modules")

    static func swiftc() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// `swiftc -typecheck` of `files` against the built runtime, in Swift 6 mode.
    static func typecheck(_ swiftc: String, _ files: [String], extra: [String] = []) throws -> Subprocess.Output {
        let csqlite = TestPaths.packageRoot.appendingPathComponent("Sources/CSQLite").path
        let clibpq = TestPaths.packageRoot.appendingPathComponent("Sources/CLibPQ").path
        return try Subprocess.run(
            swiftc,
            [
                "-typecheck", "-swift-version", "6", "-I", modulesDirectory.path, "-I", csqlite, "-I", clibpq, "-Xcc",
                "-I/usr/include/postgresql",
            ] + extra + files)
    }

    /// The error and warning lines of a compiler run.
    static func diagnostics(_ output: Subprocess.Output) -> [Substring] {
        (output.stdout + output.stderr).split(separator: "\n").filter {
            $0.contains("error:") || $0.contains("warning:")
        }
    }

    /// Writes the generated files of `contents` (a model version) into `directory`, plus the
    /// classes a user writes for `category` entities, as the generated comment shows them.
    static func generate(_ contents: URL, into directory: URL, access: SwiftGenerationOptions.Access = .public) throws
        -> [URL]
    {
        let engine = DiagnosticEngine()
        let bytes = try [UInt8](Data(contentsOf: contents))
        var model = try #require(FrontEnd().run(SourceFile(path: contents.path, bytes: bytes), diagnostics: engine))
        let versionName = contents.deletingLastPathComponent().deletingPathExtension().lastPathComponent
        model.modelName = versionName
        model.versionName = versionName
        let schema = try #require(
            SchemaLowering().lower(model, diagnostics: engine), "\(engine.sorted.map(\.rendered))")
        let options = SwiftGenerationOptions(access: access, sourceName: versionName + ".xcdatamodel")
        // Versions of a bundle carry the migrations from the bundle's other versions.
        let bundle = contents.deletingLastPathComponent().deletingLastPathComponent()
        let migrations =
            bundle.pathExtension == "xcdatamodeld"
            ? StoreMigration.all(to: model, schema, bundle: bundle.path, configuration: nil) : []
        let files = try SwiftGenerator(options: options).generate(model: model, schema: schema, migrations: migrations)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var urls: [URL] = []
        var userClasses = "import Foundation\nimport ModelGenRuntime\n"
        var declared: Set<String> = []
        for file in files {
            let url = directory.appendingPathComponent(file.name)
            try file.contents.write(to: url, atomically: true, encoding: .utf8)
            urls.append(url)
            if let match = file.contents.firstMatch(
                of: /\/\/ `((?:nonisolated )?(?:public |package )?(?:final )?class [^`]+)`/)
            {
                userClasses += match.1 + "\n"
            }
            userTypes(in: file.contents, access: access, into: &declared, &userClasses)
        }
        let stubs = directory.appendingPathComponent("_UserClasses.swift")
        try userClasses.write(to: stubs, atomically: true, encoding: .utf8)
        return urls + [stubs]
    }

    /// The types the program declares for typed attributes, as the generated comments describe
    /// them (`// `gender` is a `Gender`: a `RawRepresentable` type whose raw value is `Int16`.`):
    /// the least that satisfies each. Names the standard library has (`[String]`) are skipped.
    static func userTypes(
        in contents: String, access: SwiftGenerationOptions.Access, into declared: inout Set<String>,
        _ text: inout String
    ) {
        let access = access == .internal ? "" : access.rawValue + " "
        for match in contents.matches(of: /(?m)^\/\/ `[^`]+` is a `([A-Za-z_][A-Za-z0-9_]*)`: (.*)$/) {
            let name = String(match.1)
            guard declared.insert(name).inserted else { continue }
            let open = (match.2.contains("`nonisolated`") ? "nonisolated " : "") + access
            if let raw = match.2.firstMatch(of: /raw value is `([A-Za-z0-9]+)`/) {
                text +=
                    "\(open)struct \(name): RawRepresentable { \(access)var rawValue: \(raw.1); \(access)init(rawValue: \(raw.1)) { self.rawValue = rawValue } }\n"
            } else if match.2.contains("`Codable`") {
                text += "\(open)struct \(name): Codable {}\n"
            } else {
                text += "\(open)struct \(name) {}\n"
            }
        }
    }

    @Test func referenceModelsTypeCheckWithInternalAccess() throws {
        let swiftc = try #require(Self.swiftc(), "swiftc is not on PATH")
        let root = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let models = ReferenceTests.models
        #expect(models.count == 10)
        for name in models {
            let bundle = TestPaths.models.appendingPathComponent(name + ".xcdatamodeld")
            let contents = try #require(TestPaths.files(named: "contents", under: bundle).first)
            let files = try Self.generate(contents, into: root.appendingPathComponent(name), access: .internal)
            let output = try Self.typecheck(swiftc, files.map(\.path))
            let diagnostics = Self.diagnostics(output)
            #expect(
                output.status == 0 && diagnostics.isEmpty, "\(name):\n\(diagnostics.prefix(20).joined(separator: "\n"))"
            )
        }
    }

    /// `package` access (a package's targets share the generated classes): the models with
    /// inheritance, `category` entities below and above generated classes, and typed values.
    @Test func packageAccessTypeChecks() throws {
        let swiftc = try #require(Self.swiftc(), "swiftc is not on PATH")
        let root = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for name in ["Gallery", "Library", "Tasks"] {
            let bundle = TestPaths.models.appendingPathComponent(name + ".xcdatamodeld")
            let contents = try #require(TestPaths.files(named: "contents", under: bundle).first)
            let files = try Self.generate(contents, into: root.appendingPathComponent(name), access: .package)
            #expect(
                try String(contentsOf: files[0], encoding: .utf8).contains("package "), "\(name): package declarations")
            let output = try Self.typecheck(swiftc, files.map(\.path), extra: ["-package-name", "ModelGenTests"])
            let diagnostics = Self.diagnostics(output)
            #expect(
                output.status == 0 && diagnostics.isEmpty, "\(name):\n\(diagnostics.prefix(20).joined(separator: "\n"))"
            )
        }
    }

    /// A target whose code is on the main actor unless it says otherwise (Swift 6.2's
    /// `defaultIsolation(MainActor.self)`, the `-default-isolation MainActor` it passes to the
    /// compiler): the generated declarations are `nonisolated`, as their base class is, so they
    /// compile there too — with the user's own classes of `category` entities, as the comments
    /// show them, and the torture model's names.
    @Test func mainActorDefaultIsolationTypeChecks() throws {
        let swiftc = try #require(Self.swiftc(), "swiftc is not on PATH")
        let root = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var sources = try ReferenceTests.models.map { name in
            (
                name,
                try #require(
                    TestPaths.files(
                        named: "contents", under: TestPaths.models.appendingPathComponent(name + ".xcdatamodeld")
                    ).first)
            )
        }
        sources.append(("Torture", Self.tortureContents))
        for (name, contents) in sources {
            let files = try Self.generate(contents, into: root.appendingPathComponent(name))
            let output = try Self.typecheck(swiftc, files.map(\.path), extra: ["-default-isolation", "MainActor"])
            let diagnostics = Self.diagnostics(output)
            #expect(
                output.status == 0 && diagnostics.isEmpty, "\(name):\n\(diagnostics.prefix(20).joined(separator: "\n"))"
            )
        }
    }

    static let tortureContents = TestPaths.packageRoot.appendingPathComponent(
        "Tests/ModelGenCoreTests/Fixtures/Torture.xcdatamodeld/Torture.xcdatamodel/contents")

    /// Entities named after standard-library, Foundation and runtime types, Swift keywords as
    /// property names, same-named properties of sibling sub-entities: the generated code compiles.
    @Test func theTortureModelTypeChecks() throws {
        let swiftc = try #require(Self.swiftc(), "swiftc is not on PATH")
        let root = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let contents = Self.tortureContents
        for access in [SwiftGenerationOptions.Access.public, .internal] {
            let files = try Self.generate(contents, into: root.appendingPathComponent("\(access)"), access: access)
            let output = try Self.typecheck(swiftc, files.map(\.path))
            let diagnostics = Self.diagnostics(output)
            #expect(output.status == 0 && diagnostics.isEmpty, "\(diagnostics.prefix(20).joined(separator: "\n"))")
        }
    }

    /// Every public type of the runtime is a name generated classes may not take (the list in
    /// `SwiftNames` is checked against the runtime's sources, not kept by hand alone).
    @Test func runtimeTypeNamesAreReserved() throws {
        let sources = TestPaths.packageRoot.appendingPathComponent("Sources/ModelGenRuntime")
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" } ?? []
        var names: Set<String> = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(
                of: /(?m)^public (?:final )?(?:class|struct|enum|protocol|typealias|actor) ([A-Za-z_][A-Za-z0-9_]*)/)
            {
                names.insert(String(match.1))
            }
        }
        #expect(names.count > 10)
        for name in names.sorted() {
            #expect(SwiftNames.reservedTypeNames.contains(name), "the runtime's public type \(name) is not reserved")
        }
    }

    @Test func everyCorpusVersionTypeChecksWithoutWarnings() throws {
        guard TestPaths.sharedFolder("corpus") != nil else { return }
        let swiftc = try #require(Self.swiftc(), "swiftc is not on PATH")
        try #require(
            FileManager.default.fileExists(
                atPath: Self.modulesDirectory.appendingPathComponent("ModelGenRuntime.swiftmodule").path),
            "build ModelGenRuntime first (swift build)")
        let versions = CorpusTests.contentsFiles
        #expect(versions.count >= 110)
        let root = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var jobs: [(String, [URL])] = []
        for (number, contents) in versions.enumerated() {
            jobs.append((contents.path, try Self.generate(contents, into: root.appendingPathComponent("\(number)"))))
        }
        let results = Results(count: jobs.count)
        let work = jobs.map { job in job.1.map(\.path) }
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for index in stride(from: worker, to: work.count, by: 2) {
                results.set(index, Result { try Self.typecheck(swiftc, work[index]) })
            }
        }
        var clean = 0
        for (index, job) in jobs.enumerated() {
            switch results.value(index) {
            case .success(let output)?:
                let diagnostics = Self.diagnostics(output)
                #expect(
                    output.status == 0 && diagnostics.isEmpty,
                    "\(job.0):\n\(diagnostics.prefix(20).joined(separator: "\n"))")
                if output.status == 0 && diagnostics.isEmpty { clean += 1 }
            case .failure(let error)?:
                Issue.record("\(job.0): \(error)")
            case nil:
                Issue.record("\(job.0): not run")
            }
        }
        print("generated Swift: \(clean) of \(jobs.count) corpus model versions type-check with no error or warning")
    }
}

/// Results written by concurrent workers.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<Subprocess.Output, any Error>?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Result<Subprocess.Output, any Error>) {
        lock.lock()
        values[index] = value
        lock.unlock()
    }

    func value(_ index: Int) -> Result<Subprocess.Output, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return values[index]
    }
}
