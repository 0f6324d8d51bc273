/// A reader of binary property lists (`bplist00`) that keeps what Foundation on Linux does not
/// expose: the `UID` references of keyed archives (`NSKeyedArchiver`), which is how Core Data's
/// model cache (`Z_MODELCACHE`) links its objects. Objects are read on demand by their index in
/// the file's object table.
struct BinaryPropertyList {
    enum Value: Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case date(Double)
        case data([UInt8])
        case string(String)
        case uid(Int)
        /// Object references (indices into the object table).
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let bytes: [UInt8]
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let top: Int
    let offsetTable: Int

    init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Failure(description: "not a binary property list")
        }
        self.bytes = bytes
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        func number(_ start: Int) -> Int {
            (start..<(start + 8)).reduce(0) { $0 << 8 | Int(bytes[$1]) }
        }
        objectCount = number(trailer + 8)
        top = number(trailer + 16)
        offsetTable = number(trailer + 24)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount > 0, top < objectCount,
            offsetTable >= 8, offsetTable + objectCount * offsetSize <= trailer
        else { throw Failure(description: "damaged property list trailer") }
    }

    /// A big-endian unsigned number of `size` bytes at `start`.
    private func unsigned(_ start: Int, _ size: Int) throws(Failure) -> Int {
        guard start >= 0, start + size <= bytes.count, size <= 8 else {
            throw Failure(description: "property list ends early")
        }
        var value = 0
        for index in start..<(start + size) { value = value << 8 | Int(bytes[index]) }
        return value
    }

    /// Object number `index`.
    func object(_ index: Int) throws(Failure) -> Value {
        guard index >= 0, index < objectCount else { throw Failure(description: "no object \(index)") }
        let start = try unsigned(offsetTable + index * offsetSize, offsetSize)
        guard start < offsetTable else { throw Failure(description: "object \(index) out of place") }
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: return .null
            }
        case 0x1:
            let size = 1 << low
            let raw = try unsigned(start + 1, min(size, 8))
            return .integer(size >= 8 ? Int64(bitPattern: UInt64(UInt(bitPattern: raw))) : Int64(raw))
        case 0x2:
            let size = 1 << low
            let raw = UInt64(UInt(bitPattern: try unsigned(start + 1, size)))
            return .real(size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
        case 0x3: return .date(Double(bitPattern: UInt64(UInt(bitPattern: try unsigned(start + 1, 8)))))
        case 0x4:
            let (count, first) = try length(start, low)
            guard first + count <= bytes.count else { throw Failure(description: "data ends early") }
            return .data(Array(bytes[first..<(first + count)]))
        case 0x5:
            let (count, first) = try length(start, low)
            guard first + count <= bytes.count else { throw Failure(description: "string ends early") }
            return .string(String(decoding: bytes[first..<(first + count)], as: UTF8.self))
        case 0x6:
            let (count, first) = try length(start, low)
            guard first + 2 * count <= bytes.count else { throw Failure(description: "string ends early") }
            let units = (0..<count).map { UInt16(bytes[first + 2 * $0]) << 8 | UInt16(bytes[first + 2 * $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8: return .uid(try unsigned(start + 1, low + 1))
        case 0xA, 0xC:
            let (count, first) = try length(start, low)
            return .array(try references(first, count))
        case 0xD:
            let (count, first) = try length(start, low)
            return .dictionary(
                keys: try references(first, count), values: try references(first + count * referenceSize, count))
        default:
            throw Failure(description: "unknown property list object type \(marker >> 4)")
        }
    }

    /// The element count of an object whose marker's low nibble is `low` (15: a following
    /// integer object) and where its content starts.
    private func length(_ start: Int, _ low: Int) throws(Failure) -> (Int, Int) {
        guard low == 0xF else { return (low, start + 1) }
        guard start + 1 < bytes.count, bytes[start + 1] >> 4 == 0x1 else {
            throw Failure(description: "bad length in property list")
        }
        let size = 1 << Int(bytes[start + 1] & 0x0F)
        let count = try unsigned(start + 2, size)
        guard count >= 0, count < bytes.count else { throw Failure(description: "bad length in property list") }
        return (count, start + 2 + size)
    }

    private func references(_ start: Int, _ count: Int) throws(Failure) -> [Int] {
        guard count >= 0, start + count * referenceSize <= bytes.count else {
            throw Failure(description: "references end early")
        }
        var result: [Int] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(try unsigned(start + index * referenceSize, referenceSize)) }
        return result
    }
}
