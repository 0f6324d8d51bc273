/// The `_entity` numbers of `StandardLayout.EntityCodes.nameHashes`: a number that depends on
/// the entity's identity (renaming ID, else name) alone, so that it survives every change to the
/// rest of the model.
enum EntityCode {
    /// The largest number (`_entity` is a 32-bit integer; numbers are positive).
    static let maximum = Int(Int32.max)

    /// FNV-1a (32 bits) of the name's UTF-8 bytes, in 1...`maximum`.
    static func hash(_ name: String) -> Int {
        var value: UInt32 = 0x811c_9dc5
        for byte in name.utf8 {
            value ^= UInt32(byte)
            value &*= 0x0100_0193
        }
        let code = Int(value & 0x7fff_ffff)
        return code == 0 ? 1 : code
    }

    /// The number of each name, by index: its hash, or when an earlier name (in byte order) took
    /// it, the next free number after it.
    static func codes(of names: [String]) -> [Int] {
        var codes = Array(repeating: 0, count: names.count)
        var taken: Set<Int> = []
        taken.reserveCapacity(names.count)
        for index in names.indices.sorted(by: { names[$0] < names[$1] }) {
            var code = hash(names[index])
            while !taken.insert(code).inserted { code = code == maximum ? 1 : code + 1 }
            codes[index] = code
        }
        return codes
    }
}
