import Mustache

/// libFuzzer entry: any text as a Mustache template (and as its own partial), rendered with a
/// fixed context. Invariants: no crash, no hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    guard let template = try? MustacheTemplate(text) else { return 0 }
    let context: MustacheValue = [
        "a": ["b": ["c": "deep"]], "list": [1, 2, ["x": "y"]], "flag": true, "none": nil, "text": "<&\">",
        "n": .number(1.5),
    ]
    _ = template.render(context, partials: ["p": text, "q": "{{a.b.c}}{{>p}}"])
    return 0
}
