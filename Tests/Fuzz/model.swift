import ModelGenCore

/// libFuzzer entry: any bytes through Parse → Resolve → Validate. Invariants: no crash, no hang
/// (libFuzzer's -timeout), and every error has a location.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let engine = DiagnosticEngine()
    _ = FrontEnd().run(SourceFile(path: "fuzz/contents", bytes: bytes), diagnostics: engine)
    for diagnostic in engine.diagnostics where diagnostic.severity == .error && diagnostic.location == nil {
        fatalError("error without a location: \(diagnostic.rendered)")
    }
    return 0
}
