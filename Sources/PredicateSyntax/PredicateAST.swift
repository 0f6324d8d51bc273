/// The syntax tree of an NSPredicate format string, as Core Data users write it.
///
/// `PredicateParser` builds it; the compiler validates it against a model and the runtime
/// compiles it to SQL. Offsets are byte offsets (UTF-8) into the parsed string, for diagnostics.
public indirect enum PredicateNode: Hashable, Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case not(PredicateNode)
    case and([PredicateNode])
    case or([PredicateNode])
    case comparison(Comparison)
}

/// A comparison `lhs op rhs`, with its quantifier and string options.
public struct Comparison: Hashable, Sendable {
    public var quantifier: Quantifier
    public var lhs: Expression
    public var op: ComparisonOperator
    public var options: ComparisonOptions
    public var rhs: Expression
    /// Where the comparison starts in the format string.
    public var offset: Int

    public init(
        quantifier: Quantifier = .none,
        lhs: Expression,
        op: ComparisonOperator,
        options: ComparisonOptions = [],
        rhs: Expression,
        offset: Int = 0
    ) {
        self.quantifier = quantifier
        self.lhs = lhs
        self.op = op
        self.options = options
        self.rhs = rhs
        self.offset = offset
    }
}

/// `ANY`/`SOME`, `ALL`, `NONE` before a comparison over a to-many key path.
public enum Quantifier: String, Hashable, Sendable {
    case none = ""
    case any = "ANY"
    case all = "ALL"
    case noneOf = "NONE"
}

public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case `in` = "IN"
    case between = "BETWEEN"

    /// Whether the operator compares strings (and so takes `[cd]` options meaningfully).
    public var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }
}

/// The `[c]`, `[d]`, `[n]`, `[l]` options of a string comparison.
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    public static let normalized = ComparisonOptions(rawValue: 4)
    public static let localeSensitive = ComparisonOptions(rawValue: 8)

    /// `[cd]` style text, empty when there are no options.
    public var formatted: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        if contains(.normalized) { letters += "n" }
        if contains(.localeSensitive) { letters += "l" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}

/// What a `%` placeholder stands for.
public enum ArgumentKind: String, Hashable, Sendable {
    /// `%@`: an object (string, number, date, managed object, collection, …).
    case object = "@"
    /// `%K`: a key path.
    case keyPath = "K"
    /// `%d`, `%i`, `%ld`, `%u`, …: an integer.
    case integer = "d"
    /// `%f`, `%g`, `%e`, …: a floating-point number.
    case double = "f"
    /// `%s`: a C string.
    case string = "s"
}

/// A literal value written in the format string.
public enum Literal: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
}

/// Where a key path starts.
public enum KeyPathRoot: Hashable, Sendable {
    /// A bare key path, evaluated on the object being tested.
    case implicit
    /// `SELF` or `SELF.key`.
    case `self`
    /// `$name.key`: a variable (substitution variable or SUBQUERY iteration variable).
    case variable(String)
    /// `%K`: the key path is the argument at this index.
    case argument(Int)
}

/// An index after an expression: `[2]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
public enum IndexKind: Hashable, Sendable {
    case position(Expression)
    case first
    case last
    case size
}

/// An expression on either side of a comparison.
public indirect enum Expression: Hashable, Sendable {
    /// A key path such as `name`, `origin.shortName`, `grades.@count`, `$x.name`, `%K`.
    case keyPath(root: KeyPathRoot, components: [String], offset: Int)
    case literal(Literal)
    /// `$VARIABLE` used as a value (not followed by a key).
    case variable(String, offset: Int)
    /// `%@`, `%d`, …: the argument at `index` (0-based, in order of appearance).
    case argument(index: Int, kind: ArgumentKind)
    /// `{a, b, c}`.
    case aggregate([Expression])
    /// `name(args)`, e.g. `now()`, `lowercase(name)`, `FUNCTION(x, 'sel')`.
    case function(name: String, arguments: [Expression])
    case arithmetic(ArithmeticOperator, Expression, Expression)
    case negate(Expression)
    /// `expression[index]`.
    case index(Expression, IndexKind)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: Expression, variable: String, predicate: PredicateNode)
    /// `CAST(value, 'Type')`.
    case cast(Expression, type: String)
    /// A key path applied to the value of another expression: `SUBQUERY(…).@count`, `items[FIRST].name`.
    case member(Expression, components: [String])
}

public enum ArithmeticOperator: String, Hashable, Sendable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case power = "**"
}
