import PredicateSyntax

/// A parsed predicate inside the model; encodes as its canonical format string.
public struct PredicateNodeBox: Sendable, Encodable {
    public var node: PredicateNode

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(node.description)
    }
}
