/// Parses NSPredicate format strings (Apple's "Predicate Format String Syntax") into a
/// `PredicateNode`.
///
/// Covers what Core Data users write: comparisons (`==`, `=`, `!=`, `<>`, `<`, `<=`, `=<`, `>`,
/// `>=`, `=>`), BEGINSWITH/ENDSWITH/CONTAINS/LIKE/MATCHES with `[c]`/`[d]`/`[cd]`, IN, BETWEEN,
/// AND/OR/NOT and `&&`/`||`/`!`, ANY/ALL/NONE/SOME, key paths with collection operators
/// (`@count`, `@sum`, …), `%@`/`%K`/`%d`/`%f` placeholders, `$VARIABLE`s, literals, nil/NULL,
/// TRUEPREDICATE/FALSEPREDICATE, aggregates `{…}`, arithmetic, functions, SUBQUERY and indexes.
/// Keywords are case-insensitive; `#word` escapes a reserved word.
///
/// ```swift
/// let predicate = try PredicateParser.parse("name BEGINSWITH[c] %@ AND universe IN %@")
/// ```
public struct PredicateParser {
    private var tokens: [Token]
    private var position = 0
    private var argumentCount = 0
    /// Nesting depth, bounded so that hostile input cannot exhaust the stack.
    private var depth = 0
    public static let maximumDepth = 200

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    /// Parses a whole format string.
    /// - Throws: `PredicateSyntaxError` with the byte offset of the problem.
    public static func parse(_ format: String) throws(PredicateSyntaxError) -> PredicateNode {
        var parser = PredicateParser(tokens: try PredicateLexer.tokenize(format))
        let predicate = try parser.parseOr()
        guard parser.current.kind == .end else {
            throw PredicateSyntaxError("unexpected \(parser.describe(parser.current))", offset: parser.current.offset)
        }
        return predicate
    }

    // MARK: - Token helpers

    private var current: Token { tokens[position] }

    private func describe(_ token: Token) -> String {
        switch token.kind {
        case .identifier(let name), .escapedIdentifier(let name): "'\(name)'"
        case .string(let text): "string \"\(text)\""
        case .integer(let value): "number \(value)"
        case .double(let value): "number \(value)"
        case .variable(let name): "'$\(name)'"
        case .argument(let kind): "'%\(kind.rawValue)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "end of predicate"
        }
    }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    /// Whether the current token is the (case-insensitive, unescaped) keyword `word`.
    private func isKeyword(_ word: String) -> Bool {
        if case .identifier(let name) = current.kind { return name.uppercased() == word }
        return false
    }

    private mutating func expect(_ symbol: String) throws(PredicateSyntaxError) {
        guard isSymbol(symbol) else {
            throw PredicateSyntaxError("expected '\(symbol)' but found \(describe(current))", offset: current.offset)
        }
        advance()
    }

