import PredicateSyntax

/// libFuzzer entry: any text through the NSPredicate parser. Invariants: no crash; a parsed tree
/// prints to a format string that parses back to the same printed form.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    guard let tree = try? PredicateParser.parse(text) else { return 0 }
    let printed = tree.description
    guard let again = try? PredicateParser.parse(printed) else {
        fatalError("canonical form does not parse: \(printed)")
    }
    if again.description != printed { fatalError("canonical form is not stable: \(printed) → \(again.description)") }
    return 0
}
