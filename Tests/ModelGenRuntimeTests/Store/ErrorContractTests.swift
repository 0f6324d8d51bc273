import Foundation
import GeneratedModels
import TestSupport
import Testing

@_spi(Database) @testable import ModelGenRuntime

/// The error table of the DocC catalog (`Errors.md`) holds: it names every code once, and each
/// row's example, run for real, throws that code, changes nothing the table says it does not, and
/// behaves as its "Retry" column says — succeeds once the cause is cleared ("Yes"), or throws the
/// same code again when called unchanged.
@Suite(.serialized) struct ErrorContractTests {
    struct Row {
        var code: String
        var example: String
        var retry: String
    }

    /// The table's rows, read from the article.
    static func table() throws -> [Row] {
        let article = PackagePaths.root.appendingPathComponent("Sources/ModelGenRuntime/ModelGenRuntime.docc/Errors.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Row? in
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5 else { return nil }
            return Row(code: cells[0].trimmingCharacters(in: ["`"]), example: cells[2], retry: cells[3])
        }
    }

    @Test func theTableNamesEveryCodeOnce() throws {
        let codes = try Self.table().map(\.code)
        #expect(codes.count == Set(codes).count, "a code listed twice: \(codes)")
        #expect(Set(codes) == Set(DatabaseError.Code.all.map(\.description)))
    }

    /// One example: `setUp` makes what it needs and returns the call that throws, a look at what
    /// the call must leave unchanged, and what clears the cause (for codes where retrying helps).
    struct Example {
        var call: () throws -> Void
        var state: () throws -> String = { "" }
        var clear: (() throws -> Void)? = nil
        var cleanup: () -> Void = {}
    }

