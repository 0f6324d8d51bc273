/// A token of the NSPredicate format grammar.
struct Token: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        /// `#word`: a reserved word used as a plain identifier.
        case escapedIdentifier(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// `$name`.
        case variable(String)
        /// `%@`, `%K`, `%d`, …
        case argument(ArgumentKind)
        /// Operators and punctuation, spelled as written (`==`, `(`, `&&`, `@`, …).
        case symbol(String)
        case end
    }

    var kind: Kind
    /// Byte offset of the token's first character.
    var offset: Int
}

/// The error of a format string that cannot be read: a message and the byte offset it is about.
public struct PredicateSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) (at offset \(offset))" }
}

/// Splits a format string into tokens.
struct PredicateLexer {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    static func tokenize(_ text: String) throws(PredicateSyntaxError) -> [Token] {
        var lexer = PredicateLexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        index + ahead < bytes.count ? bytes[index + ahead] : nil
    }

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
    }

    private static func isIdentifierPart(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || isDigit(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func next() throws(PredicateSyntaxError) -> Token {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
        }
        let start = index
        guard let byte = peek() else { return Token(kind: .end, offset: start) }
        if Self.isIdentifierStart(byte) {
            return Token(kind: .identifier(readIdentifier()), offset: start)
        }
        if Self.isDigit(byte) || (byte == 0x2E && peek(1).map(Self.isDigit) == true) {
            return Token(kind: try readNumber(), offset: start)
        }
        switch byte {
        case 0x22, 0x27:  // " '
            return Token(kind: .string(try readString(quote: byte)), offset: start)
        case 0x24:  // $
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw PredicateSyntaxError("expected a variable name after '$'", offset: start)
            }
            return Token(kind: .variable(readIdentifier()), offset: start)
        case 0x23:  // #
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw PredicateSyntaxError("expected a name after '#'", offset: start)
            }
            return Token(kind: .escapedIdentifier(readIdentifier()), offset: start)
        case 0x25:  // %
            return Token(kind: .argument(try readArgument()), offset: start)
        default:
            return Token(kind: .symbol(try readSymbol()), offset: start)
        }
    }

    private mutating func readIdentifier() -> String {
        let start = index
        while let byte = peek(), Self.isIdentifierPart(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func readNumber() throws(PredicateSyntaxError) -> Token.Kind {
        let start = index
        if peek() == 0x30, let marker = peek(1), [0x78, 0x58, 0x6F, 0x4F, 0x62, 0x42].contains(marker) {
            index += 2
            let radix: Int
            switch marker {
            case 0x78, 0x58: radix = 16
            case 0x6F, 0x4F: radix = 8
            default: radix = 2
            }
            let digitsStart = index
            while let byte = peek(), Self.isIdentifierPart(byte) { index += 1 }
            let digits = String(decoding: bytes[digitsStart..<index], as: UTF8.self)
            guard let value = Int64(digits, radix: radix) else {
                throw PredicateSyntaxError(
                    "invalid number '\(String(decoding: bytes[start..<index], as: UTF8.self))'", offset: start)
            }
            return .integer(value)
        }
        var isDouble = false
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
        if peek() == 0x2E, let after = peek(1), Self.isDigit(after) {
            isDouble = true
            index += 1
            while let byte = peek(), Self.isDigit(byte) { index += 1 }
        }
        if let e = peek(), e == 0x65 || e == 0x45 {
            var lookahead = 1
            if let sign = peek(1), sign == 0x2B || sign == 0x2D { lookahead = 2 }
            if let digit = peek(lookahead), Self.isDigit(digit) {
                isDouble = true
                index += lookahead
                while let byte = peek(), Self.isDigit(byte) { index += 1 }
            }
        }
        if let byte = peek(), Self.isIdentifierStart(byte) {
            throw PredicateSyntaxError("invalid number", offset: start)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if !isDouble, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw PredicateSyntaxError("invalid number '\(text)'", offset: start) }
        return .double(value)
    }

    private mutating func readString(quote: UInt8) throws(PredicateSyntaxError) -> String {
        let start = index
        index += 1
        var scalars: [UInt8] = []
        while true {
            guard let byte = peek() else { throw PredicateSyntaxError("unterminated string", offset: start) }
            index += 1
            if byte == quote { break }
            guard byte == 0x5C else {
                scalars.append(byte)
                continue
            }
            guard let escaped = peek() else { throw PredicateSyntaxError("unterminated string", offset: start) }
            index += 1
            switch escaped {
            case 0x6E: scalars.append(0x0A)  // \n
            case 0x74: scalars.append(0x09)  // \t
            case 0x72: scalars.append(0x0D)  // \r
            case 0x30: scalars.append(0x00)  // \0
            case 0x75:  // \uXXXX
                guard index + 4 <= bytes.count,
                    let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { throw PredicateSyntaxError("invalid \\u escape", offset: index - 2) }
                index += 4
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: scalars.append(escaped)
            }
        }
        return String(decoding: scalars, as: UTF8.self)
    }

    private mutating func readArgument() throws(PredicateSyntaxError) -> ArgumentKind {
        let start = index
        index += 1
        // Optional length modifiers (h, hh, l, ll, q, z) before the conversion.
        while let byte = peek(), [0x68, 0x6C, 0x71, 0x7A].contains(byte) { index += 1 }
        guard let conversion = peek() else { throw PredicateSyntaxError("incomplete '%' placeholder", offset: start) }
        index += 1
        switch conversion {
        case 0x40: return .object  // @
        case 0x4B: return .keyPath  // K
        case 0x64, 0x69, 0x75, 0x78, 0x58, 0x6F, 0x63: return .integer  // d i u x X o c
        case 0x66, 0x67, 0x65, 0x47, 0x45: return .double  // f g e G E
        case 0x73: return .string  // s
        default:
            throw PredicateSyntaxError(
                "unsupported placeholder '%\(Character(Unicode.Scalar(conversion)))'", offset: start)
        }
    }

    private static let symbols: [String] = [
        "**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||",
        "(", ")", "{", "}", "[", "]", ",", ".", "@", "=", "<", ">", "!", "+", "-", "*", "/",
    ]

    private mutating func readSymbol() throws(PredicateSyntaxError) -> String {
        for symbol in Self.symbols {
            let utf8 = Array(symbol.utf8)
            if index + utf8.count <= bytes.count, bytes[index..<index + utf8.count].elementsEqual(utf8) {
                index += utf8.count
                return symbol
            }
        }
        let character = String(decoding: bytes[index..<min(index + 1, bytes.count)], as: UTF8.self)
        throw PredicateSyntaxError("unexpected character '\(character)'", offset: index)
    }
}
