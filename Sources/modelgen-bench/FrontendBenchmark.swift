import CLibXML2
import ModelGenCore

/// `modelgen-bench frontend`: Parse + Resolve + Validate of a 2,000 × 20 × 3 model against
/// libxml2 alone parsing (and freeing) the same bytes with the same options.
enum FrontendBenchmark {
    static func run(entities: Int, runs: Int) -> [Phase] {
        let bytes = SyntheticModel.xml(entities: entities, attributes: 20)
        xmlInitParser()
        let baseline = Clock.best(runs: runs) { libxml2Parse(bytes) }

        let file = SourceFile(path: "Synthetic.xcdatamodel/contents", bytes: bytes)
        var check = DiagnosticEngine()
        guard let syntax = ModelParser().parse(file, diagnostics: check), !check.hasErrors else {
            fatalError("the synthetic model does not parse: \(check.sorted.map(\.rendered))")
        }
        let model = ModelResolver().resolve(syntax, diagnostics: check)
        ModelValidator().validate(model, diagnostics: check)
        precondition(
            check.diagnostics.isEmpty, "the synthetic model has diagnostics: \(check.sorted.prefix(3).map(\.rendered))")
        precondition(model.entities.count == entities)

        let parse = Clock.best(runs: runs) {
            let engine = DiagnosticEngine()
            _ = ModelParser().parse(SourceFile(path: file.path, bytes: bytes), diagnostics: engine)
        }
        let resolve = Clock.best(runs: runs) {
            _ = ModelResolver().resolve(syntax, diagnostics: DiagnosticEngine())
        }
        let validate = Clock.best(runs: runs) {
            ModelValidator().validate(model, diagnostics: DiagnosticEngine())
        }
        let whole = Clock.best(runs: runs) {
            check = DiagnosticEngine()
            _ = FrontEnd().run(SourceFile(path: file.path, bytes: bytes), diagnostics: check)
        }
        return [
            Phase(name: "parse", milliseconds: parse, baselineMilliseconds: baseline),
            Phase(name: "resolve", milliseconds: resolve, baselineMilliseconds: baseline),
            Phase(name: "validate", milliseconds: validate, baselineMilliseconds: baseline),
            Phase(name: "frontend", milliseconds: whole, baselineMilliseconds: baseline),
        ]
    }

    /// The baseline: libxml2 builds and frees the document, nothing else.
    static func libxml2Parse(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                let document = xmlReadMemory(pointer, Int32(buffer.count), "contents", nil, ModelParser.libxml2Options)
                precondition(document != nil, "libxml2 rejected the synthetic model")
                xmlFreeDoc(document)
            }
        }
    }
}
