import ExampleSupport
import Foundation
import ModelGenRuntime

// persondata: SCENARIOS.md §2. People are listed in the order they were added and addressed by
// position; `get`/`set` go through dynamic key access with the key as a string.

let usage = """
    usage: persondata [--store PATH | --postgres URL] COMMAND
      add NAME SSN                  add a person
      list                          everyone, numbered
      update POSITION NAME SSN      change a person's name and ssn
      delete POSITION               delete one person
      delete-ssn SSN                delete everyone whose ssn is SSN (predicate ssn == %@)
      get POSITION KEY              a value by key (value(forKey:))
      set POSITION KEY VALUE        a value by key (setValue(_:forKey:)); numbers for ssn
    The store defaults to persondata.sqlite in the current directory; --postgres (or MODELGEN_POSTGRES_URL)
    names a PostgreSQL database instead.

    """

let commandLine = ExampleCommandLine(program: "persondata", defaultStore: "persondata.sqlite", usage: usage)

@MainActor func ssn(_ text: String) -> Int16 {
    guard let value = Int16(text) else {
        commandLine.fail("ssn must be a whole number from -32768 to 32767, not '\(text)'")
    }
    return value
}

do {
    let store = try commandLine.openStore(PersonDataModel.model)
    let context = store.newContext()
    let people = try Person.fetch(in: context)
    let operands = commandLine.operands
    switch (commandLine.command ?? "", operands.count) {
    case ("add", 2):
        let person = Person(in: context)
        person.name = operands[0]
        person.ssn = ssn(operands[1])
        try context.save()
        print("Added \(operands[0]).")
    case ("list", 0):
        if people.isEmpty { print("No people.") }
        for (index, person) in try Person.fetch(in: context).enumerated() {
            print("\(index + 1). \(person.name ?? "(no name)") \(person.ssn)")
        }
    case ("update", 3):
        let person = commandLine.pick(people, operands[0], "person")
        person.name = operands[1]
        person.ssn = ssn(operands[2])
        try context.save()
        print("Updated \(operands[1]).")
    case ("delete", 1):
        context.delete(commandLine.pick(people, operands[0], "person"))
        try context.save()
        print("Deleted 1 person.")
    case ("delete-ssn", 1):
        let value = ssn(operands[0])
        let matching = try Person.fetch(in: context, where: try ObjectPredicate(format: "ssn == %@", value))
        for person in matching { context.delete(person) }
        try context.save()
        print("Deleted \(matching.count) person(s) with ssn \(value).")
    case ("get", 2):
        let value = try commandLine.pick(people, operands[0], "person").value(forKey: operands[1])
        print(value.map { "\($0)" } ?? "nil")
    case ("set", 3):
        let person = commandLine.pick(people, operands[0], "person")
        // The value's type follows the key's attribute type, as a text field's would be converted.
        let value: Any? = operands[1] == "ssn" ? (Int16(operands[2]) as Any? ?? operands[2]) : operands[2]
        try person.setValue(value, forKey: operands[1])
        try context.save()
        print("Set \(operands[1]).")
    default:
        commandLine.fail("unknown command or wrong number of operands\n\(usage)")
    }
} catch {
    commandLine.fail("\(error)")
}
