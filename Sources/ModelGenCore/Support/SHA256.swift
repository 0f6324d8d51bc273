import CSHA256

/// SHA-256 (FIPS 180-4), for the model's version hash and for shortening long identifiers.
/// Foundation on Linux has no digest API and outside packages are not available.
///
/// Where the processor has the x86 SHA extensions, whole blocks go through them (CSHA256: a
/// large model's schema snapshot is megabytes, and hashing it portably is a tenth of `generate`); elsewhere,
/// and in the tests that check one against the other, through the portable compression below.
public enum SHA256 {
    /// Whether `digest` uses the SHA extensions on this machine.
    static let isAccelerated = modelgen_sha256_accelerated() == 1

    /// The round constants, shared with the accelerated compression (CSHA256).
    private static var k: UnsafeBufferPointer<UInt32> {
        UnsafeBufferPointer(start: modelgen_sha256_round_constants(), count: 64)
    }

    /// The digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, accelerated: isAccelerated) }

    /// The digest of `bytes`, through the SHA extensions or not (`accelerated` only where
    /// `isAccelerated`).
    static func digest(_ bytes: [UInt8], accelerated: Bool) -> [UInt8] {
        precondition(!accelerated || isAccelerated, "the SHA extensions are not available on this processor")
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        // Whole blocks straight from the input; the padded tail (one or two blocks) separately.
        let whole = bytes.count / 64 * 64
        var tail = Array(bytes[whole...])
        let bitLength = UInt64(bytes.count) &* 8
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        h.withUnsafeMutableBufferPointer { h in
            bytes.withUnsafeBufferPointer { input in
                compressBlocks(input.baseAddress, count: whole, into: h, accelerated: accelerated)
            }
            tail.withUnsafeBufferPointer { input in
                compressBlocks(input.baseAddress, count: input.count, into: h, accelerated: accelerated)
            }
        }
        return h.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> UInt32(24 - $0 * 8)) } }
    }

    /// The `count / 64` blocks at `input` into the state `h`.
    private static func compressBlocks(
        _ input: UnsafePointer<UInt8>?, count: Int, into h: UnsafeMutableBufferPointer<UInt32>, accelerated: Bool
    ) {
        guard let input, count >= 64 else { return }
        if accelerated {
            modelgen_sha256_blocks(h.baseAddress!, input, count / 64)
            return
        }
        var state = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        var w = [UInt32](repeating: 0, count: 64)
        w.withUnsafeMutableBufferPointer { w in
            for chunk in stride(from: 0, to: count / 64 * 64, by: 64) { compress(input + chunk, &state, w, k) }
        }
        (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]) = state
    }

    /// One 64-byte block into the state (`w`: 64 words of scratch space).
    @inline(__always)
    private static func compress(
        _ block: UnsafePointer<UInt8>, _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        _ w: UnsafeMutableBufferPointer<UInt32>, _ k: UnsafeBufferPointer<UInt32>
    ) {
        for i in 0..<16 {
            let base = block + i * 4
            w[i] = UInt32(base[0]) << 24 | UInt32(base[1]) << 16 | UInt32(base[2]) << 8 | UInt32(base[3])
        }
        for i in 16..<64 {
            let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = state
        for i in 0..<64 {
            let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        state = (
            state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
            state.7 &+ hh
        )
    }

    /// The digest as lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in digest(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
