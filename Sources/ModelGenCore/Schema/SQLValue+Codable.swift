/// `SQLValue` encodes as a one-key object naming its kind: `{"integer": 1}`, `{"text": "x"}`.
extension SQLValue {
    private enum Kind: String, CodingKey {
        case integer, real, decimal, text, bool, date, uuid
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "empty SQL value"))
        }
        switch kind {
        case .integer: self = .integer(try container.decode(Int64.self, forKey: kind))
        case .real: self = .real(try container.decode(Double.self, forKey: kind))
        case .decimal: self = .decimal(try container.decode(String.self, forKey: kind))
        case .text: self = .text(try container.decode(String.self, forKey: kind))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: kind))
        case .date: self = .date(try container.decode(Double.self, forKey: kind))
        case .uuid: self = .uuid(try container.decode(String.self, forKey: kind))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .real(let value): try container.encode(value, forKey: .real)
        case .decimal(let value): try container.encode(value, forKey: .decimal)
        case .text(let value): try container.encode(value, forKey: .text)
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .date(let value): try container.encode(value, forKey: .date)
        case .uuid(let value): try container.encode(value, forKey: .uuid)
        }
    }
}
