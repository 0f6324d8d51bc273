import Testing

@testable import ModelGenCore

/// SHA-256 against FIPS 180-4's examples and digests from another implementation (Python's
/// hashlib) at the lengths around the padding's block boundaries; and snake-case names.
@Suite struct SHA256Tests {
    @Test func fipsExamples() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [
        (55, "576a1bf8d4478657e6dc4af9398544765c2a92cde28478b019235cfed315fc09"),
        (56, "9b20501dfd1d99161c257950f3444f3e49230c351c5c8e0943ef369f85f5205d"),
        (63, "30b345906b493f06f69444b6521113511c242f30e29840462950035043682f1e"),
        (64, "d8bc63b4fc1156e5e7d95a418b9bf54cd3174bedbc2db40f74895349b229b3c0"),
        (65, "1ee23b0fbcaecc1aff4a9e8f1645f35ab2c8e13609cd73b68df8b5e3f63ce073"),
        (119, "7a6589821178918ca8d9edaba5abfc1e9b2669564f4469b66885379c1530b2c8"),
        (128, "54c9eb041badfd7064645067b107661fed6113197ce2dd066ba69618abd3732f"),
    ])
    func blockBoundaries(_ length: Int, _ digest: String) {
        #expect(SHA256.hex((0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }) == digest)
    }

    /// Both compressions (the SHA extensions, where this processor has them, and the portable
    /// one) at every length up to four blocks and at a few large ones, each also checked against
    /// an independent digest at the block boundaries above.
    @Test func acceleratedAndPortableAgree() throws {
        guard SHA256.isAccelerated else {
            print("SHA256Tests: this processor has no SHA extensions; only the portable compression is tested")
            return
        }
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...256) + [1_000, 4_096, 65_537, 1_000_003] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(
                SHA256.digest(bytes, accelerated: true) == SHA256.digest(bytes, accelerated: false), "length \(length)")
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.digest(million, accelerated: false) == SHA256.digest(million, accelerated: true))
    }

    /// `snakeCase` (an ASCII fast path and a general one): a word break before an upper-case
    /// letter after a lower-case one or a digit, or before the last capital of an acronym.
    @Test(arguments: [
        ("firstName", "first_name"), ("URLString", "url_string"), ("HTMLParser2", "html_parser2"),
        ("version2Name", "version2_name"),
        ("already_snake", "already_snake"), ("ABC", "abc"), ("aB", "a_b"), ("x", "x"), ("", ""),
        ("ÉtéName", "été_name"),
        ("naïveURL", "naïve_url"), ("my_URL", "my_url"),
    ])
    func snakeCase(_ name: String, _ expected: String) {
        #expect(SQLNaming.snakeCase(name) == expected)
    }
}
