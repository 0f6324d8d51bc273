import Foundation
import ModelGenCore
import TestSupport

let usage = """
    USAGE: modelgen-bench <benchmark> [--json] [--runs N] [--entities N] [--keep-freed-memory] [--unsettled] [--noise]
                          [--engine sqlite|postgres] [--url URL]

    BENCHMARKS:
      frontend   parse, resolve and validate a generated model (default 2,000 entities × 20
                 attributes × 3 relationships) next to libxml2 alone parsing the same bytes
      generate   the whole generate pipeline (Swift and both SQL dialects) on models of 50, 200
                 and 2,000 entities next to libxml2 parsing the same bytes, and the time per
                 entity at 2,000 next to that at 200
      runtime    insert, fetch, update and delete 100,000 objects of a five-attribute entity
                 through ModelGenRuntime next to the raw SQLite C API doing the same work (with
                 --engine postgres: on PostgreSQL, next to libpq doing the same work pipelined)
      concurrent the runtime benchmark's "concurrent reads" phases alone (--engine as runtime)

    model        not a benchmark: prints the generated model (--entities N, default 2,000) as
                 the XML of an .xcdatamodel's contents file, to profile the modelgen CLI with

    OPTIONS:
      --json               one JSON object: {"phases":[{"name","ms","baselineMs","ratio"}]}
      --runs N             frontend and generate: best of N runs per phase (default 15)
      --entities N         the model's size for frontend and model (default 2,000)
      --keep-freed-memory  the C allocator set as the modelgen CLI sets it (freed memory kept
                           for reuse; see BatchMemory) for the measured code and the baseline
                           alike; by default it is left as the process starts. For runtime:
                           the run reuses the memory its warm-up freed instead of new pages
      --unsettled          leave the C allocator's deferred work for what a timed run freed
                           to whatever allocates next (by default each run ends with it done,
                           on its own clock; see Clock.time), to compare the two accountings
      --engine E           runtime: sqlite (default) or postgres
      --url URL            runtime on postgres: the database (a libpq URL or connection string);
                           by default a throwaway cluster is started and removed afterwards
      --noise              runtime: also time each phase's baseline work a second time (on a
                           second file, after the runtime's turn) and print its time ÷ the
                           first's, the ratio this machine's noise alone gives in one run

    Build in release mode: swift run -c release modelgen-bench frontend
    """

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(arguments.isEmpty ? 64 : 0)
}
let benchmark = arguments.removeFirst()
var json = false
var runs = 15
var entities = 2_000
var keepFreedMemory = false
var noise = false
var engineName = "sqlite"
var url: String?
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--json": json = true
    case "--keep-freed-memory": keepFreedMemory = true
    case "--unsettled": Clock.settlesFreedMemory = false
    case "--noise": noise = true
    case "--engine", "--url":
        guard let value = arguments.first else {
            FileHandle.standardError.write(Data("modelgen-bench: error: '\(argument)' needs a value\n".utf8))
            exit(64)
        }
        arguments.removeFirst()
        if argument == "--engine" { engineName = value } else { url = value }
    case "--runs", "--entities":
        guard let text = arguments.first, let value = Int(text), value > 0 else {
            FileHandle.standardError.write(Data("modelgen-bench: error: '\(argument)' needs a positive number\n".utf8))
            exit(64)
        }
        arguments.removeFirst()
        if argument == "--runs" { runs = value } else { entities = value }
    default:
        FileHandle.standardError.write(Data("modelgen-bench: error: unknown option '\(argument)'\n".utf8))
        exit(64)
    }
}

if keepFreedMemory && !BatchMemory.keepFreedMemory() {
    FileHandle.standardError.write(
        Data("modelgen-bench: warning: this C library does not take the allocator settings\n".utf8))
}

switch benchmark {
case "frontend":
    let phases = FrontendBenchmark.run(entities: entities, runs: runs)
    Report.print(
        phases, json: json,
        title: "frontend: \(entities) entities × 20 attributes × 3 relationships, best of \(runs) runs")
case "generate":
    let phases = GenerateBenchmark.run(runs: runs)
    Report.print(
        phases, json: json,
        title:
            "generate: 50, 200 and 2,000 entities × 20 attributes × 3 relationships, best of \(runs) runs (2,000: \(max(3, runs / 2))), each size's runs alternating with its baseline's"
    )
case "model":
    // Not a benchmark: the generated model on standard output, to profile the CLI with.
    FileHandle.standardOutput.write(Data(SyntheticModel.xml(entities: entities, attributes: 20)))
case "runtime", "concurrent":
    do {
        let only = benchmark == "concurrent"
        switch engineName {
        case "sqlite":
            let phases = try RuntimeBenchmark.run(objects: 100_000, noise: noise, only: only)
            Report.print(phases, json: json, title: "runtime: 100,000 objects of a five-attribute entity, one run")
        case "postgres":
            var cluster: PostgresCluster?
            if url == nil { cluster = try PostgresCluster.start() }
            defer { cluster?.stop() }
            let connection = url ?? "host=\(cluster!.directory.path) user=postgres dbname=postgres"
            let phases = try RuntimeBenchmark.run(
                objects: 100_000, noise: noise, engine: .postgres(connection: connection), only: only)
            Report.print(
                phases, json: json, title: "runtime on PostgreSQL: 100,000 objects of a five-attribute entity, one run")
        default:
            FileHandle.standardError.write(Data("modelgen-bench: error: --engine takes sqlite or postgres\n".utf8))
            exit(64)
        }
    } catch {
        FileHandle.standardError.write(Data("modelgen-bench: error: \(error)\n".utf8))
        exit(70)
    }
default:
    FileHandle.standardError.write(Data("modelgen-bench: error: unknown benchmark '\(benchmark)'\n\(usage)\n".utf8))
    exit(64)
}
