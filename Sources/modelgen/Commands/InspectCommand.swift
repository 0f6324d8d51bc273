import Foundation
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
        each with its table and row.

        USAGE: modelgen inspect <store.sqlite>

        \(spec.help)
        EXIT STATUS: 0 read (anomalies are reported, not failures), 1 not readable or not a Core
        Data store, 64 usage error.
        """
    static let spec = OptionSpec([])

    static func run(_ arguments: ParsedArguments, output: inout Output) throws(UsageError) -> ExitCode {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(message: arguments.positionals.isEmpty ? "missing store path" : "one store at a time")
        }
        let report: CoreDataStoreReport
        do {
            report = try CoreDataStoreInspection.inspect(path: path)
        } catch {
            // The message names the store.
            output.printError("modelgen: error: \(error.message) [\(error.code)]")
            return .modelErrors
        }
        output.print(describe(report, path: path))
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
}