    private mutating func enter() throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw PredicateSyntaxError("predicate is nested too deeply", offset: current.offset)
        }
        // A parenthesis may start a predicate or an expression, and the parser tries both; nested
        // SUBQUERYs inside nested parentheses would multiply the retries, so the total work is
        // bounded (real predicates use a small fraction of this).
        steps += 1
        if steps > 10_000 + 20 * tokens.count {
            throw PredicateSyntaxError("predicate is too complex to read", offset: current.offset)
        }
    }

    /// Recursive steps taken so far (allowed: 10,000 plus 20 per token).
    private var steps = 0

    // MARK: - Predicates

    private mutating func parseOr() throws(PredicateSyntaxError) -> PredicateNode {
        try enter()
        defer { depth -= 1 }
        var terms = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseAnd() throws(PredicateSyntaxError) -> PredicateNode {
        var terms = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            terms.append(try parseNot())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func parseNot() throws(PredicateSyntaxError) -> PredicateNode {
        if isKeyword("NOT") || isSymbol("!") {
            try enter()
            defer { depth -= 1 }
            advance()
            return .not(try parseNot())
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws(PredicateSyntaxError) -> PredicateNode {
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .constant(false)
        }
        if isSymbol("(") {
            // Either a parenthesised predicate or a parenthesised expression that starts a
            // comparison, `(a + b) > 3`: try the predicate and fall back when a comparison follows.
            let saved = (position, argumentCount, depth)
            advance()
            var predicateError: PredicateSyntaxError?
            do {
                let inner = try parseOr()
                try expect(")")
                if comparisonOperatorAhead() == nil { return inner }
            } catch {
                predicateError = error
            }
            (position, argumentCount, depth) = saved
            do {
                return .comparison(try parseComparison())
            } catch {
                // Report whichever reading got further: that is where the input went wrong.
                if let predicateError, predicateError.offset > error.offset { throw predicateError }
                throw error
            }
        }
        return .comparison(try parseComparison())
    }

    private mutating func parseComparison() throws(PredicateSyntaxError) -> Comparison {
        let start = current.offset
        var quantifier = Quantifier.none
        if isKeyword("ANY") || isKeyword("SOME") {
            quantifier = .any
        } else if isKeyword("ALL") {
            quantifier = .all
        } else if isKeyword("NONE") {
            quantifier = .noneOf
        }
        if quantifier != .none { advance() }
        let lhs = try parseExpression()
        guard let op = comparisonOperatorAhead() else {
            throw PredicateSyntaxError(
                "expected a comparison operator but found \(describe(current))", offset: current.offset)
        }
        advance()
        let options = try parseOptions()
        let rhs = try parseExpression()
        return Comparison(quantifier: quantifier, lhs: lhs, op: op, options: options, rhs: rhs, offset: start)
    }

    private func comparisonOperatorAhead() -> ComparisonOperator? {
        switch current.kind {
        case .symbol(let symbol):
            switch symbol {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            case ">=", "=>": return .greaterOrEqual
            default: return nil
            }
        case .identifier(let name):
            switch name.uppercased() {
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "CONTAINS": return .contains
            case "LIKE": return .like
            case "MATCHES": return .matches
            case "IN": return .in
            case "BETWEEN": return .between
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`, `[l]` directly after an operator.
    private mutating func parseOptions() throws(PredicateSyntaxError) -> ComparisonOptions {
        guard isSymbol("["),
            position + 2 < tokens.count,
            case .identifier(let letters) = tokens[position + 1].kind,
            tokens[position + 2].kind == .symbol("]")
        else { return [] }
        var options: ComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default:
                throw PredicateSyntaxError("unknown comparison option '\(letter)'", offset: tokens[position + 1].offset)
            }
        }
        advance()
        advance()
        advance()
        return options
    }

    // MARK: - Expressions

    private mutating func parseExpression() throws(PredicateSyntaxError) -> Expression {
        try enter()
        defer { depth -= 1 }
        var lhs = try parseTerm()
        while isSymbol("+") || isSymbol("-") {
            let op: ArithmeticOperator = isSymbol("+") ? .add : .subtract
            advance()
            lhs = .arithmetic(op, lhs, try parseTerm())
        }
        return lhs
    }

    private mutating func parseTerm() throws(PredicateSyntaxError) -> Expression {
        var lhs = try parsePower()
        while isSymbol("*") || isSymbol("/") {
            let op: ArithmeticOperator = isSymbol("*") ? .multiply : .divide
            advance()
            lhs = .arithmetic(op, lhs, try parsePower())
        }
        return lhs
    }

    private mutating func parsePower() throws(PredicateSyntaxError) -> Expression {
        let base = try parseUnary()
        if isSymbol("**") {
            advance()
            return .arithmetic(.power, base, try parsePower())
        }
        return base
    }

    private mutating func parseUnary() throws(PredicateSyntaxError) -> Expression {
        if isSymbol("-") {
            try enter()
            defer { depth -= 1 }
            advance()
            switch current.kind {
            case .integer(let value) where value != 0:
                // (`-0` stays a negation: an integer has no negative zero, and folding it would
                // drop the sign from the canonical text.)
                advance()
                return try parsePostfix(.literal(.integer(-value)))
            case .double(let value):
                advance()
                return try parsePostfix(.literal(.double(-value)))
            default:
                return .negate(try parseUnary())
            }
        }
        return try parsePostfix(try parsePrimary())
    }

    /// `.key`, `.@operator` and `[index]` after a primary expression.
    private mutating func parsePostfix(_ base: Expression) throws(PredicateSyntaxError) -> Expression {
        var expression = base
        while true {
            if isSymbol(".") {
                advance()
                let component = try parseKeyComponent()
                switch expression {
                case .keyPath(let root, let components, let offset):
                    expression = .keyPath(root: root, components: components + [component], offset: offset)
                case .variable(let name, let offset):
                    expression = .keyPath(root: .variable(name), components: [component], offset: offset)
                case .member(let base, let components):
                    expression = .member(base, components: components + [component])
                case .literal, .aggregate:
                    throw PredicateSyntaxError("a key cannot follow a constant", offset: current.offset)
                default:
                    expression = .member(expression, components: [component])
                }
            } else if isSymbol("[") {
                advance()
                let index: IndexKind
                if isKeyword("FIRST") {
                    advance()
                    index = .first
                } else if isKeyword("LAST") {
                    advance()
                    index = .last
                } else if isKeyword("SIZE") {
                    advance()
                    index = .size
                } else {
                    index = .position(try parseExpression())
                }
                try expect("]")
                expression = .index(expression, index)
            } else {
                return expression
            }
        }
    }

    private mutating func parseKeyComponent() throws(PredicateSyntaxError) -> String {
        if isSymbol("@") {
            advance()
            guard case .identifier(let name) = current.kind else {
                throw PredicateSyntaxError("expected a collection operator after '@'", offset: current.offset)
            }
            advance()
            return "@" + name
        }
        switch current.kind {
        case .identifier(let name), .escapedIdentifier(let name):
            advance()
            return name
        default:
            throw PredicateSyntaxError("expected a key but found \(describe(current))", offset: current.offset)
        }
    }

    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS",
        "ANY", "ALL", "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    private mutating func parsePrimary() throws(PredicateSyntaxError) -> Expression {
        let token = current
        switch token.kind {
        case .string(let text):
            advance()
            return .literal(.string(text))
        case .integer(let value):
            advance()
            return .literal(.integer(value))
        case .double(let value):
            advance()
            return .literal(.double(value))
        case .variable(let name):
            advance()
            return .variable(name, offset: token.offset)
        case .argument(let kind):
            advance()
            let index = argumentCount
            argumentCount += 1
            if kind == .keyPath { return .keyPath(root: .argument(index), components: [], offset: token.offset) }
            return .argument(index: index, kind: kind)
        case .escapedIdentifier(let name):
            advance()
            return .keyPath(root: .implicit, components: [name], offset: token.offset)
        case .identifier(let name):
            return try parseWord(name, at: token.offset)
        case .symbol("@"):
            // A key path starting with a collection operator is not valid on its own.
            throw PredicateSyntaxError("a collection operator must follow a key path", offset: token.offset)
        case .symbol("{"):
            advance()
            var items: [Expression] = []
            if !isSymbol("}") {
                items.append(try parseExpression())
                while isSymbol(",") {
                    advance()
                    items.append(try parseExpression())
                }
            }
            try expect("}")
            return .aggregate(items)
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expect(")")
            return inner
        default:
            throw PredicateSyntaxError("expected an expression but found \(describe(token))", offset: token.offset)
        }
    }

    private mutating func parseWord(_ name: String, at offset: Int) throws(PredicateSyntaxError) -> Expression {
        let upper = name.uppercased()
        switch upper {
        case "NIL", "NULL":
            advance()
            return .literal(.null)
        case "TRUE", "YES":
            advance()
            return .literal(.bool(true))
        case "FALSE", "NO":
            advance()
            return .literal(.bool(false))
        case "SELF":
            advance()
            return .keyPath(root: .self, components: [], offset: offset)
        case "SUBQUERY":
            advance()
            return try parseSubquery()
        case "CAST":
            advance()
            try expect("(")
            let value = try parseExpression()
            try expect(",")
            guard case .string(let type) = current.kind else {
                throw PredicateSyntaxError("expected a type name string in CAST", offset: current.offset)
            }
            advance()
            try expect(")")
            return .cast(value, type: type)
        default:
            break
        }
        if Self.reservedWords.contains(upper) {
            throw PredicateSyntaxError("unexpected keyword '\(name)'", offset: offset)
        }
        advance()
        if isSymbol("(") {
            advance()
            var arguments: [Expression] = []
            if !isSymbol(")") {
                arguments.append(try parseExpression())
                while isSymbol(",") {
                    advance()
                    arguments.append(try parseExpression())
                }
            }
            try expect(")")
            return .function(name: name, arguments: arguments)
        }
        return .keyPath(root: .implicit, components: [name], offset: offset)
    }

    private mutating func parseSubquery() throws(PredicateSyntaxError) -> Expression {
        try expect("(")
        let collection = try parseExpression()
        try expect(",")
        guard case .variable(let variable) = current.kind else {
            throw PredicateSyntaxError("expected a '$variable' in SUBQUERY", offset: current.offset)
        }
        advance()
        try expect(",")
        let predicate = try parseOr()
        try expect(")")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }
}
