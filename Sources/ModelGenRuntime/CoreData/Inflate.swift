/// Raw DEFLATE (RFC 1951) decompression: what `Z_MODELCACHE` holds, and what Foundation on
/// Linux offers no API for. Canonical Huffman codes are decoded a bit at a time against the
/// per-length code counts (small tables, no lookup tables to build), which is fast enough for
/// model caches of a few kilobytes.
enum Inflate {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes `data` inflates to; at most `limit` of them (a guard against a crafted blob).
    static func inflate(_ data: [UInt8], limit: Int = 64 << 20) throws(Failure) -> [UInt8] {
        var state = State(input: data, limit: limit)
        var isLast = false
        while !isLast {
            isLast = try state.bits(1) == 1
            switch try state.bits(2) {
            case 0: try state.stored()
            case 1: try state.codes(Huffman.fixedLengths, Huffman.fixedDistances)
            case 2:
                let (lengths, distances) = try state.dynamicTables()
                try state.codes(lengths, distances)
            default: throw Failure(description: "invalid DEFLATE block type")
            }
        }
        return state.output
    }

    /// A canonical Huffman code: how many codes have each length, and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) throws(Failure) {
            for length in lengths { counts[length] += 1 }
            var left = 1
            for length in 1..<16 {
                left = left * 2 - counts[length]
                guard left >= 0 else { throw Failure(description: "over-subscribed Huffman code") }
            }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
            counts[0] = 0
        }

        static let fixedLengths: Huffman = try! Huffman(
            lengths: [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
                + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8))
        static let fixedDistances: Huffman = try! Huffman(lengths: [Int](repeating: 5, count: 30))
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
        163, 195, 227, 258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
        2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
        13, 13,
    ]
    /// The order in which a dynamic block lists the code lengths of its code-length code.
    static let lengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    struct State {
        let input: [UInt8]
        let limit: Int
        var position = 0
        var bitBuffer = 0
        var bitCount = 0
        var output: [UInt8] = []

        init(input: [UInt8], limit: Int) {
            self.input = input
            self.limit = limit
        }

        mutating func bits(_ count: Int) throws(Failure) -> Int {
            while bitCount < count {
                guard position < input.count else { throw Failure(description: "DEFLATE data ends early") }
                bitBuffer |= Int(input[position]) << bitCount
                position += 1
                bitCount += 8
            }
            let value = bitBuffer & ((1 << count) - 1)
            bitBuffer >>= count
            bitCount -= count
            return value
        }

        mutating func stored() throws(Failure) {
            bitBuffer = 0
            bitCount = 0
            guard position + 4 <= input.count else { throw Failure(description: "DEFLATE data ends early") }
            let length = Int(input[position]) | Int(input[position + 1]) << 8
            let check = Int(input[position + 2]) | Int(input[position + 3]) << 8
            guard length == ~check & 0xFFFF else { throw Failure(description: "invalid stored block length") }
            position += 4
            guard position + length <= input.count, output.count + length <= limit else {
                throw Failure(description: "DEFLATE stored block too long")
            }
            output += input[position..<(position + length)]
            position += length
        }

        mutating func decode(_ code: Huffman) throws(Failure) -> Int {
            var value = 0
            var first = 0
            var index = 0
            for length in 1..<16 {
                value |= try bits(1)
                let count = code.counts[length]
                if value - count < first { return code.symbols[index + (value - first)] }
                index += count
                first += count
                first <<= 1
                value <<= 1
            }
            throw Failure(description: "invalid Huffman code")
        }

        mutating func dynamicTables() throws(Failure) -> (Huffman, Huffman) {
            let literals = try bits(5) + 257
            let distances = try bits(5) + 1
            let lengthCodes = try bits(4) + 4
            guard literals <= 286, distances <= 30 else { throw Failure(description: "invalid dynamic block") }
            var codeLengths = [Int](repeating: 0, count: 19)
            for index in 0..<lengthCodes { codeLengths[Inflate.lengthOrder[index]] = try bits(3) }
            let lengthCode = try Huffman(lengths: codeLengths)
            var lengths: [Int] = []
            while lengths.count < literals + distances {
                let symbol = try decode(lengthCode)
                switch symbol {
                case 0..<16: lengths.append(symbol)
                case 16:
                    guard let previous = lengths.last else { throw Failure(description: "repeat with no length") }
                    lengths += [Int](repeating: previous, count: 3 + (try bits(2)))
                case 17: lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
                default: lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
                }
            }
            guard lengths.count == literals + distances, lengths[256] != 0 else {
                throw Failure(description: "invalid dynamic code lengths")
            }
            return (
                try Huffman(lengths: Array(lengths[0..<literals])), try Huffman(lengths: Array(lengths[literals...]))
            )
        }

        mutating func codes(_ lengths: Huffman, _ distances: Huffman) throws(Failure) {
            while true {
                let symbol = try decode(lengths)
                if symbol < 256 {
                    guard output.count < limit else { throw Failure(description: "inflated data too long") }
                    output.append(UInt8(symbol))
                } else if symbol == 256 {
                    return
                } else {
                    let index = symbol - 257
                    guard index < 29 else { throw Failure(description: "invalid length symbol") }
                    let length = Inflate.lengthBase[index] + (try bits(Inflate.lengthExtra[index]))
                    let distanceSymbol = try decode(distances)
                    guard distanceSymbol < 30 else { throw Failure(description: "invalid distance symbol") }
                    let distance =
                        Inflate.distanceBase[distanceSymbol] + (try bits(Inflate.distanceExtra[distanceSymbol]))
                    guard distance <= output.count else { throw Failure(description: "distance before the start") }
                    guard output.count + length <= limit else { throw Failure(description: "inflated data too long") }
                    let start = output.count - distance
                    for offset in 0..<length { output.append(output[start + offset]) }
                }
            }
        }
    }
}
