import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// Hostile strings as predicate arguments, `%K` keys and format strings: each is either bound
/// as a value (and then matches exactly the rows holding it) or rejected with a clear error;
/// the tables are never touched. (Hostile model names are refused by validation:
/// `invalid-name` in the diagnostic tests.)
@Suite struct InjectionTests {
    static let hostile: [String] = [
        "'", "''", "\"", "Robert'); DROP TABLE \"user\"; --", "x' OR '1'='1", "\" OR 1=1 --", "/* comment */ 1",
        "-- comment", "; DELETE FROM \"user\"", "a\u{0}b", "\u{0}", "a\u{0}", "\u{0}' OR 1=1 --",
        // A lone surrogate cannot live in a Swift String: decoding repairs it to U+FFFD.
        String(decoding: [0xD800, 0x41] as [UInt16], as: UTF16.self),
        String(decoding: [0xDC00] as [UInt16], as: UTF16.self),
        "%@", "%K", "$VARIABLE", "\\", "%", "_", "*", "?", "50%", "\n; DROP TABLE \"item\"", "😀'😀", "",
    ]

    /// The names a store on `backend` holds: every hostile string plus "plain" and "500" (on
    /// PostgreSQL, whose text cannot hold NUL, those with NUL are refused by a save instead).
    static func stored(_ backend: Backend) -> [String] {
        (hostile + ["plain", "500"]).filter { backend == .sqlite || !$0.contains("\u{0}") }
    }

    /// A store holding one user per stored name.
    static func withUsers(_ backend: Backend, _ body: (ObjectContext, TemporaryStore.Location) throws -> Void) throws {
        try TemporaryStore.with(HelloCoreDataModel.model, on: backend) { store, path in
            let context = store.newContext()
            if backend == .postgres {
                let refused = context.insert(User.self)
                refused.id = UUID()
                refused.name = "a\u{0}b"
                refused.hobby = ""
                let error = try #require(throws: DatabaseError.self) { try context.save() }
                #expect(error.code == .validation, "\(error)")
                context.delete(refused)
            }
            for name in stored(backend) {
                let user = context.insert(User.self)
                user.id = UUID()
                user.name = name
                user.hobby = name
            }
            try context.save()
            try body(store.newContext(), path)
        }
    }

    @Test(arguments: Backend.allCases) func hostileArgumentsAreBoundAsValues(_ backend: Backend) throws {
        try Self.withUsers(backend) { context, path in
            let names = Self.stored(backend)
            let total = names.count
            for value in Self.hostile {
                let equal = names.filter { $0 == value }
                let typed = try User.fetch(in: context, where: \User.name == value)
                #expect(typed.map(\.name) == equal, "typed == \(value.debugDescription)")
                let format = try User.fetch(in: context, where: try ObjectPredicate(format: "name == %@", value))
                #expect(format.map(\.name) == equal, "format == \(value.debugDescription)")
                let inList = try User.count(
                    in: context, where: try ObjectPredicate(format: "hobby IN %@", [value, "nobody"]))
                #expect(inList == equal.count, "IN \(value.debugDescription)")
                // String operators match by the same rules as Foundation, in SQL and in memory.
                for (op, test) in [
                    ("BEGINSWITH", { (name: String) in name.hasPrefix(value) }), ("ENDSWITH", { $0.hasSuffix(value) }),
                ] {
                    let expected = Set(names.filter { value.isEmpty ? true : test($0) })
                    let fetched = try User.fetch(
                        in: context, where: try ObjectPredicate(format: "name \(op) %@", value))
                    #expect(Set(fetched.map(\.name)) == expected, "\(op) \(value.debugDescription)")
                }
                let containing = try User.fetch(
                    in: context, where: try ObjectPredicate(format: "name CONTAINS %@", value))
                let expected = Set(names.filter { value.isEmpty || Self.contains($0, value) })
                #expect(Set(containing.map(\.name)) == expected, "CONTAINS \(value.debugDescription)")
            }
            // Every row is intact, byte for byte.
            #expect(try User.count(in: context) == total)
            let hex = backend == .sqlite ? "hex(\"name\")" : "upper(encode(convert_to(\"name\", 'UTF8'), 'hex'))"
            let stored = try TemporaryStore.rows(path, "SELECT \(hex) FROM \"user\" ORDER BY \"_pk\"").map { $0[0] }
            let written = names.map { $0.utf8.map { String(format: "%02X", $0) }.joined() }
            #expect(stored == written)
        }
    }

    /// Whether `text` contains `part` as a run of Unicode scalars (what CONTAINS means without
    /// options); the bytes of NUL-bearing strings must count too.
    static func contains(_ text: String, _ part: String) -> Bool {
        Array(text.utf8).firstRange(of: Array(part.utf8)) != nil
    }

    @Test(arguments: Backend.allCases) func hostileKeysAreRejected(_ backend: Backend) throws {
        try Self.withUsers(backend) { context, path in
            let user = try #require(try User.first(in: context))
            for key in Self.hostile + ["name; DROP TABLE \"user\"", "name\" = \"name", "_pk", "_version", "name.count"]
            {
                let error = try #require(throws: DatabaseError.self, "%K \(key.debugDescription)") {
                    _ = try User.fetch(in: context, where: try ObjectPredicate(format: "%K == %@", key, "plain"))
                }
                #expect([.unknownKey, .predicate].contains(error.code), "\(key.debugDescription): \(error)")
                #expect(throws: DatabaseError.self) { try user.setValue("x", forKey: key) }
            }
            #expect(try User.count(in: context) == Self.stored(backend).count)
            #expect(
                try TemporaryStore.rows(path, "SELECT count(*) FROM \"item\"") == [["0"]],
                "the item table is still there")
        }
    }

    @Test(arguments: Backend.allCases) func hostileFormatStringsAreRejectedOrReadAsLiterals(_ backend: Backend) throws {
        try Self.withUsers(backend) { context, _ in
            // A quoted literal is a value, whatever it holds.
            let literal = try User.fetch(
                in: context, where: try ObjectPredicate(format: #"name == "Robert'); DROP TABLE \"user\"; --""#))
            #expect(literal.map(\.name) == ["Robert'); DROP TABLE \"user\"; --"])
            for format in [
                "name == 'x'; DROP TABLE user; --'", "name == 'x' --", "name == 1; DELETE FROM user",
                "name == 'x' /* */",
                "name == \u{0}", "name ==", "(name == 'a'", "name == 'unterminated",
            ] {
                let error = try #require(throws: DatabaseError.self, "\(format.debugDescription)") {
                    _ = try User.fetch(in: context, where: try ObjectPredicate(format: format))
                }
                #expect(error.code == .predicate, "\(format.debugDescription): \(error)")
            }
            #expect(try User.count(in: context) == Self.stored(backend).count)
        }
    }
}
