import Foundation

/// A random predicate over the oracle's model, written as an NSPredicate format string with its
/// arguments, and evaluated by brute force over `OracleState` with NSPredicate's semantics: a key
/// path through a nil to-one has the value nil; a collection through a nil to-one is empty.
indirect enum OraclePredicate {
    enum Quantifier: String {
        case any = "ANY"
        case all = "ALL"
        case none = "NONE"
    }

    case constant(Bool)
    case not(OraclePredicate)
    case and([OraclePredicate])
    case or([OraclePredicate])
    /// `hops.attribute op value` (hops: to-one relationships).
    case compare(
        hops: [OracleModel.RelationshipRef], attribute: OracleModel.Attribute, op: String, options: String,
        value: OracleValue?)
    case among(
        hops: [OracleModel.RelationshipRef], attribute: OracleModel.Attribute, options: String, values: [OracleValue])
    /// `hops.attribute op number`, the number of another numeric type than the attribute's (or a
    /// literal in the format string), compared as a user reads it.
    case numeric(
        hops: [OracleModel.RelationshipRef], attribute: OracleModel.Attribute, op: String, operand: OracleNumber,
        literal: Bool)
    /// A predicate the runtime must refuse with `.predicate` (its format and arguments): the query
    /// it is part of must throw.
    case refused(String, [OracleArgument])
    case between(
        hops: [OracleModel.RelationshipRef], attribute: OracleModel.Attribute, low: OracleValue, high: OracleValue)
    /// `ANY|ALL|NONE hops.many.attribute op value`.
    case quantified(
        Quantifier, hops: [OracleModel.RelationshipRef], many: OracleModel.RelationshipRef,
        attribute: OracleModel.Attribute, op: String, value: OracleValue)
    case count(many: OracleModel.RelationshipRef, op: String, value: Int)
    /// `hops.toOne == object` (or `!=`; nil for no object).
    case identity(hops: [OracleModel.RelationshipRef], toOne: OracleModel.RelationshipRef, equal: Bool, object: Int?)
    /// `object IN many` (or `ANY many == object`).
    case member(many: OracleModel.RelationshipRef, object: Int, spelledAny: Bool)

    // MARK: - Format strings

    /// The format string and its arguments; `object` turns an oracle id into the runtime object
    /// passed for `%@`.
    func format(_ model: OracleModel, object: (Int) -> Any) -> (String, [Any?]) {
        var arguments: [Any?] = []
        let text = render(model, object, &arguments)
        return (text, arguments)
    }

    private func render(_ model: OracleModel, _ object: (Int) -> Any, _ arguments: inout [Any?]) -> String {
        func path(_ hops: [OracleModel.RelationshipRef], _ last: String) -> String {
            (hops.map(\.name) + [last]).joined(separator: ".")
        }
        func argument(_ value: OracleValue?, _ kind: OracleModel.Kind) -> String {
            guard let value else { return "nil" }
            arguments.append(value.runtimeValue(kind))
            return "%@"
        }
        switch self {
        case .constant(let flag): return flag ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let inner): return "NOT (\(inner.render(model, object, &arguments)))"
        case .and(let terms):
            return terms.map { "(\($0.render(model, object, &arguments)))" }.joined(separator: " AND ")
        case .or(let terms): return terms.map { "(\($0.render(model, object, &arguments)))" }.joined(separator: " OR ")
        case .compare(let hops, let attribute, let op, let options, let value):
            let optionText = options.isEmpty ? "" : "[\(options)]"
            return "\(path(hops, attribute.name)) \(op)\(optionText) \(argument(value, attribute.kind))"
        case .among(let hops, let attribute, let options, let values):
            arguments.append(values.map { $0.runtimeValue(attribute.kind) })
            return "\(path(hops, attribute.name)) IN\(options.isEmpty ? "" : "[\(options)]") %@"
        case .numeric(let hops, let attribute, let op, let operand, let literal):
            if literal, let text = operand.literal { return "\(path(hops, attribute.name)) \(op) \(text)" }
            arguments.append(operand.runtimeValue)
            return "\(path(hops, attribute.name)) \(op) %@"
        case .refused(let text, let given):
            arguments += given.map(\.value)
            return text
        case .between(let hops, let attribute, let low, let high):
            arguments.append([low.runtimeValue(attribute.kind), high.runtimeValue(attribute.kind)])
            return "\(path(hops, attribute.name)) BETWEEN %@"
        case .quantified(let quantifier, let hops, let many, let attribute, let op, let value):
            return
                "\(quantifier.rawValue) \(path(hops + [many], attribute.name)) \(op) \(argument(value, attribute.kind))"
        case .count(let many, let op, let value):
            return "\(many.name).@count \(op) \(value)"
        case .identity(let hops, let toOne, let equal, let target):
            let text = path(hops, toOne.name) + (equal ? " == " : " != ")
            guard let target else { return text + "nil" }
            arguments.append(object(target))
            return text + "%@"
        case .member(let many, let target, let spelledAny):
            arguments.append(object(target))
            return spelledAny ? "ANY \(many.name) == %@" : "%@ IN \(many.name)"
        }
    }

    // MARK: - Brute force

    func evaluate(_ state: OracleState, _ id: Int) -> Bool {
        switch self {
        case .constant(let flag): return flag
        case .not(let inner): return !inner.evaluate(state, id)
        case .and(let terms): return terms.allSatisfy { $0.evaluate(state, id) }
        case .or(let terms): return terms.contains { $0.evaluate(state, id) }
        case .compare(let hops, let attribute, let op, let options, let operand):
            let value = Self.follow(state, id, hops).flatMap { state.value($0, attribute.name) }
            return Self.compare(value, op, options, operand)
        case .among(let hops, let attribute, let options, let values):
            guard let value = Self.follow(state, id, hops).flatMap({ state.value($0, attribute.name) }) else {
                return false
            }
            if let text = value.text, !options.isEmpty {
                return values.contains { $0.text.map { Self.fold($0, options) == Self.fold(text, options) } ?? false }
            }
            return values.contains { OracleValue.equal(value, $0) && !$0.isNaN }
        case .numeric(let hops, let attribute, let op, let operand, _):
            let value = Self.follow(state, id, hops).flatMap { state.value($0, attribute.name) }
            return operand.compare(value, op, attribute.kind)
        case .refused:
            return false
        case .between(let hops, let attribute, let low, let high):
            guard let value = Self.follow(state, id, hops).flatMap({ state.value($0, attribute.name) }), !value.isNaN,
                !low.isNaN, !high.isNaN
            else {
                return false
            }
            return OracleValue.order(value, low) >= 0 && OracleValue.order(value, high) <= 0
        case .quantified(let quantifier, let hops, let many, let attribute, let op, let operand):
            let members = Self.follow(state, id, hops).map { state.targets($0, many) } ?? []
            let results = members.map { Self.compare(state.value($0, attribute.name), op, "", operand) }
            switch quantifier {
            case .any: return results.contains(true)
            case .all: return !results.contains(false)
            case .none: return !results.contains(true)
            }
        case .count(let many, let op, let value):
            return Self.compare(.int(Int64(state.targets(id, many).count)), op, "", .int(Int64(value)))
        case .identity(let hops, let toOne, let equal, let target):
            let actual = Self.follow(state, id, hops).flatMap { state.targets($0, toOne).first }
            return (actual == target) == equal
        case .member(let many, let target, _):
            return state.targets(id, many).contains(target)
        }
    }

    /// The object at the end of the to-one `hops`, or nil where a hop leads nowhere.
    static func follow(_ state: OracleState, _ id: Int, _ hops: [OracleModel.RelationshipRef]) -> Int? {
        var current = id
        for hop in hops {
            guard let next = state.targets(current, hop).first else { return nil }
            current = next
        }
        return current
    }

    static func compare(_ value: OracleValue?, _ op: String, _ options: String, _ operand: OracleValue?) -> Bool {
        // NaN equals nothing and orders with nothing.
        if value?.isNaN ?? false || operand?.isNaN ?? false { return op == "!=" }
        switch op {
        case "==", "!=":
            let equal: Bool
            switch (value, operand) {
            case (nil, nil): equal = true
            case (nil, _), (_, nil): equal = false
            case (let a?, let b?):
                if let x = a.text, let y = b.text, !options.isEmpty {
                    equal = fold(x, options) == fold(y, options)
                } else {
                    equal = OracleValue.equal(a, b)
                }
            }
            return op == "==" ? equal : !equal
        case "<", "<=", ">", ">=":
            guard let value, let operand else { return false }
            var order = OracleValue.order(value, operand)
            if let x = value.text, let y = operand.text, !options.isEmpty {
                // `<[c]`: the folded texts, by their UTF-8 bytes.
                let (a, b) = (Array(fold(x, options).utf8), Array(fold(y, options).utf8))
                order = a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
            }
            return op == "<" ? order < 0 : op == "<=" ? order <= 0 : op == ">" ? order > 0 : order >= 0
        default:
            guard let text = value?.text, let pattern = operand?.text else { return false }
            let subject = fold(text, options)
            let folded = fold(pattern, options)
            switch op {
            case "BEGINSWITH": return subject.hasPrefix(folded) || folded.isEmpty
            case "ENDSWITH": return subject.hasSuffix(folded) || folded.isEmpty
            case "CONTAINS": return folded.isEmpty || subject.contains(folded)
            case "LIKE": return like(Array(subject), Array(folded))
            default: return matches(text, pattern, options)
            }
        }
    }

    /// Case folding (`c`) and diacritic folding (`d`), on characters.
    static func fold(_ text: String, _ options: String) -> String {
        var result = text
        if options.contains("d") { result = result.folding(options: .diacriticInsensitive, locale: nil) }
        if options.contains("c") { result = result.lowercased() }
        return result
    }

    /// LIKE by recursion over characters: `*` any run, `?` one character, `\` escapes.
    static func like(_ text: [Character], _ pattern: [Character]) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        switch first {
        case "*":
            return (0...text.count).contains { like(Array(text[$0...]), Array(pattern.dropFirst())) }
        case "?":
            return !text.isEmpty && like(Array(text.dropFirst()), Array(pattern.dropFirst()))
        case "\\" where pattern.count > 1:
            return text.first == pattern[1] && like(Array(text.dropFirst()), Array(pattern.dropFirst(2)))
        default:
            return text.first == first && like(Array(text.dropFirst()), Array(pattern.dropFirst()))
        }
    }

    static func matches(_ text: String, _ pattern: String, _ options: String) -> Bool {
        let subject = options.contains("d") ? text.folding(options: .diacriticInsensitive, locale: nil) : text
        let expression = options.contains("d") ? pattern.folding(options: .diacriticInsensitive, locale: nil) : pattern
        var flags: NSRegularExpression.Options = [.dotMatchesLineSeparators]
        if options.contains("c") { flags.insert(.caseInsensitive) }
        guard let regex = try? NSRegularExpression(pattern: "^(?:\(expression))$", options: flags) else { return false }
        return regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }
}

