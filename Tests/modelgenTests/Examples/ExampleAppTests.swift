import Foundation
import TestSupport
import Testing

/// The example programs of Examples/ (built through ModelGenPlugin), driven through every
/// behaviour SCENARIOS.md lists for their application, failure cases included, each on a store
/// of its own: a SQLite file, and a schema of the tests' PostgreSQL cluster (`--postgres`).
@Suite struct ExampleAppTests {
    enum Backend: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    /// One example program working on one store.
    struct App {
        let program: URL
        let store: String
        /// The PostgreSQL connection string, for a store on the server.
        let postgres: String?

        init(_ name: String, in place: (URL, String?)) {
            program = CLIRunner.product(name)
            store = place.0.appendingPathComponent(name + ".sqlite").path
            postgres = place.1
        }

        /// Where the store is, as the programs take it.
        var location: [String] { postgres.map { ["--postgres", $0] } ?? ["--store", store] }

        /// Runs a command that must succeed; returns its output lines.
        @discardableResult
        func ok(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
            let result = try CLIRunner.run(program, location + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
            return result.stdout.split(separator: "\n").map(String.init)
        }

        /// Runs a command that must fail with status 1; returns its error message.
        func fails(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let result = try CLIRunner.run(program, location + arguments)
            #expect(result.status == 1, "\(arguments) should fail: \(result.stdout)", sourceLocation: sourceLocation)
            return result.stderr
        }
    }

    /// A temporary directory, and on PostgreSQL a fresh schema's connection string.
    static func withDirectory(_ backend: Backend, _ body: ((URL, String?)) throws -> Void) throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        guard backend == .postgres else { return try body((directory, nil)) }
        guard let cluster = PostgresCluster.shared() else { return }
        let (schema, connectionString) = try cluster.freshSchema("app")
        defer { _ = try? cluster.psql("DROP SCHEMA \"\(schema)\" CASCADE;") }
        try body((directory, connectionString))
    }

