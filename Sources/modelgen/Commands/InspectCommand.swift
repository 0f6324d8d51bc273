import Foundation
import ModelGenCore
import ModelGenRuntime

struct InspectCommand: Command {
    static let name = "inspect"
    static let summary = "Describe a SQLite store Core Data wrote"
    static let help = """
        OVERVIEW: \(summary)

        Reads a Core Data SQLite store (with its -wal and -shm files, from a copy: the store is
        not changed) and prints its identity from Z_METADATA, each entity of Z_PRIMARYKEY with
        its number, parent, table, row count and key high-water mark, and every anomaly (rows
        whose Z_ENT belongs to another entity, Z_MAX below the largest Z_PK, a missing table),
        each with its table and row. With --model, also which version of the model bundle wrote
        the store: the versions the store binds to as an open binds it (every table, column,
        entity and parent accounted for both ways), narrowed by the store's model cache
        (Z_MODELCACHE) where it has one.

        USAGE: modelgen inspect <store.sqlite> [--model <bundle.xcdatamodeld>]

        \(spec.help)
        EXIT STATUS: 0 read (anomalies are reported, not failures), 1 not readable or not a Core
        Data store, 64 usage error.
        """
    static let spec = OptionSpec([
        .valued("--model", "bundle", "The model bundle whose versions to match the store with")
    ])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: arguments.positionals.isEmpty ? "missing store path" : "one store at a time")
        }
        let report: CoreDataStoreReport
        do {
            report = try CoreDataStoreInspection.inspect(path: path)
        } catch let error as DatabaseError {
            // The message names the store.
            output.printError("modelgen: error: \(error.message) [\(error.code)]")
            return .modelErrors
        } catch {
            output.printError("modelgen: error: \(error)")
            return .modelErrors
        }
        output.print(describe(report, path: path))
        guard let bundle = arguments.options["--model"] else { return .success }
        let engine = DiagnosticEngine()
        let versions = ModelLoader().loadAll(path: bundle, diagnostics: engine)
        if output.printDiagnostics(engine) || versions.isEmpty { return .modelErrors }
        let match = StoreVersionMatch(path: path, report: report, versions: versions)
        output.print(describe(match, bundle: bundle, hasCache: report.compiledModel != nil))
        return .success
    }

    static func describe(_ report: CoreDataStoreReport, path: String) -> String {
        var lines = ["store: \(path)"]
        lines.append("uuid: \(report.storeUUID ?? "-")")
        lines.append("framework version: \(report.frameworkVersion.map(String.init) ?? "-")")
        let identifiers = report.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", ")
        lines.append("model version identifiers: \(identifiers.isEmpty ? "-" : identifiers) (hints only)")
        lines.append("model cache: \(report.hasModelCache ? "present" : "absent")")
        lines.append("journal: \(report.journalMode)\(report.hasWAL ? ", with its -wal file" : "")")
        lines.append("entities:")
        let named = report.entities.map { entity in
            (entity, report.entities.first { $0.number == entity.parent }?.name)
        }
        for (entity, parent) in named {
            let under = parent.map { " < \($0)" } ?? ""
            let maxKey = entity.parent == 0 ? ", Z_MAX \(entity.maxKey)" : ""
            let rows = entity.rows == 1 ? "1 row" : "\(entity.rows) rows"
            lines.append("  \(entity.number) \(entity.name)\(under): \(rows) in \(entity.table)\(maxKey)")
        }
        lines.append(report.anomalies.isEmpty ? "anomalies: none" : "anomalies:")
        for anomaly in report.anomalies { lines.append("  \(anomaly)") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ match: StoreVersionMatch, bundle: String, hasCache: Bool) -> String {
        let evidence = hasCache ? "schema and model cache" : "schema; the store has no model cache"
        switch match.matches.count {
        case 1: return "model version: \(match.matches[0].version) (\(evidence))"
        case 0:
            var lines = ["model version: none of \(bundle) matches the store"]
            let closest = match.candidates.min {
                $0.schemaDifferences.count + ($0.cacheDifferences?.count ?? 0)
                    < $1.schemaDifferences.count + ($1.cacheDifferences?.count ?? 0)
            }
            if let closest {
                lines.append("closest: \(closest.version)")
                for difference in (closest.schemaDifferences + (closest.cacheDifferences ?? [])).prefix(10) {
                    lines.append("  \(difference)")
                }
            }
            return lines.joined(separator: "\n")
        default:
            return
                "model version: one of \(match.matches.map(\.version).joined(separator: ", ")) (\(evidence) cannot tell them apart)"
        }
    }
}