// MARK: - Making random predicates

struct OraclePredicateMaker {
    let model: OracleModel
    let state: OracleState

    static let patterns = ["t*", "*a", "?ea", "*e*", "a\\*b", "*"]
    static let expressions = ["t.*", "[a-c].*", ".*e.*", "tea|coffee", "T.A", ".*"]
    static let stringOperators = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]

    /// A predicate on objects of `entity`, `depth` levels of AND/OR/NOT at most.
    func make(_ entity: Int, _ random: inout OracleRandom, depth: Int = 2) -> OraclePredicate {
        if depth > 0 && random.chance(35) {
            switch random.below(3) {
            case 0: return .not(make(entity, &random, depth: depth - 1))
            case 1: return .and((0..<2 + random.below(2)).map { _ in make(entity, &random, depth: depth - 1) })
            default: return .or((0..<2).map { _ in make(entity, &random, depth: depth - 1) })
            }
        }
        return leaf(entity, &random)
    }

    private func toOnes(_ entity: Int) -> [OracleModel.RelationshipRef] {
        model.relationships(of: entity).filter { !$0.1.isToMany }.map(\.0)
    }

    private func toManys(_ entity: Int) -> [OracleModel.RelationshipRef] {
        model.relationships(of: entity).filter { $0.1.isToMany }.map(\.0)
    }

    /// Up to two to-one hops from `entity`, and the entity reached.
    private func hops(_ entity: Int, _ random: inout OracleRandom) -> ([OracleModel.RelationshipRef], Int) {
        var path: [OracleModel.RelationshipRef] = []
        var current = entity
        while path.count < 2, random.chance(path.isEmpty ? 35 : 25),
            let hop = toOnes(current).randomElement(using: &random)
        {
            path.append(hop)
            current = model.relationship(hop).destination
        }
        return (path, current)
    }

    /// Some value of `attribute` in the state (so comparisons find objects), or a random one.
    private func someValue(_ attribute: OracleModel.Attribute, _ random: inout OracleRandom) -> OracleValue {
        // Values of the attribute itself (a sibling's same-named attribute may be of another kind).
        let present = state.objects.keys.sorted().compactMap { id -> OracleValue? in
            let object = state.objects[id]!
            guard
                model.attributes(of: object.entity).contains(where: {
                    $0.name == attribute.name && $0.kind == attribute.kind
                })
            else { return nil }
            return object.values[attribute.name]
        }
        if !present.isEmpty && random.chance(70) { return random.pick(present) }
        return OracleValue.random(attribute.kind, &random)
    }

    private func someObject(of entity: Int, _ random: inout OracleRandom) -> Int? {
        let candidates = state.objects.keys.sorted().filter { model.isKind(state.objects[$0]!.entity, of: entity) }
        return candidates.isEmpty ? nil : random.pick(candidates)
    }

    private func leaf(_ entity: Int, _ random: inout OracleRandom) -> OraclePredicate {
        let roll = random.below(100)
        if roll < 4 { return .constant(random.chance(50)) }
        if roll < 16, let many = toManys(entity).randomElement(using: &random) {
            let destination = model.relationship(many).destination
            if random.chance(40), let object = someObject(of: destination, &random) {
                return .member(many: many, object: object, spelledAny: random.chance(50))
            }
            if random.chance(40) {
                return .count(many: many, op: random.pick(["==", "!=", "<", ">", ">=", "<="]), value: random.below(3))
            }
            if let attribute = model.attributes(of: destination).randomElement(using: &random) {
                let quantifier = random.pick([OraclePredicate.Quantifier.any, .all, .none])
                let op = attribute.kind.isOrdered ? random.pick(["==", "!=", "<", ">"]) : random.pick(["==", "!="])
                return .quantified(
                    quantifier, hops: [], many: many, attribute: attribute, op: op, value: someValue(attribute, &random)
                )
            }
        }
        let (path, reached) = hops(entity, &random)
        if roll < 28, let toOne = toOnes(reached).randomElement(using: &random) {
            let target = random.chance(30) ? nil : someObject(of: model.relationship(toOne).destination, &random)
            return .identity(hops: path, toOne: toOne, equal: random.chance(60), object: target)
        }
        let attributes = model.attributes(of: reached)
        guard let attribute = attributes.randomElement(using: &random) else { return .constant(random.chance(50)) }
        if random.chance(8) {
            return .compare(hops: path, attribute: attribute, op: random.pick(["==", "!="]), options: "", value: nil)
        }
        if random.chance(3) { return refused(entity, &random) }
        if random.chance(8) {
            return .among(
                hops: path, attribute: attribute,
                options: attribute.kind == .string ? random.pick(["", "", "c", "d", "cd"]) : "",
                values: (0..<1 + random.below(3)).map { _ in someValue(attribute, &random) })
        }
        if attribute.kind.isNumber && random.chance(12) {
            let ops = ["==", "!=", "<", "<=", ">", ">="]
            return .numeric(
                hops: path, attribute: attribute, op: random.pick(ops), operand: OracleNumber.random(&random),
                literal: random.chance(40))
        }
        if attribute.kind.isOrdered && attribute.kind != .bool && random.chance(8) {
            let a = someValue(attribute, &random)
            let b = someValue(attribute, &random)
            let (low, high) = OracleValue.order(a, b) <= 0 ? (a, b) : (b, a)
            return .between(hops: path, attribute: attribute, low: low, high: high)
        }
        if attribute.kind == .string && random.chance(55) {
            let op = random.pick(Self.stringOperators)
            let options = random.pick(["", "", "c", "d", "cd"])
            let pattern: OracleValue =
                op == "LIKE"
                ? .string(random.pick(Self.patterns))
                : op == "MATCHES" ? .string(random.pick(Self.expressions)) : someValue(attribute, &random)
            return .compare(hops: path, attribute: attribute, op: op, options: options, value: pattern)
        }
        let operators = attribute.kind.isOrdered ? ["==", "!=", "<", "<=", ">", ">="] : ["==", "!="]
        let op = random.pick(operators)
        let options = attribute.kind == .string ? random.pick(["", "", "c", "d", "cd"]) : ""
        return .compare(
            hops: path, attribute: attribute, op: op, options: options, value: someValue(attribute, &random))
    }
}

