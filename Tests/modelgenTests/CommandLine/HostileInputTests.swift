import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Malicious and malformed inputs: each gives exit status 1 and a located diagnostic within two
/// seconds, and nothing reaches the network (a loopback listener named by the files sees no
/// connection).
@Suite(.serialized) struct HostileInputTests {
    /// A TCP listener on 127.0.0.1 that records whether anything connected.
    final class Listener {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            guard bound == 0, listen(descriptor, 8) == 0 else {
                close(descriptor)
                throw POSIXError(.EADDRINUSE)
            }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            self.port = UInt16(bigEndian: address.sin_port)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }

        /// Whether a connection is waiting (non-blocking accept).
        var wasContacted: Bool {
            let client = accept(descriptor, nil, nil)
            if client >= 0 {
                close(client)
                return true
            }
            return false
        }

        deinit { close(descriptor) }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var id: String
        /// Builds the input in `directory` and returns the path to pass to modelgen.
        var make: @Sendable (URL, UInt16) throws -> String

        var testDescription: String { name }
    }

    static func file(_ name: String, _ bytes: Data) -> @Sendable (URL, UInt16) throws -> String {
        { directory, _ in
            let url = directory.appendingPathComponent(name)
            try bytes.write(to: url)
            return url.path
        }
    }

    static let header = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"

    static let cases: [Case] = [
        Case(
            name: "billion laughs", id: "xml-doctype-not-allowed",
            make: file(
                "laughs",
                Data(
                    (header + """
                        <!DOCTYPE model [
                          <!ENTITY lol "lol">
                          <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
                          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
                          <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
                          <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
                          <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
                          <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
                          <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
                          <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
                        ]>
                        <model><entity name="&lol9;"/></model>
                        """).utf8))),
        Case(name: "external entity (XXE)", id: "xml-doctype-not-allowed") { directory, port in
            let url = directory.appendingPathComponent("xxe")
            try
                (header + """
                    <!DOCTYPE model [<!ENTITY secret SYSTEM "http://127.0.0.1:\(port)/secret"><!ENTITY local SYSTEM "file:///etc/passwd">]>
                    <model><entity name="&secret;&local;"/></model>
                    """).write(to: url, atomically: true, encoding: .utf8)
            return url.path
        },
        Case(name: "external DTD", id: "xml-doctype-not-allowed") { directory, port in
            let url = directory.appendingPathComponent("dtd")
            try
                (header + """
                    <!DOCTYPE model SYSTEM "http://127.0.0.1:\(port)/model.dtd">
                    <model/>
                    """).write(to: url, atomically: true, encoding: .utf8)
            return url.path
        },
        Case(
            name: "undeclared entity", id: "xml-malformed",
            make: file("entity", Data((header + #"<model><entity name="&x;"/></model>"#).utf8))),
        Case(name: "50 MB attribute", id: "file-too-large") { directory, _ in
            let url = directory.appendingPathComponent("huge")
            var data = Data((header + #"<model><entity name=""#).utf8)
            data.append(Data(repeating: 0x61, count: 50_000_000))
            data.append(Data(#""/></model>"#.utf8))
            try data.write(to: url)
            return url.path
        },
        Case(name: "20 MB attribute under the file limit", id: "xml-malformed") { directory, _ in
            let url = directory.appendingPathComponent("long")
            var data = Data((header + #"<model><entity name=""#).utf8)
            data.append(Data(repeating: 0x61, count: 20_000_000))
            data.append(Data(#""/></model>"#.utf8))
            try data.write(to: url)
            return url.path
        },
        Case(name: "100,000-deep nesting", id: "xml-malformed") { directory, _ in
            let url = directory.appendingPathComponent("deep")
            var text = header + "<model>"
            text += String(repeating: "<entity>", count: 100_000) + String(repeating: "</entity>", count: 100_000)
            text += "</model>"
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        },
        Case(
            name: "invalid UTF-8", id: "xml-malformed",
            make: file(
                "utf8",
                {
                    var data = Data((header + #"<model><entity name=""#).utf8)
                    data.append(contentsOf: [0xC3, 0x28, 0xFF, 0xFE])
                    data.append(Data(#""/></model>"#.utf8))
                    return data
                }())),
        Case(
            name: "truncated file", id: "xml-malformed",
            make: file("truncated", Data((header + #"<model><entity name="A"><attribute name="b" attri"#).utf8))),
        Case(
            name: "wrong root element", id: "wrong-root-element",
            make: file("root", Data((header + #"<plist version="1.0"><dict/></plist>"#).utf8))),
        Case(name: "empty file", id: "xml-malformed", make: file("empty", Data())),
        Case(
            name: "binary garbage", id: "xml-malformed",
            make: file("garbage", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))),
        Case(name: "directory with no versions", id: "no-model-versions") { directory, _ in
            let bundle = directory.appendingPathComponent("Empty.xcdatamodeld")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            return bundle.path
        },
    ]

    @Test(arguments: cases)
    func hostileInputGivesADiagnosticQuicklyAndNoNetworkAccess(_ testCase: Case) throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let listener = try Listener()
        let path = try testCase.make(directory, listener.port)
        let result = try CLIRunner.run(["check", path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(": error: "), "\(result.stderr)")
        #expect(result.stderr.contains("[\(testCase.id)]"), "\(result.stderr)")
        #expect(result.stderr.hasPrefix(path + ":") || testCase.id == "no-model-versions", "located: \(result.stderr)")
        #expect(result.seconds < 2, "took \(result.seconds) s")
        #expect(!listener.wasContacted, "modelgen connected to the network")
    }
}
