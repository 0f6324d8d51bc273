import Foundation

@testable import ModelGenCore

/// libFuzzer entry: any bytes through Parse → Resolve → Validate. Invariants: no crash, no hang
/// (libFuzzer's -timeout), and every error has a location; and the file cut into parts parses
/// exactly as the whole file does, whenever the parts are used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let engine = DiagnosticEngine()
    let source = SourceFile(path: "fuzz/contents", bytes: bytes)
    _ = FrontEnd().run(source, diagnostics: engine)
    for diagnostic in engine.diagnostics where diagnostic.severity == .error && diagnostic.location == nil {
        fatalError("error without a location: \(diagnostic.rendered)")
    }
    let whole = DiagnosticEngine()
    let syntax = ModelParser().parseAsOne(source, diagnostics: whole)
    for parts in 2...3 {
        guard let (split, findings) = PartitionedParse.parse(source, parts: parts) else { continue }
        guard let syntax, encoded(split) == encoded(syntax), findings == whole.diagnostics else {
            fatalError("\(parts) parts parse differently from the whole file")
        }
    }
    return 0
}

private func encoded(_ syntax: ModelSyntax) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(syntax)) ?? Data()
}
