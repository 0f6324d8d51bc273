import ExampleSupport
import Foundation
import ModelGenRuntime

// ships-singers-candy: SCENARIOS.md §5. Ship predicates as format strings and typed, a filtered
// singer list written once for any entity, and candy whose countries are merged by policy.

let usage = """
    usage: ships-singers-candy [--store PATH | --postgres URL] COMMAND
      add-ship NAME UNIVERSE                    add a ship
      add-singer FIRST LAST                     add a singer
      ships                                     every ship predicate, as a format string and typed
      singers KEY PREFIX                        singers whose KEY begins with PREFIX, sorted by KEY
      add-candy [--policy error|objectTrump] SHORT FULL CANDY...
                                                add candy, each creating its country SHORT anew
      candy SHORT                               a country's candy, sorted by name (candyArray)
      countries                                 every country with its candy count
    The store defaults to ships-singers-candy.sqlite in the current directory; --postgres (or MODELGEN_POSTGRES_URL)
    names a PostgreSQL database instead.

    """

let commandLine = ExampleCommandLine(
    program: "ships-singers-candy", defaultStore: "ships-singers-candy.sqlite", usage: usage)

/// Objects of any entity whose `key` begins with `prefix`, sorted by `key`: the key and the
/// prefix come at run time (`%K BEGINSWITH %@`).
@MainActor func filtered<T: FetchableObject>(_ type: T.Type, key: String, prefix: String, in context: ObjectContext)
    throws -> [T]
{
    try T.fetch(
        in: context, where: try ObjectPredicate<T>(format: "%K BEGINSWITH %@", key, prefix),
        sortedBy: [try ObjectSortDescriptor<T>(key: key)])
}

/// The ship predicates of the scenario: a format string, its arguments, the same as a typed predicate.
let universes = ["Star Wars", "Firefly", "Babylon 5"]
let shipPredicates: [(String, [Any?], ObjectPredicate<Ship>)] = [
    ("universe == \"Star Wars\"", [], \Ship.universe == "Star Wars"),
    ("universe == %@", ["Star Trek"], \Ship.universe == "Star Trek"),
    ("name < \"F\"", [], \Ship.name < "F"),
    ("universe IN %@", [universes], .keyPath(\Ship.universe, in: universes)),
    ("name BEGINSWITH \"E\"", [], .beginsWith(\Ship.name, "E")),
    ("name BEGINSWITH[c] \"e\"", [], .beginsWith(\Ship.name, "e", caseInsensitive: true)),
    ("NOT name BEGINSWITH[c] \"e\"", [], !.beginsWith(\Ship.name, "e", caseInsensitive: true)),
    (
        "universe BEGINSWITH \"Star\" AND name < \"F\" AND NOT universe == %@", ["Star Trek"],
        .beginsWith(\Ship.universe, "Star") && \Ship.name < "F" && !(\Ship.universe == "Star Trek")
    ),
]

do {
    let store = try commandLine.openStore(ShipsSingersCandyModel.model)
    let context = store.newContext()
    var operands = commandLine.operands
    switch (commandLine.command ?? "", operands.count) {
    case ("add-ship", 2):
        let ship = Ship(in: context)
        ship.name = operands[0]
        ship.universe = operands[1]
        try context.save()
        print("Added ship \(operands[0]).")
    case ("add-singer", 2):
        let singer = Singer(in: context)
        singer.firstName = operands[0]
        singer.lastName = operands[1]
        try context.save()
        print("Added singer \(operands[0]) \(operands[1]).")
    case ("ships", 0):
        var disagreements = 0
        let byName = [ObjectSortDescriptor(\Ship.name)]
        for (format, arguments, typed) in shipPredicates {
            let fromFormat = try Ship.fetch(
                in: context, where: try ObjectPredicate<Ship>(format: format, arguments: arguments), sortedBy: byName)
            let fromType = try Ship.fetch(in: context, where: typed, sortedBy: byName)
            let same = fromFormat.map(ObjectIdentifier.init) == fromType.map(ObjectIdentifier.init)
            if !same { disagreements += 1 }
            print(
                "\(format): \(fromFormat.compactMap(\.name).joined(separator: ", "))\(same ? "" : "  (typed: \(fromType.compactMap(\.name).joined(separator: ", ")))")"
            )
        }
        if disagreements > 0 { commandLine.fail("\(disagreements) predicate(s) gave different results") }
    case ("singers", 2):
        let singers = try filtered(Singer.self, key: operands[0], prefix: operands[1], in: context)
        if singers.isEmpty { print("No singers.") }
        for singer in singers { print("\(singer.firstName ?? "") \(singer.lastName ?? "")") }
    case ("add-candy", 3...):
        if operands[0] == "--policy" {
            switch operands[1] {
            case "error": context.mergePolicy = .error
            case "objectTrump": context.mergePolicy = .objectTrump
            default: commandLine.fail("--policy is error or objectTrump, not '\(operands[1])'")
            }
            operands.removeFirst(2)
        }
        guard operands.count >= 3 else { commandLine.fail("add-candy needs SHORT FULL and at least one candy") }
        for name in operands.dropFirst(2) {
            let candy = Candy(in: context)
            candy.name = name
            let country = Country(in: context, shortName: operands[0])
            country.fullName = operands[1]
            candy.origin = country
        }
        try context.save()
        print("Added \(operands.count - 2) candy from \(operands[0]).")
    case ("candy", 1):
        guard let country = try Country.find(shortName: operands[0], in: context) else {
            commandLine.fail("no country '\(operands[0])'")
        }
        let candy = country.candyArray
        if candy.isEmpty { print("No candy.") }
        for item in candy { print(item.name ?? "?") }
    case ("countries", 0):
        let countries = try Country.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Country.shortName)])
        if countries.isEmpty { print("No countries.") }
        for country in countries {
            print("\(country.shortName) (\(country.fullName ?? "?")): \(country.candy.count) candy")
        }
    default:
        commandLine.fail("unknown command or wrong number of operands\n\(usage)")
    }
} catch {
    commandLine.fail("\(error)")
}