extension OraclePredicateMaker {
    /// A predicate NSPredicate's rules refuse: a MATCHES pattern that is no regular expression, a
    /// to-many relationship inside a key path without a quantifier, an unknown key, an argument
    /// of the wrong type, a string operator on a number.
    fileprivate func refused(_ entity: Int, _ random: inout OracleRandom) -> OraclePredicate {
        let strings = model.attributes(of: entity).filter { $0.kind == .string }
        guard let attribute = model.attributes(of: entity).randomElement(using: &random) else {
            return .refused("noSuchKey == 1", [])
        }
        switch random.below(5) {
        case 0 where !strings.isEmpty:
            let pattern = random.pick(["(", "[a-", "*x", "a{2,1}", "(?<n"])
            return .refused("\(random.pick(strings).name) MATCHES %@", [.init(value: pattern)])
        case 1 where !toManys(entity).isEmpty:
            let many = random.pick(toManys(entity))
            let destination = model.relationship(many).destination
            guard let inner = model.attributes(of: destination).first else { break }
            return .refused("\(many.name).\(inner.name) == nil", [])
        case 2:
            return .refused("noSuchKey\(random.below(3)) == 1", [])
        case 3 where attribute.kind != .string && attribute.kind != .url:
            return .refused("\(attribute.name) BEGINSWITH 'a'", [])
        default:
            break
        }
        // A Date object where the attribute takes no date, or a string where it takes no string.
        let wrong: Any = attribute.kind == .date ? "not a date" : Date(timeIntervalSinceReferenceDate: 0)
        return .refused("\(attribute.name) == %@", [.init(value: wrong)])
    }
}

/// An argument of a refused predicate.
struct OracleArgument {
    var value: Any?
}

extension Array {
    func randomElement(using random: inout OracleRandom) -> Element? { isEmpty ? nil : self[random.below(count)] }
}

extension OraclePredicate {
    /// The oracle ids of the objects the predicate names.
    var objectIDs: [Int] {
        switch self {
        case .constant, .compare, .among, .numeric, .between, .quantified, .count, .refused: []
        case .not(let inner): inner.objectIDs
        case .and(let terms), .or(let terms): terms.flatMap(\.objectIDs)
        case .identity(_, _, _, let object): object.map { [$0] } ?? []
        case .member(_, let object, _): [object]
        }
    }
}

extension OraclePredicate {
    /// Whether some part of the predicate must be refused: then the whole query throws.
    var isRefused: Bool {
        switch self {
        case .refused: true
        case .not(let inner): inner.isRefused
        case .and(let terms), .or(let terms): terms.contains(where: \.isRefused)
        default: false
        }
    }
}
