import ExampleSupport
import Foundation
import ModelGenRuntime

// hellocoredata: SCENARIOS.md §6. Items and users (a hand-written class with generated
// properties), the in-memory preview store, and a background save seen by the main context.

let usage = """
    usage: hellocoredata [--store PATH | --postgres URL | --in-memory] COMMAND
      preview                       fill an in-memory store with ten items and sample users, list it
      add-item                      add an item stamped now
      items                         the items, newest first
      add-user [--name N] [--hobby H]
                                    add a user (both are required: a missing one fails the save)
      users                         users sorted by id, descending
      update-user ID NAME HOBBY     change a user found by id
      delete-user ID                delete a user found by id
      background NAME HOBBY         add a user in a background context; the main context sees it
    The store defaults to hellocoredata.sqlite in the current directory; --postgres (or MODELGEN_POSTGRES_URL)
    names a PostgreSQL database instead.

    """

let commandLine = ExampleCommandLine(
    program: "hellocoredata", defaultStore: "hellocoredata.sqlite", allowsInMemory: true, usage: usage)

@MainActor func printUsers(_ context: ObjectContext) throws {
    let users = try User.fetch(in: context, sortedBy: [ObjectSortDescriptor(\User.id, ascending: false)])
    if users.isEmpty { print("No users.") }
    for user in users { print("\(user.id.uuidString) \(user.name) (\(user.hobby))") }
}

@MainActor func printItems(_ context: ObjectContext) throws {
    let items = try Item.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Item.timestamp, ascending: false)])
    if items.isEmpty { print("No items.") }
    for item in items { print(item.timestamp.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "no timestamp") }
}

@MainActor func user(_ text: String, _ context: ObjectContext) throws -> User {
    guard let id = UUID(uuidString: text) else { commandLine.fail("'\(text)' is not a UUID") }
    guard let found = try User.first(in: context, where: \User.id == id) else {
        commandLine.fail("no user with id \(text)")
    }
    return found
}

do {
    let command = commandLine.command ?? ""
    let path = command == "preview" ? ":memory:" : commandLine.storePath
    let store = try commandLine.openStore(HelloCoreDataModel.model, path: path)
    let context = store.newContext()
    var operands = commandLine.operands
    switch (command, operands.count) {
    case ("preview", 0):
        // The preview store: ten items a day apart and three users, in memory only.
        for day in 0..<10 {
            Item(in: context).timestamp = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(day) * 86_400)
        }
        for (index, (name, hobby)) in [("Ada", "mathematics"), ("Grace", "sailing"), ("Alan", "running")].enumerated() {
            let user = context.insert(User.self)
            user.id = UUID(uuidString: "00000000-0000-4000-8000-00000000000\(index + 1)")!
            user.name = name
            user.hobby = hobby
        }
        try context.save()
        let fresh = store.newContext()
        print("Items: \(try Item.count(in: fresh))")
        try printItems(fresh)
        print("Users:")
        try printUsers(fresh)
    case ("add-item", 0):
        Item(in: context).timestamp = Date()
        try context.save()
        print("Added an item.")
    case ("items", 0):
        try printItems(context)
    case ("add-user", _):
        // A new user's `id` comes from `awakeFromInsert` (User.swift).
        let user = context.insert(User.self)
        while let option = operands.first {
            guard operands.count >= 2, option == "--name" || option == "--hobby" else {
                commandLine.fail("add-user takes --name NAME and --hobby HOBBY")
            }
            if option == "--name" { user.name = operands[1] } else { user.hobby = operands[1] }
            operands.removeFirst(2)
        }
        try context.save()
        print("Added user \(user.id.uuidString).")
    case ("users", 0):
        try printUsers(context)
    case ("update-user", 3):
        let found = try user(operands[0], context)
        found.name = operands[1]
        found.hobby = operands[2]
        try context.save()
        print("Updated \(operands[1]).")
    case ("delete-user", 1):
        context.delete(try user(operands[0], context))
        try context.save()
        print("Deleted user \(operands[0]).")
    case ("background", 2):
        // The main context's list of users follows the store: a background save reaches it as a
        // change to apply, without reopening the store or fetching again.
        let list = ResultsObservation(
            FetchRequest<User>(sortDescriptors: [ObjectSortDescriptor(\User.id, ascending: false)]))
        var updates = list.values(in: context).makeAsyncIterator()
        guard let before = try await updates.next() else { commandLine.fail("the list of users ended") }
        let (name, hobby) = (operands[0], operands[1])
        let id = try await store.perform { background in
            let user = background.insert(User.self)
            user.name = name
            user.hobby = hobby
            try background.save()
            return user.objectID
        }
        guard let after = try await updates.next(), let row = after.changes.inserted.first?.item else {
            commandLine.fail("the main context's list did not hear of the background save")
        }
        let seen = try context.existingObject(with: id, as: User.self)
        print("Main context: \(before.objects.count) user(s) before, \(after.objects.count) after; sees \(seen.name).")
        print("The list inserted row \(row + 1) of \(after.objects.count): \(after.objects[row].name).")
    default:
        commandLine.fail("unknown command or wrong number of operands\n\(usage)")
    }
} catch {
    commandLine.fail("\(error)")
}
