import Foundation
import ModelGenCore
import ModelGenRuntime

struct ImportCommand: Command {
    static let name = "import"
    static let summary = "Move a store Core Data wrote into a modelgen store of the current version"
    static let help = """
        OVERVIEW: \(summary)

        Finds the version of the model bundle that wrote the Core Data store (as 'inspect --model'
        does), copies every object, value, link and ordered position into a new modelgen store of
        that version, then migrates it to the bundle's current version, planned as 'modelgen
        diff' plans it: renames followed by renaming identifier, data-dependent steps checked by
        their preflights, steps that lose data only with --allow-data-loss, a new required
        attribute without a default given by --default. Anything the plan cannot carry is
        refused before a file is written. The Core Data store is read from a private copy and
        left as it was; a SQLite target is built in a temporary file and put in place only when
        everything succeeded. Progress goes to standard error.

        USAGE: modelgen import <store.sqlite> --model <bundle.xcdatamodeld> (--into <file> | --postgres <url>)
                               [--allow-data-loss] [--default Entity.attribute=value]...

        \(spec.help)
        EXIT STATUS: 0 imported, 1 the store is of no version of the bundle, cannot be read, or
        cannot be carried to the current version (the reason printed), 64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--model", "bundle", "The model bundle whose version wrote the store"),
        .valued("--into", "file", "The new SQLite store to write (must not exist)"),
        .valued("--postgres", "url", "A PostgreSQL database to write into (its schema must be empty)"),
        .flag("--allow-data-loss", "Migrate even where the current version drops attributes or entities"),
        .valued(
            "--default", "Entity.attribute=value",
            "A value for a new required attribute without a default:\na constant, uuid() (one per row) or now() (repeatable)",
            repeatable: true),
    ])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: arguments.positionals.isEmpty ? "missing store path" : "one store at a time")
        }
        guard let bundle = arguments.options["--model"] else { throw UsageError(message: "missing --model <bundle>") }
        let into = arguments.options["--into"]
        let postgres = arguments.options["--postgres"]
        guard (into == nil) != (postgres == nil) else {
            throw UsageError(message: "give one target: --into <file> or --postgres <url>")
        }
        let defaults = try DiffCommand.migrationDefaults(arguments)
        if let into, FileManager.default.fileExists(atPath: into) {
            output.printError("modelgen: error: \(into) exists; import writes a new store")
            return .modelErrors
        }
        let engine = DiagnosticEngine()
        let versions = ModelLoader().loadAll(path: bundle, diagnostics: engine)
        guard let current = ModelLoader().load(path: bundle, diagnostics: engine) else {
            _ = output.printDiagnostics(engine)
            return .modelErrors
        }
        if engine.hasErrors || versions.isEmpty {
            _ = output.printDiagnostics(engine)
            return .modelErrors
        }
        do {
            let report = try CoreDataStoreInspection.inspect(path: path)
            let match = StoreVersionMatch(path: path, report: report, versions: versions)
            guard let found = match.matches.first,
                let wrote = versions.first(where: { $0.0.name == found.version })?.1
            else {
                output.printError(
                    "modelgen: error: "
                        + InspectCommand.describe(match, bundle: bundle, hasCache: report.compiledModel != nil))
                return .modelErrors
            }
            let plan = try Plan(
                source: wrote, sourceVersion: found.version, current: current,
                allowsDataLoss: arguments.has("--allow-data-loss"), defaults: defaults)
            let summary = try plan.run(path, into: into, postgres: postgres)
            output.print(
                "imported \(path) (version \(found.version)) into \(into ?? "PostgreSQL") as version \(current.versionName ?? current.modelName ?? "current"): \(summary.objects) objects, \(summary.links) links"
            )
            for step in plan.lostSteps { output.print("  dropped (--allow-data-loss): \(step)") }
            return .success
        } catch let error as DatabaseError {
            output.printError("modelgen: error: \(error.message) [\(error.code)]")
            return .modelErrors
        } catch {
            output.printError("modelgen: error: \(error)")
            return .modelErrors
        }
    }

    /// The two runtime models — the version that wrote the store, and the current one carrying
    /// the migration from it, planned as `modelgen diff` plans it (data-dependent steps run with
    /// their preflights, which stop the migration where the data does not fit) — or the reason
    /// the current version cannot be reached.
    struct Plan {
        let source: PersistentStore.Model
        let target: PersistentStore.Model
        let allowsDataLoss: Bool
        /// The migration's steps that lose data, taken with `--allow-data-loss`.
        let lostSteps: [String]

        init(
            source wrote: ObjectModel, sourceVersion: String, current: ObjectModel, allowsDataLoss: Bool,
            defaults: [String: String]
        ) throws {
            let name = current.modelName ?? "Model"
            let engine = DiagnosticEngine()
            guard let oldSchema = SchemaLowering().lower(wrote, diagnostics: engine),
                let newSchema = SchemaLowering().lower(current, diagnostics: engine),
                let source = RuntimeModelBridge.model(of: wrote, name: name)
            else { throw DatabaseError(.migration, "the model's versions do not lower to tables") }
            let plan = MigrationPlanner(defaults: defaults).plan(from: wrote, oldSchema, to: current, newSchema)
            let blocking = plan.blockingSteps(allowDataLoss: allowsDataLoss)
            guard blocking.isEmpty else {
                let steps = blocking.map { step -> String in
                    let hint =
                        switch step.safety {
                        case .lossy: " (pass --allow-data-loss to drop it)"
                        default: ""
                        }
                    return "\(step.safety.rawValue) \(step.code) \(step.subject): \(step.message)\(hint)"
                }
                throw DatabaseError(
                    .migration,
                    "version \(sourceVersion) cannot be migrated to the current version automatically: "
                        + steps.joined(separator: "; "))
            }
            lostSteps = plan.steps.filter { $0.safety == .lossy }.map { "\($0.code) \($0.subject)" }
            let from = SchemaSnapshot.make(oldSchema).hash
            var migrations: (sqlite: [PersistentStore.Migration], postgres: [PersistentStore.Migration]) = ([], [])
            if from != SchemaSnapshot.make(newSchema).hash {
                migrations.sqlite = [
                    PersistentStore.Migration(
                        from: from, version: sourceVersion,
                        statements: SQLDialect.sqlite.migrationRenderer.statements(plan), blockingSteps: [])
                ]
                migrations.postgres = [
                    PersistentStore.Migration(
                        from: from, version: sourceVersion,
                        statements: SQLDialect.postgres.migrationRenderer.statements(plan), blockingSteps: [])
                ]
            }
            guard let target = RuntimeModelBridge.model(of: current, name: name, migrations: migrations) else {
                throw DatabaseError(.migration, "the current version does not lower to tables")
            }
            self.source = source
            self.target = target
            self.allowsDataLoss = allowsDataLoss
        }

        /// Copies the store into a new store of its version, then opens that with the current
        /// version (which migrates it). A SQLite target appears only when all of it succeeded.
        func run(_ path: String, into: String?, postgres: String?) throws -> PersistentStore.AdoptionReport {
            let options = PersistentStore.OpenOptions(allowsDataLoss: allowsDataLoss)
            let progress: (PersistentStore.AdoptionProgress) -> Void = { step in
                FileHandle.standardError.write(
                    Data("modelgen: import: \(step.rowsCopied) of \(step.rowsTotal) rows (\(step.table))\n".utf8))
            }
            if let postgres {
                let report = try PersistentStore(postgres: postgres, model: source).adoptRows(
                    ofCoreDataStoreAt: path, progress: progress)
                do {
                    _ = try PersistentStore(postgres: postgres, model: target, options: options)
                } catch var error as DatabaseError {
                    // The migration is one transaction: the database holds the adopted store of
                    // the older version, whole; say so rather than leave it unexplained.
                    error.message +=
                        " (the database now holds the store as its own version wrote it, not migrated: drop its tables before importing again)"
                    throw error
                }
                return report
            }
            let into = into!
            let building = into + ".importing-\(ProcessInfo.processInfo.processIdentifier)"
            defer {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try? FileManager.default.removeItem(atPath: building + suffix)
                }
            }
            let report: PersistentStore.AdoptionReport
            do {
                report = try PersistentStore(path: building, model: source).adoptRows(
                    ofCoreDataStoreAt: path, progress: progress)
            }
            // Opened with the current version, the store migrates; closing it folds its -wal in.
            do { _ = try PersistentStore(path: building, model: target, options: options) }
            try FileManager.default.moveItem(atPath: building, toPath: into)
            if FileManager.default.fileExists(atPath: building + "-wal") {
                try FileManager.default.moveItem(atPath: building + "-wal", toPath: into + "-wal")
            }
            return report
        }
    }
}
