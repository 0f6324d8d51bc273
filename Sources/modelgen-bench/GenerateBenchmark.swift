import CLibXML2
import ModelGenCore

/// `modelgen-bench generate`: the whole `generate` pipeline (front end, lowering, the Swift of
/// every entity and the DDL of both dialects, rendered in memory) on synthetic models of 50, 200
/// and 2,000 entities (20 attributes, 3 relationships with inverses each), each next to libxml2
/// alone parsing the same bytes; and the time per entity at 2,000 next to that at 200 (rendering
/// must stay linear).
enum GenerateBenchmark {
    static func run(runs: Int) -> [Phase] {
        xmlInitParser()
        var phases: [Phase] = []
        var perEntity: [Int: Double] = [:]
        for entities in [50, 200, 2_000] {
            let bytes = SyntheticModel.xml(entities: entities, attributes: 20)
            let count = entities >= 2_000 ? max(3, runs / 2) : runs
            let files = generate(bytes)
            precondition(
                files == entities + 3,
                "expected \(entities) entity files, the model file and two SQL files; got \(files)")
            let (baseline, time) = Clock.bestInterleaved(
                runs: count, baseline: { FrontendBenchmark.libxml2Parse(bytes) }, { _ = generate(bytes) })
            phases.append(Phase(name: "generate-\(entities)", milliseconds: time, baselineMilliseconds: baseline))
            perEntity[entities] = time / Double(entities)
        }
        phases.append(
            Phase(
                name: "per-entity-2000-vs-200", milliseconds: perEntity[2_000]!, baselineMilliseconds: perEntity[200]!))
        phases += breakdown(SyntheticModel.xml(entities: 2_000, attributes: 20), runs: max(3, runs / 3))
        return phases
    }

    /// Where the time of the 2,000-entity run goes, stage by stage (each next to the same baseline).
    static func breakdown(_ bytes: [UInt8], runs: Int) -> [Phase] {
        let baseline = Clock.best(runs: runs) { FrontendBenchmark.libxml2Parse(bytes) }
        let engine = DiagnosticEngine()
        var model = FrontEnd().run(
            SourceFile(path: "Synthetic.xcdatamodel/contents", bytes: bytes), diagnostics: engine)!
        model.modelName = "Synthetic"
        let schema = SchemaLowering().lower(model, diagnostics: engine)!
        let generator = SwiftGenerator(
            options: SwiftGenerationOptions(access: .public, sourceName: "Synthetic.xcdatamodeld"))
        let frontEnd = Clock.best(runs: runs) {
            _ = FrontEnd().run(
                SourceFile(path: "Synthetic.xcdatamodel/contents", bytes: bytes), diagnostics: DiagnosticEngine())
        }
        let lower = Clock.best(runs: runs) { _ = SchemaLowering().lower(model, diagnostics: DiagnosticEngine()) }
        let snapshotTime = Clock.best(runs: runs) { _ = SchemaSnapshot.make(schema) }
        let snapshot = SchemaSnapshot.make(schema)
        let sqlite = SQLEmitter(dialect: .sqlite).emitBytes(schema, snapshot: snapshot)
        let sql = Clock.best(runs: runs) {
            _ = SQLEmitter(dialect: .sqlite).emitBytes(schema, snapshot: snapshot)
            _ = SQLEmitter(dialect: .postgres).emitBytes(schema, snapshot: snapshot)
        }
        let context = Clock.best(runs: runs) { _ = generator.contextTrees(model: model, schema: schema) }
        let swift = Clock.best(runs: runs) {
            _ = try? generator.generate(model: model, schema: schema, snapshot: snapshot, sqliteDDL: sqlite)
        }
        return [
            Phase(name: "2000: front end", milliseconds: frontEnd, baselineMilliseconds: baseline),
            Phase(name: "2000: lower", milliseconds: lower, baselineMilliseconds: baseline),
            Phase(name: "2000: snapshot", milliseconds: snapshotTime, baselineMilliseconds: baseline),
            Phase(name: "2000: sql (both)", milliseconds: sql, baselineMilliseconds: baseline),
            Phase(name: "2000: swift context", milliseconds: context, baselineMilliseconds: baseline),
            Phase(name: "2000: swift", milliseconds: swift, baselineMilliseconds: baseline),
        ]
    }

    /// Runs the pipeline (as `modelgen generate --sql` does, from the model's bytes) and returns
    /// how many files it produced.
    static func generate(_ bytes: [UInt8]) -> Int {
        let engine = DiagnosticEngine()
        let pipeline = GeneratePipeline(
            options: SwiftGenerationOptions(access: .public, sourceName: "Synthetic.xcdatamodeld"), includesSQL: true)
        guard
            var model = FrontEnd().run(
                SourceFile(path: "Synthetic.xcdatamodel/contents", bytes: bytes), diagnostics: engine)
        else { fatalError("the synthetic model does not load: \(engine.sorted.prefix(3).map(\.rendered))") }
        model.modelName = "Synthetic"
        do {
            guard let files = try pipeline.run(model: model, bundle: nil, diagnostics: engine) else {
                fatalError("the synthetic model does not generate: \(engine.sorted.prefix(3).map(\.rendered))")
            }
            return files.count
        } catch {
            fatalError("the built-in templates do not compile: \(error)")
        }
    }
}
