/// Renders a `PredicateNode` back to a canonical format string: keywords in upper case, `==`,
/// strings double-quoted, full parentheses around nested AND/OR. Parsing the result gives the
/// same tree (placeholders keep their kinds; their indices follow order of appearance).
extension PredicateNode: CustomStringConvertible {
    public var description: String { formatted(nested: false) }

    func formatted(nested: Bool) -> String {
        switch self {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let inner):
            return "NOT " + inner.formatted(nested: true)
        case .and(let terms):
            let text = terms.map { $0.formatted(nested: true) }.joined(separator: " AND ")
            return nested ? "(\(text))" : text
        case .or(let terms):
            let text = terms.map { $0.formatted(nested: true) }.joined(separator: " OR ")
            return nested ? "(\(text))" : text
        case .comparison(let comparison):
            return comparison.description
        }
    }
}

extension Comparison: CustomStringConvertible {
    public var description: String {
        let quantifierText = quantifier == .none ? "" : quantifier.rawValue + " "
        return "\(quantifierText)\(lhs) \(op.rawValue)\(options.formatted) \(rhs)"
    }
}

extension Expression: CustomStringConvertible {
    public var description: String {
        switch self {
        case .keyPath(let root, let components, _):
            var parts: [String]
            switch root {
            case .implicit: parts = []
            case .self: parts = ["SELF"]
            case .variable(let name): parts = ["$" + name]
            case .argument: parts = ["%K"]
            }
            parts += components.map(Self.escapedKey)
            return parts.joined(separator: ".")
        case .literal(let literal):
            return literal.description
        case .variable(let name, _):
            return "$" + name
        case .argument(_, let kind):
            return "%" + kind.rawValue
        case .aggregate(let items):
            return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .function(let name, let arguments):
            return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        case .arithmetic(let op, let lhs, let rhs):
            // Parentheses only where precedence or associativity needs them: a long `a - b - c …`
            // prints flat, as it was read, instead of nesting one level per term.
            let level = op.precedence
            let leftNeeds = lhs.arithmeticPrecedence.map { op == .power ? $0 <= level : $0 < level } ?? false
            let rightNeeds = rhs.arithmeticPrecedence.map { op == .power ? $0 < level : $0 <= level } ?? false
            let left = leftNeeds ? "(\(lhs))" : lhs.description
            let right = rightNeeds ? "(\(rhs))" : rhs.description
            return "\(left) \(op.rawValue) \(right)"
        case .negate(let inner):
            // Parentheses only around arithmetic: `-(-(-a))` would nest deeper than the input did.
            if case .arithmetic = inner { return "-(\(inner))" }
            return "-" + inner.description
        case .index(let base, let index):
            let head = base.arithmeticPrecedence == nil ? base.description : "(\(base))"
            switch index {
            case .position(let position): return "\(head)[\(position)]"
            case .first: return "\(head)[FIRST]"
            case .last: return "\(head)[LAST]"
            case .size: return "\(head)[SIZE]"
            }
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        case .cast(let value, let type):
            return "CAST(\(value), \(Literal.string(type)))"
        case .member(let base, let components):
            let head = base.arithmeticPrecedence == nil ? base.description : "(\(base))"
            return "\(head)." + components.map(Self.escapedKey).joined(separator: ".")
        }
    }

    /// Words the grammar reserves, written with `#` when used as keys.
    private static let wordsNeedingEscape: Set<String> = PredicateParser.reservedWords.union([
        "NIL", "NULL", "TRUE", "FALSE", "YES", "NO", "SELF", "SUBQUERY", "CAST",
    ])

    static func escapedKey(_ key: String) -> String {
        wordsNeedingEscape.contains(key.uppercased()) ? "#" + key : key
    }
}

extension Literal: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let value): return value ? "YES" : "NO"
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let text):
            var escaped = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                case "\r": escaped += "\\r"
                case "\0": escaped += "\\0"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped + "\""
        }
    }
}

extension PredicateNode {
    /// Every `$VARIABLE` used as a value or a key-path root, in order of first appearance,
    /// excluding SUBQUERY iteration variables inside their SUBQUERY.
    public var variables: [String] {
        var names: [String] = []
        var bound: [String] = []
        collectVariables(into: &names, bound: &bound)
        return names
    }

    fileprivate func collectVariables(into names: inout [String], bound: inout [String]) {
        switch self {
        case .constant: break
        case .not(let inner): inner.collectVariables(into: &names, bound: &bound)
        case .and(let terms), .or(let terms):
            for term in terms { term.collectVariables(into: &names, bound: &bound) }
        case .comparison(let comparison):
            comparison.lhs.collectVariables(into: &names, bound: &bound)
            comparison.rhs.collectVariables(into: &names, bound: &bound)
        }
    }
}

extension Expression {
    fileprivate func collectVariables(into names: inout [String], bound: inout [String]) {
        func add(_ name: String) {
            if !bound.contains(name) && !names.contains(name) { names.append(name) }
        }
        switch self {
        case .keyPath(let root, _, _):
            if case .variable(let name) = root { add(name) }
        case .variable(let name, _): add(name)
        case .literal, .argument: break
        case .aggregate(let items): for item in items { item.collectVariables(into: &names, bound: &bound) }
        case .function(_, let arguments): for item in arguments { item.collectVariables(into: &names, bound: &bound) }
        case .arithmetic(_, let lhs, let rhs):
            lhs.collectVariables(into: &names, bound: &bound)
            rhs.collectVariables(into: &names, bound: &bound)
        case .negate(let inner), .cast(let inner, _), .member(let inner, _):
            inner.collectVariables(into: &names, bound: &bound)
        case .index(let base, let index):
            base.collectVariables(into: &names, bound: &bound)
            if case .position(let position) = index { position.collectVariables(into: &names, bound: &bound) }
        case .subquery(let collection, let variable, let predicate):
            collection.collectVariables(into: &names, bound: &bound)
            bound.append(variable)
            predicate.collectVariables(into: &names, bound: &bound)
            bound.removeLast()
        }
    }
}

extension ArithmeticOperator {
    /// Binding strength: `+ -` 1, `* /` 2, `**` 3 (right-associative).
    var precedence: Int {
        switch self {
        case .add, .subtract: 1
        case .multiply, .divide: 2
        case .power: 3
        }
    }
}

extension Expression {
    /// The precedence of the operator at the top, when this is arithmetic.
    var arithmeticPrecedence: Int? {
        if case .arithmetic(let op, _, _) = self { return op.precedence }
        return nil
    }
}