    @Test(arguments: Backend.allCases) func gradeBook(_ backend: Backend) throws {
        try Self.withDirectory(backend) { directory throws in
            let app = App("gradebook", in: directory)
            #expect(try app.ok("students") == ["No students."])
            #expect(try app.ok("quizzes") == ["No quizzes."])
            #expect(try app.fails("grade", "1", "1", "90").contains("there are no students"))
            for (first, last) in [("Byron", "Lovelace"), ("Alan", "Turing"), ("Ada", "Lovelace"), ("Grace", "Hopper")] {
                try app.ok("add-student", first, last)
            }
            #expect(
                try app.ok("students") == [
                    "1. Hopper, Grace", "2. Lovelace, Ada", "3. Lovelace, Byron", "4. Turing, Alan",
                ])
            try app.ok("add-quiz", "Sets")
            try app.ok("add-quiz", "Logic")
            #expect(try app.ok("quizzes") == ["1. Logic", "2. Sets"])
            // A second score for the same pair updates the grade found by the compound predicate.
            #expect(try app.ok("grade", "2", "1", "70") == ["Recorded Ada Lovelace on Logic: 70."])
            #expect(try app.ok("grade", "2", "1", "95") == ["Updated Ada Lovelace on Logic: 95."])
            try app.ok("grade", "4", "2", "88")
            try app.ok("grade", "1", "2", "60")
            let list = try app.ok("list")
            let grades = Array(list.drop { $0 != "Grades:" }.dropFirst())
            #expect(grades == ["Hopper, Grace — Sets: 60", "Lovelace, Ada — Logic: 95", "Turing, Alan — Sets: 88"])
            #expect(try app.fails("grade", "9", "1", "5").contains("no student at position '9'"))
            #expect(try app.fails("grade", "1", "1", "lots").contains("whole number"))
            // Positions are those of the sorted list; the students' grades go with them.
            #expect(try app.ok("delete-student", "4", "1") == ["Deleted 2 student(s)."])
            #expect(try app.ok("students") == ["1. Lovelace, Ada", "2. Lovelace, Byron"])
            #expect(try app.ok("list").drop { $0 != "Grades:" }.dropFirst() == ["Lovelace, Ada — Logic: 95"])
            #expect(try app.fails("frobnicate").contains("unknown command"))
        }
    }

    @Test(arguments: Backend.allCases) func personData(_ backend: Backend) throws {
        try Self.withDirectory(backend) { directory throws in
            let app = App("persondata", in: directory)
            #expect(try app.ok("list") == ["No people."])
            try app.ok("add", "Ada", "12")
            try app.ok("add", "Bob", "7")
            try app.ok("add", "Cy", "7")
            try app.ok("add", "Dee", "3")
            #expect(try app.ok("list") == ["1. Ada 12", "2. Bob 7", "3. Cy 7", "4. Dee 3"])
            try app.ok("update", "4", "Dora", "4")
            try app.ok("delete", "1")
            #expect(try app.ok("list") == ["1. Bob 7", "2. Cy 7", "3. Dora 4"])
            #expect(try app.ok("delete-ssn", "7") == ["Deleted 2 person(s) with ssn 7."])
            #expect(try app.ok("list") == ["1. Dora 4"])
            // Dynamic key access.
            #expect(try app.ok("get", "1", "name") == ["Dora"])
            try app.ok("set", "1", "name", "Dorothy")
            try app.ok("set", "1", "ssn", "99")
            #expect(try app.ok("get", "1", "ssn") == ["99"])
            #expect(try app.fails("get", "1", "nickname").contains("unknownKey"))
            #expect(try app.fails("set", "1", "nickname", "D").contains("unknownKey"))
            #expect(try app.fails("set", "1", "ssn", "many").contains("wrongType"))
            #expect(try app.fails("add", "Eve", "40000").contains("ssn must be a whole number"))
            #expect(try app.ok("list") == ["1. Dorothy 99"])
        }
    }

    @Test(arguments: Backend.allCases) func fruits(_ backend: Backend) throws {
        try Self.withDirectory(backend) { directory throws in
            let app = App("fruits", in: directory)
            #expect(try app.ok("list") == ["No fruits."])
            #expect(try app.ok("add", "Apple") == ["1. Apple"])
            #expect(try app.ok("add", "Banana") == ["1. Apple", "2. Banana"])
            #expect(try app.ok("add", "  ") == ["Nothing to add.", "1. Apple", "2. Banana"])
            #expect(try app.ok("update", "2") == ["1. Apple", "2. Banana!"])
            #expect(try app.ok("delete", "1") == ["1. Banana!"])
            #expect(try app.fails("delete", "5").contains("no fruit at position '5'"))
            #expect(try app.ok("list") == ["1. Banana!"])
        }
    }

    @Test(arguments: Backend.allCases) func businesses(_ backend: Backend) throws {
        try Self.withDirectory(backend) { directory throws in
            let app = App("businesses", in: directory)
            #expect(try app.ok("businesses") == ["No businesses."])
            for name in ["Zeta", "Acme"] { try app.ok("add-business", name) }
            for name in ["Sales", "Research"] { try app.ok("add-department", name) }
            try app.ok("add-employee", "Eve", "30", "2020-01-02")
            try app.ok("add-employee", "Finn", "41")
            try app.ok("add-employee", "Gus", "25")
            try app.ok("link", "Acme", "Sales")
            try app.ok("link", "Acme", "Research")
            try app.ok("link", "Zeta", "Sales")
            try app.ok("unlink", "Acme", "Research")
            try app.ok("assign", "Eve", "Acme", "Sales")
            try app.ok("assign", "Finn", "Zeta", "Sales")
            try app.ok("assign", "Gus", "Acme", "Research")
            #expect(
                try app.ok("businesses") == [
                    "Acme: departments Sales; employees Eve, Gus", "Zeta: departments Sales; employees Finn",
                ])
            // Employees of one business: the business object in the predicate.
            #expect(try app.ok("employees", "Acme") == ["Eve, 30, department Sales", "Gus, 25, department Research"])
            #expect(try app.ok("employees", "Zeta") == ["Finn, 41, department Sales"])
            // Deleting a department nullifies: employees and businesses stay.
            try app.ok("delete-department", "Sales")
            #expect(try app.ok("departments") == ["Research: businesses none; employees Gus"])
            #expect(
                try app.ok("businesses") == [
                    "Acme: departments none; employees Eve, Gus", "Zeta: departments none; employees Finn",
                ])
            #expect(try app.ok("employees", "Acme") == ["Eve, 30, department none", "Gus, 25, department Research"])
            #expect(try app.fails("employees", "Nobody").contains("no business named 'Nobody'"))
            #expect(try app.fails("add-employee", "Hal", "old").contains("age must be a whole number"))
        }
    }

    @Test(arguments: Backend.allCases) func shipsSingersAndCandy(_ backend: Backend) throws {
        try Self.withDirectory(backend) { directory throws in
            let app = App("ships-singers-candy", in: directory)
            for (name, universe) in [
                ("Enterprise", "Star Trek"), ("Executor", "Star Wars"), ("Millennium Falcon", "Star Wars"),
                ("Serenity", "Firefly"), ("excalibur", "Babylon 5"), ("Defiant", "Star Trek"),
                ("Galactica", "Battlestar"),
            ] {
                try app.ok("add-ship", name, universe)
            }
            // Each predicate as a format string and typed; the program fails if any two differ.
            #expect(
                try app.ok("ships") == [
                    "universe == \"Star Wars\": Executor, Millennium Falcon",
                    "universe == %@: Defiant, Enterprise",
                    "name < \"F\": Defiant, Enterprise, Executor",
                    "universe IN %@: Executor, Millennium Falcon, Serenity, excalibur",
                    "name BEGINSWITH \"E\": Enterprise, Executor",
                    "name BEGINSWITH[c] \"e\": Enterprise, Executor, excalibur",
                    "NOT name BEGINSWITH[c] \"e\": Defiant, Galactica, Millennium Falcon, Serenity",
                    "universe BEGINSWITH \"Star\" AND name < \"F\" AND NOT universe == %@: Executor",
                ])
            for (first, last) in [("Elvis", "Presley"), ("Ella", "Fitzgerald"), ("Taylor", "Swift"), ("Edith", "Piaf")]
            {
                try app.ok("add-singer", first, last)
            }
            // Key and prefix chosen at run time.
            #expect(try app.ok("singers", "lastName", "P") == ["Edith Piaf", "Elvis Presley"])
            #expect(try app.ok("singers", "firstName", "El") == ["Ella Fitzgerald", "Elvis Presley"])
            #expect(try app.fails("singers", "voice", "A").contains("predicate"))
            // Each candy creates "UK" anew: the default policy fails the save and stores nothing.
            #expect(
                try app.fails("add-candy", "UK", "United Kingdom", "Wine Gums", "Fruit Pastilles").contains(
                    "uniqueness"))
            #expect(try app.ok("countries") == ["No countries."])
            try app.ok("add-candy", "--policy", "objectTrump", "UK", "United Kingdom", "Wine Gums", "Fruit Pastilles")
            try app.ok("add-candy", "--policy", "objectTrump", "UK", "United Kingdom", "Sherbet Lemons")
            #expect(try app.ok("countries") == ["UK (United Kingdom): 3 candy"])
            #expect(try app.ok("candy", "UK") == ["Fruit Pastilles", "Sherbet Lemons", "Wine Gums"])
        }
    }

    @Test(arguments: Backend.allCases) func helloCoreData(_ backend: Backend) throws {
        try Self.withDirectory(backend) { directory throws in
            let app = App("hellocoredata", in: directory)
            // The in-memory preview store: ten items and the sample users, nothing on disk.
            let preview = try app.ok("preview")
            #expect(preview.first == "Items: 10")
            #expect(
                Array(preview.drop { $0 != "Users:" }.dropFirst()) == [
                    "00000000-0000-4000-8000-000000000003 Alan (running)",
                    "00000000-0000-4000-8000-000000000002 Grace (sailing)",
                    "00000000-0000-4000-8000-000000000001 Ada (mathematics)",
                ])
            #expect(!FileManager.default.fileExists(atPath: app.store))
            #expect(try app.ok("--in-memory", "users") == ["No users."])
            // Both fields are required.
            #expect(try app.fails("add-user", "--name", "Ada").contains("validation: User.hobby is required"))
            #expect(try app.fails("add-user", "--hobby", "chess").contains("validation: User.name is required"))
            #expect(try app.ok("users") == ["No users."])
            var ids: [String] = []
            for (name, hobby) in [("Ada", "chess"), ("Grace", "sailing"), ("Alan", "running")] {
                let line = try #require(try app.ok("add-user", "--name", name, "--hobby", hobby).first)
                ids.append(String(line.dropFirst("Added user ".count).dropLast()))
            }
            let users = try app.ok("users")
            #expect(users.map { String($0.prefix(36)) } == ids.sorted(by: >), "sorted by id, descending")
            try app.ok("update-user", ids[0], "Ada Lovelace", "poetry")
            try app.ok("delete-user", ids[1])
            #expect(Set(try app.ok("users")) == ["\(ids[0]) Ada Lovelace (poetry)", "\(ids[2]) Alan (running)"])
            #expect(try app.fails("delete-user", "not-a-uuid").contains("is not a UUID"))
            // A save in a background context reaches the main context without reopening, and
            // its list of users (sorted by id, descending) as an inserted row.
            let background = try app.ok("background", "Zed", "chess")
            #expect(background.first == "Main context: 2 user(s) before, 3 after; sees Zed.")
            let listed = try app.ok("users")
            let row = try #require(listed.firstIndex { $0.hasSuffix(" Zed (chess)") })
            #expect(background.dropFirst().first == "The list inserted row \(row + 1) of 3: Zed.")
        }
    }
}
