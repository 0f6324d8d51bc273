import Foundation
import GeneratedModels
import ModelGenRuntime

// modelgen-stress: the child processes of the crash-safety and concurrency tests. They work on a
// GradeBook store through the reviewed generated code (the `GeneratedModels` target).

let usage = """
    usage: modelgen-stress write-loop --store PATH
           modelgen-stress coredata-write-loop --store PATH
           modelgen-stress verify --store PATH
           modelgen-stress hammer --store PATH --writer N [--threads N] [--operations N]
           modelgen-stress rename-quiz --store PATH --id UUID --name NAME
           modelgen-stress add-student --store PATH --first NAME --last NAME
           modelgen-stress edit-student --store PATH --object OBJECT-ID (--first NAME | --delete)
           modelgen-stress walk-seed --store PATH --count N
           modelgen-stress walk --store PATH (--batch-size N | --materialize)

    PATH is a SQLite file, or postgres:CONNECTION-STRING for a PostgreSQL database.

    write-loop  saves in a loop until killed, printing "begin N" before and "done N" after save N
    coredata-write-loop
                the same on a copy of a Core Data store of Bookmarks V5 (CoreDataWriter)
    verify      opens the store, checks it and the saves it holds; prints one JSON line
    hammer      several threads, each with its own context, increment one shared counter and add
                rows; conflicts are retried; prints one JSON line
    rename-quiz renames one quiz and saves (another process's save, for the change-merging tests)
    add-student adds a student and saves; prints {"object": ID} (the object identifier as text)
    edit-student renames (or deletes) the student an object identifier's text names, and saves;
                prints {"object": ID}, or {"error": CODE} and exits 3 when it cannot
    walk-seed   makes a SQLite store of N grades with plain SQL; prints one JSON line
    walk        reads every grade in batches of N (or as one array) and sums their points;
                prints one JSON line with the count, the sum and the peak resident memory

    """

/// How `--store` names a PostgreSQL database: `postgres:` and a libpq connection string.
let postgresPrefix = "postgres:"

/// Opens the GradeBook store `location` names: a SQLite file, or a PostgreSQL database.
func openStore(_ location: String) throws -> PersistentStore {
    if location.hasPrefix(postgresPrefix) {
        return try PersistentStore(
            postgres: String(location.dropFirst(postgresPrefix.count)), model: GradeBookModel.model)
    }
    return try PersistentStore(path: location, model: GradeBookModel.model)
}

/// The value following `name` in the arguments, or `fallback`.
func option(_ name: String, _ arguments: [String], fallback: String? = nil) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("modelgen-stress: \(message)\n".utf8))
    exit(2)
}

/// Renames or deletes the student `id` names and saves; the JSON line to print.
func editStudent(_ context: ObjectContext, _ id: ObjectID, delete: Bool, first: String?) -> (
    json: String, succeeded: Bool
) {
    do {
        let student = try context.existingObject(with: id, as: Student.self)
        if delete {
            context.delete(student)
        } else if let first {
            student.first_name = first
        }
        try context.save()
        return (#"{"object": "\#(id.stringValue)"}"#, true)
    } catch {
        return (#"{"error": "\#((error as? DatabaseError)?.code.description ?? "\(error)")"}"#, false)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, command != "--help", command != "-h" else {
    print(usage, terminator: "")
    exit(arguments.isEmpty ? 2 : 0)
}
guard let store = option("--store", arguments) else { fail("--store PATH is required\n\(usage)") }

do {
    switch command {
    case "write-loop":
        try CrashWriter(path: store).run()
    case "coredata-write-loop":
        try CoreDataWriter(path: store).run()
    case "verify":
        print(try StoreVerifier(path: store).report())
    case "hammer":
        guard let writer = option("--writer", arguments).flatMap(Int.init), writer > 0 else {
            fail("--writer N (≥ 1) is required")
        }
        guard let threads = Int(option("--threads", arguments, fallback: "3")!), threads > 0,
            let operations = Int(option("--operations", arguments, fallback: "100")!), operations > 0
        else { fail("--threads and --operations take positive numbers") }
        print(try Hammer(path: store, writer: writer, threads: threads, operations: operations).run())
    case "rename-quiz":
        guard let id = option("--id", arguments).flatMap(UUID.init(uuidString:)), let name = option("--name", arguments)
        else {
            fail("--id UUID and --name NAME are required")
        }
        let context = try openStore(store).newContext()
        guard let quiz = try Quiz.find(id: id, in: context) else { fail("no quiz \(id)") }
        quiz.name = name
        try context.save()
    case "add-student":
        guard let first = option("--first", arguments), let last = option("--last", arguments) else {
            fail("--first NAME and --last NAME are required")
        }
        let context = try openStore(store).newContext()
        let student = Student(in: context, first_name: first, id: UUID(), last_name: last)
        try context.save()
        print(#"{"object": "\#(student.objectID.stringValue)"}"#)
    case "edit-student":
        guard let text = option("--object", arguments), let id = ObjectID(stringValue: text) else {
            fail("--object takes an object identifier's text (entity/row)")
        }
        let outcome = editStudent(
            try openStore(store).newContext(), id, delete: arguments.contains("--delete"),
            first: option("--first", arguments))
        print(outcome.json)
        if !outcome.succeeded { exit(3) }
    case "walk-seed":
        guard let count = option("--count", arguments).flatMap(Int.init), count > 0 else {
            fail("--count N (≥ 1) is required")
        }
        print(try Walker.seed(path: store, count: count))
    case "walk":
        let batchSize = option("--batch-size", arguments).flatMap(Int.init)
        guard (batchSize ?? 1) > 0, (batchSize != nil) != arguments.contains("--materialize") else {
            fail("walk takes --batch-size N (≥ 1) or --materialize")
        }
        print(try Walker.walk(path: store, batchSize: batchSize))
    default:
        fail("unknown command '\(command)'\n\(usage)")
    }
} catch {
    fail("\(error)")
}
