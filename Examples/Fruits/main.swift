import ExampleSupport
import Foundation
import ModelGenRuntime

// fruits: SCENARIOS.md §3. Every change is saved and the list fetched again and printed.

let usage = """
    usage: fruits [--store PATH | --postgres URL] COMMAND
      list                          the fruits, numbered
      add TEXT                      add a fruit (empty text is ignored)
      delete POSITION               delete a fruit
      update POSITION               append "!" to a fruit's name
    The store defaults to fruits.sqlite in the current directory; --postgres (or MODELGEN_POSTGRES_URL)
    names a PostgreSQL database instead.

    """

let commandLine = ExampleCommandLine(program: "fruits", defaultStore: "fruits.sqlite", usage: usage)

@MainActor func printAll(_ context: ObjectContext) throws {
    let fruits = try FruitEntity.fetch(in: context)
    if fruits.isEmpty { print("No fruits.") }
    for (index, fruit) in fruits.enumerated() { print("\(index + 1). \(fruit.name ?? "")") }
}

do {
    let store = try commandLine.openStore(FruitsModel.model)
    let context = store.newContext()
    let fruits = try FruitEntity.fetch(in: context)
    let operands = commandLine.operands
    switch (commandLine.command ?? "", operands.count) {
    case ("list", 0):
        break
    case ("add", 1):
        let text = operands[0].trimmingCharacters(in: .whitespaces)
        if text.isEmpty {
            print("Nothing to add.")
        } else {
            FruitEntity(in: context).name = text
        }
    case ("delete", 1):
        context.delete(commandLine.pick(fruits, operands[0], "fruit"))
    case ("update", 1):
        let fruit = commandLine.pick(fruits, operands[0], "fruit")
        fruit.name = (fruit.name ?? "") + "!"
    default:
        commandLine.fail("unknown command or wrong number of operands\n\(usage)")
    }
    try context.save()
    try printAll(store.newContext())
} catch {
    commandLine.fail("\(error)")
}