    @Test func eachExampleThrowsItsCodeChangesNothingAndRetriesAsTheTableSays() throws {
        let rows = try Self.table()
        let examples = try Self.examples()
        #expect(Set(examples.keys) == Set(rows.map(\.example)), "the table's examples and the test's differ")
        var ran = 0
        defer { #expect(ran == rows.count || PostgresCluster.shared() == nil, "ran \(ran) of \(rows.count)") }
        for row in rows {
            guard let setUp = examples[row.example] else { continue }
            guard let example = try setUp() else { continue }  // PostgreSQL not available
            defer { example.cleanup() }
            ran += 1
            let before = try example.state()
            let error = try #require(throws: DatabaseError.self, "\(row.example)") { try example.call() }
            #expect(error.code.description == row.code, "\(row.example): \(error)")
            #expect(try example.state() == before, "\(row.example) changed the store")
            if row.retry.hasPrefix("Yes") {
                let clear = try #require(example.clear, "\(row.example): nothing clears the cause")
                try clear()
                try example.call()
            } else {
                let again = try #require(throws: DatabaseError.self, "\(row.example), again") { try example.call() }
                #expect(again.code == error.code, "\(row.example), again: \(again)")
            }
        }
    }

    // MARK: - The examples

    /// A SQLite store of `model` in a new directory.
    static func sqlite(_ model: PersistentStore.Model) throws -> (PersistentStore, String, () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("errors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store.sqlite").path
        return (
            try PersistentStore(path: path, model: model), path, { try? FileManager.default.removeItem(at: directory) }
        )
    }

    static func counts(_ store: PersistentStore) throws -> String {
        let context = store.newContext()
        return "\(try Student.count(in: context)) students, \(try Quiz.count(in: context)) quizzes"
    }

    static func examples() throws -> [String: () throws -> Example?] {
        [
            "saving a Student without last_name": {
                let (store, _, cleanup) = try sqlite(GradeBookModel.model)
                let context = store.newContext()
                let student = context.insert(Student.self)
                student.id = UUID()
                student.first_name = "Ada"
                return Example(call: { try context.save() }, state: { try counts(store) }, cleanup: cleanup)
            },
            "saving a second Student with the same id": {
                let (store, _, cleanup) = try sqlite(GradeBookModel.model)
                let context = store.newContext()
                let id = UUID()
                _ = Student(in: context, first_name: "Ada", id: id, last_name: "L")
                try context.save()
                _ = Student(in: context, first_name: "Ada", id: id, last_name: "L")
                return Example(call: { try context.save() }, state: { try counts(store) }, cleanup: cleanup)
            },
            "deleting a Book that has a Loan": {
                let (store, _, cleanup) = try sqlite(LibraryModel.model)
                let context = store.newContext()
                let book = Book(in: context, title: "Dune")
                let loan = Loan(in: context, due: Date(timeIntervalSinceReferenceDate: 0))
                loan.item = book
                loan.member = Member(in: context, email: "ada@example.com", name: "Ada")
                try context.save()
                context.delete(book)
                return Example(
                    call: { try context.save() }, state: { "\(try Book.count(in: store.newContext()))" },
                    cleanup: cleanup)
            },
            "refreshing a Student another context deleted": {
                let (store, _, cleanup) = try sqlite(GradeBookModel.model)
                let context = store.newContext()
                let student = Student(in: context, first_name: "Ada", id: UUID(), last_name: "L")
                try context.save()
                let other = store.newContext()
                other.delete(try #require(try Student.find(id: student.id, in: other)))
                try other.save()
                return Example(call: { try context.refresh(student) }, state: { try counts(store) }, cleanup: cleanup)
            },
            "saving a Quiz another context saved first": {
                let (store, _, cleanup) = try sqlite(GradeBookModel.model)
                let context = store.newContext()
                let quiz = Quiz(in: context, id: UUID(), name: "Quiz")
                try context.save()
                let other = store.newContext()
                try #require(try Quiz.find(id: quiz.id, in: other)).name = "theirs"
                try other.save()
                quiz.name = "ours"
                return Example(
                    call: { try context.save() },
                    state: { try #require(try Quiz.find(id: quiz.id, in: store.newContext())).name },
                    clear: {
                        try context.refresh(quiz)
                        quiz.name = "ours"
                    }, cleanup: cleanup)
            },
            "reading the key age of a Student": {
                let student = Student()
                return Example(call: { _ = try student.value(forKey: "age") })
            },
            "setting first_name of a Student to 42": {
                let student = Student()
                return Example(
                    call: { try student.setValue(42, forKey: "first_name") }, state: { student.first_name })
            },
            "a predicate comparing grades.points without ANY": {
                Example(call: { _ = try ObjectPredicate<Student>(format: "grades.points > 5") })
            },
            "a batch delete in a child context": {
                let (store, _, cleanup) = try sqlite(GradeBookModel.model)
                let child = store.newContext().newChildContext()
                return Example(
                    call: { _ = try child.batchDelete(Student.self) }, state: { try counts(store) }, cleanup: cleanup)
            },
            "opening a store whose schema is of no known version": {
                let (store, path, cleanup) = try sqlite(GradeBookModel.model)
                _ = store
                let connection = try Connection(path: path)
                try connection.execute(
                    #"UPDATE "_modelgen_metadata" SET "value" = 'unknown' WHERE "key" = 'schema_hash'"#)
                connection.close()
                return Example(
                    call: { _ = try PersistentStore(path: path, model: GradeBookModel.model) },
                    state: { try String(decoding: Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self) },
                    cleanup: cleanup)
            },
            "opening a SQLite file another program made": {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("errors-\(UUID())")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let path = directory.appendingPathComponent("other.sqlite").path
                let connection = try Connection(path: path, wal: false)
                try connection.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
                connection.close()
                return Example(
                    call: { _ = try PersistentStore(path: path, model: GradeBookModel.model) },
                    state: { try Data(contentsOf: URL(fileURLWithPath: path)).base64EncodedString() },
                    cleanup: { try? FileManager.default.removeItem(at: directory) })
            },
            "opening a store in a folder that does not exist": {
                let path = "/nonexistent-\(UUID().uuidString)/store.sqlite"
                return Example(
                    call: { _ = try PersistentStore(path: path, model: GradeBookModel.model) },
                    state: { "\(FileManager.default.fileExists(atPath: path))" })
            },
            "opening a store as a role the server does not know": {
                guard let cluster = PostgresCluster.shared() else { return nil }
                let (schema, connectionString) = try cluster.freshSchema("errors")
                return Example(
                    call: {
                        _ = try PersistentStore(
                            postgres: connectionString + " user=nobody_\(schema)", model: GradeBookModel.model)
                    },
                    state: { "\(try cluster.rows("SELECT count(*) FROM pg_tables WHERE schemaname = '\(schema)';"))" },
                    cleanup: { _ = try? cluster.psql("DROP SCHEMA \"\(schema)\" CASCADE;") })
            },
            "fetching while the server is stopped": {
                guard PostgresCluster.shared() != nil else { return nil }
                let cluster = try PostgresCluster.start()
                let (_, connectionString) = try cluster.freshSchema("lost")
                let store = try PersistentStore(postgres: connectionString, model: GradeBookModel.model)
                let context = store.newContext()
                _ = Student(in: context, first_name: "Ada", id: UUID(), last_name: "L")
                try context.save()
                try cluster.stopServer()
                return Example(
                    call: { _ = try Student.fetch(in: context) }, clear: { try cluster.startServer() },
                    cleanup: { cluster.stop() })
            },
            "setting priority of a Task to 9": {
                let task = Task()
                return Example(
                    call: { try task.setValue(Int16(9), forKey: "priority") }, state: { "\(task.priority)" })
            },
        ]
    }
}
