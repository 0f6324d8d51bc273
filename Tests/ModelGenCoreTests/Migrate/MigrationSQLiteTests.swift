import Foundation
import Testing

@testable import ModelGenCore

/// Migrations on real SQLite databases: for each change kind, build the old schema, seed rows,
/// plan and apply the migration, and check the introspected schema against a fresh build of the
/// new one, the rows the safety class promises to keep, the recorded snapshot, and that a failure
/// after any statement leaves the old database exactly as it was.
@Suite struct MigrationSQLiteTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var old: String
        var new: String
        /// Objects for the old schema, saved through the runtime.
        var seed: [Object]
        /// The plan's worst safety class.
        var safety: MigrationPlan.Safety
        /// Step codes the plan must contain.
        var codes: [String]
        var defaults: [String: String] = [:]
        var allowDataLoss = false
        /// A query on the migrated database and its rows; or nil when the migration must stop.
        var check: (sql: String, rows: [[String?]])?
        var testDescription: String { name }
    }

    typealias Object = RuntimeSeeder.Object

    static func entity(_ name: String, _ body: String, extra: String = "") -> String {
        #"<entity name="\#(name)" representedClassName="\#(name)" \#(extra)syncable="YES" codeGenerationType="class">"#
            + "\n" + body + "\n</entity>"
    }

    /// An entity with one attribute of each kind; each argument replaces one attribute's type.
    static func item(
        count: String = "Integer 64", price: String = "Double", code: String = "String", flag: String = "Boolean",
        countOptional: Bool = false, countDefault: String = "0", extra: String = ""
    ) -> String {
        entity(
            "Item",
            #"<attribute name="count" \#(countOptional ? #"optional="YES" "# : "")attributeType="\#(count)" defaultValueString="\#(countDefault)" usesScalarValueType="YES"/>"#
                + #"<attribute name="price" optional="YES" attributeType="\#(price)" usesScalarValueType="YES"/>"#
                + #"<attribute name="code" optional="YES" attributeType="\#(code)" usesScalarValueType="YES"/>"#
                + #"<attribute name="flag" optional="YES" attributeType="\#(flag)" usesScalarValueType="YES"/>"# + extra
        )
    }

    static let seedItems = [
        Object("Item", ["count": 36, "price": 2.0, "code": "12", "flag": true]), Object("Item", ["count": 41]),
    ]

    /// Person ↔ Pet, one-to-many; the to-many's deletion rule and order vary.
    static func owners(rule: String = "Nullify", ordered: Bool = false, manyToMany: Bool = false) -> String {
        let inverse = manyToMany ? "owners" : "owner"
        let back =
            manyToMany
            ? #"<relationship name="owners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="pets" inverseEntity="Person"/>"#
            : #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="pets" inverseEntity="Person"/>"#
        return entity(
            "Person",
            #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="pets" optional="YES" toMany="YES" deletionRule="\#(rule)" \#(ordered ? #"ordered="YES" "# : "")destinationEntity="Pet" inverseName="\#(inverse)" inverseEntity="Pet"/>"#
        )
            + "\n" + entity("Pet", #"<attribute name="name" optional="YES" attributeType="String"/>"# + back)
    }

    /// Person ↔ Pet, one-to-one (the key in `person`) or one-to-many (the key in `pet`).
    static func pair(pets toMany: Bool) -> String {
        let forward =
            toMany
            ? #"<relationship name="pets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet" elementID="pet"/>"#
            : #"<relationship name="pet" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>"#
        return entity("Person", #"<attribute name="name" optional="YES" attributeType="String"/>"# + forward) + "\n"
            + entity(
                "Pet",
                #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="\#(toMany ? "pets" : "pet")" inverseEntity="Person"/>"#
            )
    }

    /// Ada and Bob (objects 0, 1), Rex, Tom, Kit and Max (2…5), linked by `links`.
    static func seedSharedPets(_ links: [Int: [String: [Int]]] = [:]) -> [Object] {
        let objects =
            [Object("Person", ["name": "Ada"]), Object("Person", ["name": "Bob"])]
            + ["Rex", "Tom", "Kit", "Max"].map { Object("Pet", ["name": .text($0)]) }
        return objects.enumerated().map { index, object in
            var linked = object
            linked.links = links[index] ?? [:]
            return linked
        }
    }

    static func renamed(_ text: String, _ replacements: [(String, String)]) -> String {
        replacements.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    /// Person and Pet without relationships.
    static let unrelated =
        entity("Person", #"<attribute name="name" optional="YES" attributeType="String"/>"#) + "\n"
        + entity("Pet", #"<attribute name="name" optional="YES" attributeType="String"/>"#)

    /// Person, Shelter, and Pet with a to-one `home` (no inverse) to `destination`.
    static func adoption(to destination: String) -> String {
        entity("Person", #"<attribute name="name" optional="YES" attributeType="String"/>"#) + "\n"
            + entity(
                "Pet",
                #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="home" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="\#(destination)"/>"#
            ) + "\n"
            + entity("Shelter", #"<attribute name="name" optional="YES" attributeType="String"/>"#)
    }

    /// Countries and continents under an abstract Region root, or each a root of its own; a
    /// person's home is a country.
    static func regions(withRoot: Bool) -> String {
        let shared =
            #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="code" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
        let parent = withRoot ? #"parentEntity="Region" "# : ""
        return (withRoot ? entity("Region", shared, extra: #"isAbstract="YES" "#) + "\n" : "")
            + entity(
                "Country",
                (withRoot ? "" : shared)
                    + #"<attribute name="capital" optional="YES" attributeType="String"/><relationship name="people" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="home" inverseEntity="Person"/>"#,
                extra: parent) + "\n"
            + entity(
                "Continent",
                (withRoot ? "" : shared)
                    + #"<attribute name="area" optional="YES" attributeType="Double" usesScalarValueType="YES"/>"#,
                extra: parent) + "\n"
            + entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="home" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Country" inverseName="people" inverseEntity="Country"/>"#
            )
    }

    /// Person with a sub-entity Student (or Student a root of its own); a course's pupil is a
    /// Student, a pet's owner a Person.
    static func schooling(studentIsRoot: Bool) -> String {
        let name = #"<attribute name="name" optional="YES" attributeType="String"/>"#
        return entity(
            "Person",
            name
                + #"<relationship name="pets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>"#
        )
            + "\n"
            + entity(
                "Student",
                (studentIsRoot ? name : "")
                    + #"<attribute name="school" optional="YES" attributeType="String"/><relationship name="courses" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Course" inverseName="pupil" inverseEntity="Course"/>"#,
                extra: studentIsRoot ? "" : #"parentEntity="Person" "#) + "\n"
            + entity(
                "Course",
                #"<attribute name="title" optional="YES" attributeType="String"/><relationship name="pupil" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Student" inverseName="courses" inverseEntity="Student"/>"#
            )
            + "\n"
            + entity(
                "Pet",
                name
                    + #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="pets" inverseEntity="Person"/>"#
            )
    }

    /// Ada (a Person) owns Rex; Sam (a Student) takes a course.
    static let schoolingSeed = [
        Object("Person", ["name": "Ada"]), Object("Student", ["name": "Sam", "school": "MIT"]),
        Object("Course", ["title": "Logic"], links: ["pupil": [1]]),
        Object("Pet", ["name": "Rex"], links: ["owner": [0]]),
    ]

    /// A person's mentor (to-one) and mentees, or mentors and mentees (many-to-many).
    static func mentoring(manyToMany: Bool) -> String {
        let mentor =
            manyToMany
            ? #"<relationship name="mentors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="mentees" inverseEntity="Person"/>"#
            : #"<relationship name="mentor" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="mentees" inverseEntity="Person"/>"#
        return entity(
            "Person",
            #"<attribute name="name" optional="YES" attributeType="String"/>"# + mentor
                + #"<relationship name="mentees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="\#(manyToMany ? "mentors" : "mentor")" inverseEntity="Person"/>"#
        )
    }

    /// Ada, Bob and Cy (objects 0…2); `links` set on the objects `on`.
    static func seedMentoring(_ links: [String: [Int]], on linked: Set<Int>) -> [Object] {
        ["Ada", "Bob", "Cy"].enumerated().map { index, name in
            Object("Person", ["name": .text(name)], links: linked.contains(index) ? links : [:])
        }
    }

    static let seedOwners = [
        Object("Person", ["name": "Ada"]), Object("Pet", ["name": "Rex"], links: ["owner": [0]]),
        Object("Pet", ["name": "Tom"]),
    ]

    /// Person with a sub-entity Student; `school` is declared on `schoolOn` (required on
    /// Student); Person may be abstract.
    static func hierarchy(schoolOn: String, abstract: Bool = false) -> String {
        let school = #"<attribute name="school" optional="YES" attributeType="String"/>"#
        return entity(
            "Person",
            #"<attribute name="name" optional="YES" attributeType="String"/>"# + (schoolOn == "Person" ? school : ""),
            extra: abstract ? #"isAbstract="YES" "# : "")
            + "\n" + entity("Student", schoolOn == "Student" ? school : "", extra: #"parentEntity="Person" "#)
    }

    static let seedHierarchy = [
        Object("Person", ["name": "Ada"]), Object("Student", ["name": "Sam", "school": "MIT"]),
    ]

    static let person = entity(
        "Person",
        #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
    )
    /// `person` with one more attribute.
    static func person(adding attribute: String) -> String {
        entity(
            "Person",
            #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
                + attribute)
    }
    /// `person` with a fetch index on `property`.
    static func indexed(on property: String) -> String {
        entity(
            "Person",
            #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/><fetchIndex name="byProperty"><fetchIndexElement property="\#(property)" type="Binary" order="ascending"/></fetchIndex>"#
        )
    }

    /// `person` with `age` unique.
    static let unique = entity(
        "Person",
        #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/><uniquenessConstraints><uniquenessConstraint><constraint value="age"/></uniquenessConstraint></uniquenessConstraints>"#
    )
    static let seedPeople = [
        Object("Person", ["name": "Ada", "age": 36]), Object("Person", ["name": "Alan", "age": 41]),
        Object("Person", ["age": 7]),
    ]

    static let cases: [Case] = [
        // Book sorts before Film: it takes the plain column, Film's moves (a rename, no data lost).
        Case(
            name: "add a sibling sub-entity with a same-named attribute",
            old: entity(
                "Media", #"<attribute name="title" optional="YES" attributeType="String"/>"#,
                extra: #"isAbstract="YES" "#) + "\n"
                + entity(
                    "Film", #"<attribute name="status" optional="YES" attributeType="String"/>"#,
                    extra: #"parentEntity="Media" "#),
            new: entity(
                "Media", #"<attribute name="title" optional="YES" attributeType="String"/>"#,
                extra: #"isAbstract="YES" "#) + "\n"
                + entity(
                    "Book",
                    #"<attribute name="status" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>"#,
                    extra: #"parentEntity="Media" "#)
                + "\n"
                + entity(
                    "Film", #"<attribute name="status" optional="YES" attributeType="String"/>"#,
                    extra: #"parentEntity="Media" "#),
            seed: [Object("Film", ["title": "Metropolis", "status": "released"])], safety: .safe,
            codes: ["rename-column", "add-column"],
            check: (#"SELECT "title", "status", "status_film" FROM "media""#, [["Metropolis", nil, "released"]])),
        // Two new tables referencing each other: whichever comes first references one not made yet
        // (PostgreSQL checks the referenced table exists when a key is added).
        Case(
            name: "add two entities, the first referencing the second", old: person,
            new: person + "\n"
                + entity(
                    "Alert",
                    #"<attribute name="text" optional="YES" attributeType="String"/><relationship name="notification" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Notification" inverseName="alerts" inverseEntity="Notification"/><relationship name="latestOf" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Notification" inverseName="latest" inverseEntity="Notification"/>"#
                )
                + "\n"
                + entity(
                    "Notification",
                    #"<relationship name="alerts" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Alert" inverseName="notification" inverseEntity="Alert"/><relationship name="latest" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Alert" inverseName="latestOf" inverseEntity="Alert"/>"#
                ),
            seed: seedPeople, safety: .safe, codes: ["add-entity"],
            check: (
                #"SELECT count(*) FROM "alert" JOIN "notification" ON "notification"."_pk" = "alert"."notification_pk""#,
                [["0"]]
            )),
        Case(
            name: "add an optional attribute", old: person,
            new: person(adding: #"<attribute name="nickname" optional="YES" attributeType="String"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-column"],
            check: (
                #"SELECT "name", "nickname" FROM "person" ORDER BY "_pk""#,
                [["Ada", nil], ["Alan", nil], [nil, nil]]
            )),
        Case(
            name: "add a required attribute with a default", old: person,
            new: person(
                adding:
                    #"<attribute name="score" attributeType="Double" defaultValueString="1.5" usesScalarValueType="YES"/>"#
            ),
            seed: seedPeople, safety: .safe, codes: ["add-column"],
            check: (#"SELECT "score" FROM "person" ORDER BY "_pk""#, [["1.5"], ["1.5"], ["1.5"]])),
        Case(
            name: "add a required attribute without a default: needs input", old: person,
            new: person(adding: #"<attribute name="city" attributeType="String"/>"#),
            seed: seedPeople, safety: .needsInput, codes: ["add-required-column"], check: nil),
        Case(
            name: "add a required attribute with --default", old: person,
            new: person(adding: #"<attribute name="city" attributeType="String"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-required-column"], defaults: ["Person.city": "Paris"],
            check: (#"SELECT "city" FROM "person" ORDER BY "_pk""#, [["Paris"], ["Paris"], ["Paris"]])),
        Case(
            name: "add a required UUID with --default uuid(): one per row", old: person,
            new: person(adding: #"<attribute name="id" attributeType="UUID"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-required-column"], defaults: ["Person.id": "uuid()"],
            check: (#"SELECT count(DISTINCT "id"), count(*) FROM "person""#, [["3", "3"]])),
        Case(
            name: "add a required UUID with a constant --default", old: person,
            new: person(adding: #"<attribute name="id" attributeType="UUID"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-required-column"],
            defaults: ["Person.id": "6f2c3b9e-1d4a-4c8e-9b1f-0a2b3c4d5e6f"],
            check: (#"SELECT count(DISTINCT "id"), count(*) FROM "person""#, [["1", "3"]])),
        Case(
            name: "add a required date with --default now()", old: person,
            new: person(adding: #"<attribute name="joined" attributeType="Date"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-required-column"], defaults: ["Person.joined": "now()"],
            check: (#"SELECT count(*) FROM "person" WHERE "joined" IS NOT NULL"#, [["3"]])),
        Case(
            name: "add a required date with an ISO 8601 --default", old: person,
            new: person(adding: #"<attribute name="joined" attributeType="Date"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-required-column"],
            defaults: ["Person.joined": "2020-02-29T12:00:00.5+01:00"],
            check: (#"SELECT count(DISTINCT "joined"), count(*) FROM "person""#, [["1", "3"]])),
        Case(
            name: "uuid() is no value for a date attribute", old: person,
            new: person(adding: #"<attribute name="joined" attributeType="Date"/>"#),
            seed: seedPeople, safety: .needsInput, codes: ["invalid-default"], defaults: ["Person.joined": "uuid()"],
            check: nil),
        Case(
            name: "remove an attribute: refused without allowing data loss", old: person,
            new: entity("Person", #"<attribute name="name" optional="YES" attributeType="String"/>"#),
            seed: seedPeople, safety: .lossy, codes: ["drop-attribute"], check: nil),
        Case(
            name: "remove an attribute with data loss allowed", old: person,
            new: entity("Person", #"<attribute name="name" optional="YES" attributeType="String"/>"#),
            seed: seedPeople, safety: .lossy, codes: ["drop-attribute"], allowDataLoss: true,
            check: (#"SELECT "name" FROM "person" ORDER BY "_pk""#, [["Ada"], ["Alan"], [nil]])),
        Case(
            name: "rename an attribute through its renaming ID", old: person,
            new: entity(
                "Person",
                #"<attribute name="fullName" optional="YES" attributeType="String" elementID="name"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
            ),
            seed: seedPeople, safety: .safe, codes: ["rename-column"],
            check: (
                #"SELECT "full_name", "age" FROM "person" ORDER BY "_pk""#,
                [["Ada", "36"], ["Alan", "41"], [nil, "7"]]
            )),
        Case(
            name: "optional to required with NULLs stored: stopped by the preflight", old: person,
            new: entity(
                "Person",
                #"<attribute name="name" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
            ),
            seed: seedPeople, safety: .dataDependent, codes: ["make-required"], check: (#"SELECT 1"#, [])),
        Case(
            name: "optional to required without NULLs", old: person,
            new: entity(
                "Person",
                #"<attribute name="name" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
            ),
            seed: [Object("Person", ["name": "Ada", "age": 36])], safety: .dataDependent, codes: ["make-required"],
            check: (#"SELECT "name" FROM "person""#, [["Ada"]])),
        Case(
            name: "optional to required with a default fills NULLs", old: person,
            new: entity(
                "Person",
                #"<attribute name="name" attributeType="String" defaultValueString="Anonymous"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
            ),
            seed: seedPeople, safety: .rewrite, codes: ["make-required", "change-default"],
            check: (#"SELECT "name" FROM "person" ORDER BY "_pk""#, [["Ada"], ["Alan"], ["Anonymous"]])),
        Case(
            name: "widen an integer", old: person,
            new: entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>"#
            ),
            seed: seedPeople, safety: .rewrite, codes: ["widen-type"],
            check: (#"SELECT "age" FROM "person" ORDER BY "_pk""#, [["36"], ["41"], ["7"]])),
        Case(
            name: "rename an entity through its renaming ID", old: person,
            new: entity(
                "Human",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#,
                extra: #"elementID="Person" "#),
            seed: seedPeople, safety: .safe, codes: ["rename-table"],
            check: (#"SELECT "name" FROM "human" ORDER BY "_pk""#, [["Ada"], ["Alan"], [nil]])),
        Case(
            name: "add an entity", old: person,
            new: person + "\n" + entity("Pet", #"<attribute name="name" optional="YES" attributeType="String"/>"#),
            seed: seedPeople, safety: .safe, codes: ["add-entity"],
            check: (#"SELECT count(*) FROM "person", "pet""#, [["0"]])),
        Case(
            name: "remove an entity",
            old: person + "\n" + entity("Pet", #"<attribute name="name" optional="YES" attributeType="String"/>"#),
            new: person, seed: seedPeople, safety: .lossy, codes: ["drop-entity"], allowDataLoss: true,
            check: (#"SELECT count(*) FROM "person""#, [["3"]])),
        Case(
            name: "add a uniqueness constraint over duplicates: stopped", old: person,
            new: entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/><uniquenessConstraints><uniquenessConstraint><constraint value="age"/></uniquenessConstraint></uniquenessConstraints>"#
            ),
            seed: seedPeople + [Object("Person", ["name": "Bob", "age": 41])],
            safety: .dataDependent, codes: ["add-uniqueness-constraint"], check: (#"SELECT 1"#, [])),
        Case(
            name: "add a uniqueness constraint", old: person,
            new: entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/><uniquenessConstraints><uniquenessConstraint><constraint value="age"/></uniquenessConstraint></uniquenessConstraints>"#
            ),
            seed: seedPeople, safety: .dataDependent, codes: ["add-uniqueness-constraint"],
            check: (#"SELECT count(*) FROM "person""#, [["3"]])),
        Case(
            name: "add a to-one relationship and its inverse",
            old: person + "\n" + entity("Pet", #"<attribute name="name" optional="YES" attributeType="String"/>"#),
            new: entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/><relationship name="pets" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>"#
            )
                + "\n"
                + entity(
                    "Pet",
                    #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="pets" inverseEntity="Person"/>"#
                ),
            seed: seedPeople + [Object("Pet", ["name": "Rex"])], safety: .safe, codes: ["add-column"],
            check: (#"SELECT "name", "owner_pk" FROM "pet""#, [["Rex", nil]])),
        // `_entity` numbers below are FNV-1a (32 bits, top bit cleared) of the entity names,
        // worked out apart from the code: Person 1131342752.
        Case(
            name: "an entity added before others leaves their rows alone", old: person,
            new: entity("Animal", #"<attribute name="name" optional="YES" attributeType="String"/>"#) + "\n" + person,
            seed: seedPeople, safety: .safe, codes: ["add-entity"],
            check: (#"SELECT DISTINCT "_entity" FROM "person""#, [["1131342752"]])),
        Case(
            name: "add a sub-entity", old: person,
            new: person + "\n"
                + entity(
                    "Student", #"<attribute name="school" optional="YES" attributeType="String"/>"#,
                    extra: #"parentEntity="Person" "#),
            seed: seedPeople, safety: .safe, codes: ["add-column"],
            check: (#"SELECT count(*), min("_entity") FROM "person""#, [["3", "1131342752"]])),
        Case(
            name: "remove a sub-entity drops its rows",
            old: person + "\n"
                + entity(
                    "Student", #"<attribute name="school" optional="YES" attributeType="String"/>"#,
                    extra: #"parentEntity="Person" "#),
            new: person,
            seed: seedPeople + [Object("Student", ["name": "Sam", "age": 20, "school": "MIT"])],
            safety: .lossy, codes: ["drop-sub-entity", "drop-attribute"], allowDataLoss: true,
            check: (#"SELECT "name" FROM "person" ORDER BY "_pk""#, [["Ada"], ["Alan"], [nil]])),
        // Type conversions, each exact or stopped (checks by count: the engines print numbers differently).
        Case(
            name: "integer to double", old: item(count: "Integer 64"), new: item(count: "Double"), seed: seedItems,
            safety: .rewrite,
            codes: ["convert-type"], check: (#"SELECT count(*) FROM "item" WHERE "count" = 36.0"#, [["1"]])),
        Case(
            name: "double to integer with whole values", old: item(price: "Double"), new: item(price: "Integer 32"),
            seed: seedItems,
            safety: .dataDependent, codes: ["real-to-integer"],
            check: (#"SELECT count(*) FROM "item" WHERE "price" = 2"#, [["1"]])),
        Case(
            name: "double to integer with a fraction: stopped", old: item(price: "Double"),
            new: item(price: "Integer 32"),
            seed: seedItems + [Object("Item", ["count": 1, "price": 2.5])],
            safety: .dataDependent, codes: ["real-to-integer"], check: ("SELECT 1", [])),
        Case(
            name: "integer to string", old: item(count: "Integer 64"), new: item(count: "String"), seed: seedItems,
            safety: .rewrite,
            codes: ["number-to-text"], check: (#"SELECT count(*) FROM "item" WHERE "count" = '36'"#, [["1"]])),
        Case(
            name: "string to integer", old: item(), new: item(code: "Integer 32"), seed: seedItems,
            safety: .dataDependent,
            codes: ["text-to-number"], check: (#"SELECT count(*) FROM "item" WHERE "code" = 12"#, [["1"]])),
        Case(
            name: "string to integer with a word: stopped", old: item(), new: item(code: "Integer 32"),
            seed: seedItems + [Object("Item", ["count": 1, "code": "twelve"])],
            safety: .dataDependent, codes: ["text-to-number"], check: ("SELECT 1", [])),
        Case(
            name: "string to date", old: item(), new: item(code: "Date"),
            seed: [Object("Item", ["count": 1, "code": "2017-06-07T18:11:11.297Z"]), Object("Item", ["count": 2])],
            safety: .dataDependent, codes: ["text-to-date"],
            check: (#"SELECT count(*) FROM "item" WHERE "code" IS NOT NULL"#, [["1"]])),
        Case(
            name: "string to date with a word: stopped", old: item(), new: item(code: "Date"),
            seed: [
                Object("Item", ["count": 1, "code": "2017-06-07T18:11:11Z"]),
                Object("Item", ["count": 2, "code": "now"]),
            ],
            safety: .dataDependent, codes: ["text-to-date"], check: ("SELECT 1", [])),
        Case(
            name: "string to double", old: item(), new: item(code: "Double"), seed: seedItems, safety: .dataDependent,
            codes: ["text-to-number"], check: (#"SELECT count(*) FROM "item" WHERE "code" = 12"#, [["1"]])),
        Case(
            name: "boolean to integer", old: item(), new: item(flag: "Integer 16"), seed: seedItems, safety: .rewrite,
            codes: ["convert-type"], check: (#"SELECT count(*) FROM "item" WHERE "flag" = 1"#, [["1"]])),
        Case(
            name: "integer to boolean", old: item(flag: "Integer 16"), new: item(), seed: seedItems,
            safety: .dataDependent,
            codes: ["integer-to-boolean"], check: (#"SELECT count(*) FROM "item" WHERE "flag""#, [["1"]])),
        Case(
            name: "double to decimal", old: item(price: "Double"), new: item(price: "Decimal"), seed: seedItems,
            safety: .rewrite,
            codes: ["convert-type"], check: (#"SELECT count(*) FROM "item" WHERE "price" = '2'"#, [["1"]])),
        Case(
            name: "narrow an integer out of range: stopped", old: item(count: "Integer 64"),
            new: item(count: "Integer 16"),
            seed: seedItems + [Object("Item", ["count": 40000])], safety: .dataDependent,
            codes: ["narrow-integer"], check: ("SELECT 1", [])),
        Case(
            name: "narrow an integer", old: item(count: "Integer 64"), new: item(count: "Integer 16"), seed: seedItems,
            safety: .dataDependent, codes: ["narrow-integer"],
            check: (#"SELECT count(*) FROM "item" WHERE "count" = 36"#, [["1"]])),
        Case(
            name: "required to optional", old: item(), new: item(countOptional: true), seed: seedItems,
            safety: .rewrite,
            codes: ["make-optional"], check: (#"SELECT count(*) FROM "item" WHERE "count" = 36"#, [["1"]])),
        Case(
            name: "change a default", old: item(), new: item(countDefault: "5"), seed: seedItems, safety: .rewrite,
            codes: ["change-default"], check: (#"SELECT count(*) FROM "item""#, [["2"]])),
        Case(
            name: "transient to persistent",
            old: item(extra: #"<attribute name="note" optional="YES" transient="YES" attributeType="String"/>"#),
            new: item(extra: #"<attribute name="note" optional="YES" attributeType="String"/>"#), seed: seedItems,
            safety: .safe,
            codes: ["add-column"], check: (#"SELECT count(*) FROM "item" WHERE "note" IS NULL"#, [["2"]])),
        Case(
            name: "persistent to transient",
            old: item(extra: #"<attribute name="note" optional="YES" attributeType="String"/>"#),
            new: item(extra: #"<attribute name="note" optional="YES" transient="YES" attributeType="String"/>"#),
            seed: seedItems,
            safety: .lossy, codes: ["drop-attribute"], allowDataLoss: true,
            check: (#"SELECT count(*) FROM "item""#, [["2"]])),
        Case(
            name: "change a deletion rule", old: owners(rule: "Nullify"), new: owners(rule: "Cascade"),
            seed: seedOwners, safety: .rewrite,
            codes: ["change-deletion-rule"],
            check: (#"SELECT "name", "owner_pk" FROM "pet" ORDER BY "_pk""#, [["Rex", "1"], ["Tom", nil]])),
        Case(
            name: "unordered to ordered", old: owners(), new: owners(ordered: true), seed: seedOwners, safety: .safe,
            codes: ["add-column"],
            check: (#"SELECT "name", "owner_pk" FROM "pet" ORDER BY "_pk""#, [["Rex", "1"], ["Tom", nil]])),
        Case(
            name: "ordered to unordered loses the order", old: owners(ordered: true), new: owners(), seed: seedOwners,
            safety: .lossy, codes: ["drop-order"], allowDataLoss: true,
            check: (#"SELECT "name", "owner_pk" FROM "pet" ORDER BY "_pk""#, [["Rex", "1"], ["Tom", nil]])),
        Case(
            name: "move an attribute up the hierarchy", old: hierarchy(schoolOn: "Student"),
            new: hierarchy(schoolOn: "Person"),
            seed: seedHierarchy, safety: .safe, codes: [],
            check: (#"SELECT "name", "school" FROM "person" ORDER BY "_pk""#, [["Ada", nil], ["Sam", "MIT"]])),
        Case(
            name: "move an attribute down the hierarchy", old: hierarchy(schoolOn: "Person"),
            new: hierarchy(schoolOn: "Student"),
            seed: seedHierarchy, safety: .safe, codes: [],
            check: (#"SELECT "name", "school" FROM "person" ORDER BY "_pk""#, [["Ada", nil], ["Sam", "MIT"]])),
        Case(
            name: "make an entity with rows abstract: stopped", old: hierarchy(schoolOn: "Student"),
            new: hierarchy(schoolOn: "Student", abstract: true),
            seed: seedHierarchy, safety: .dataDependent, codes: ["change-constraints"], check: ("SELECT 1", [])),
        Case(
            name: "make an abstract entity concrete", old: hierarchy(schoolOn: "Student", abstract: true),
            new: hierarchy(schoolOn: "Student"),
            seed: [Object("Student", ["name": "Sam", "school": "MIT"])], safety: .rewrite, codes: ["relax-constraints"],
            check: (#"SELECT "name" FROM "person""#, [["Sam"]])),
        Case(
            name: "one-to-many to many-to-many keeps the links", old: owners(), new: owners(manyToMany: true),
            seed: seedOwners,
            safety: .rewrite, codes: ["move-links", "add-relationship"],
            check: (#"SELECT "person_pk", "pets_pk" FROM "person_pets""#, [["1", "1"]])),
        Case(
            name: "a renamed entity that now sorts after the other side keeps its many-to-many links",
            old: owners(manyToMany: true),
            new: renamed(
                owners(manyToMany: true),
                [
                    (
                        #"name="Person" representedClassName="Person" "#,
                        #"name="Zookeeper" representedClassName="Zookeeper" elementID="Person" "#
                    ), (#"Entity="Person""#, #"Entity="Zookeeper""#),
                ]),
            seed: seedSharedPets([0: ["pets": [2, 3]], 1: ["pets": [3]]]),
            safety: .safe, codes: ["rename-table", "rename-column", "add-index", "drop-index"],
            check: (
                #"SELECT "z"."name", "p"."name" FROM "pet_owners" AS "j" JOIN "zookeeper" AS "z" ON "z"."_pk" = "j"."owners_pk" JOIN "pet" AS "p" ON "p"."_pk" = "j"."pet_pk" ORDER BY "z"."_pk", "p"."_pk""#,
                [["Ada", "Rex"], ["Ada", "Tom"], ["Bob", "Tom"]]
            )),
        Case(
            name: "many-to-many to one-to-many keeps the links", old: owners(manyToMany: true), new: owners(),
            seed: seedSharedPets([0: ["pets": [2, 3]], 1: ["pets": [4]]]),
            safety: .dataDependent, codes: ["move-links", "add-column"],
            check: (
                #"SELECT "name", "owner_pk" FROM "pet" ORDER BY "_pk""#,
                [["Rex", "1"], ["Tom", "1"], ["Kit", "2"], ["Max", nil]]
            )),
        Case(
            name: "many-to-many to one-to-many with a pet of two owners: stopped", old: owners(manyToMany: true),
            new: owners(),
            seed: seedSharedPets([0: ["pets": [2]], 1: ["pets": [2]]]),
            safety: .dataDependent, codes: ["move-links"], check: ("SELECT 1", [])),
        Case(
            name: "one-to-one to one-to-many moves the key to the other table", old: pair(pets: false),
            new: pair(pets: true),
            seed: seedSharedPets([0: ["pet": [4]], 1: ["pet": [2]]]),
            safety: .dataDependent, codes: ["move-links", "add-column", "drop-index"],
            check: (
                #"SELECT "name", "owner_pk" FROM "pet" ORDER BY "_pk""#,
                [["Rex", "2"], ["Tom", nil], ["Kit", "1"], ["Max", nil]]
            )),
        Case(
            name: "one-to-many to one-to-one moves the key back", old: pair(pets: true), new: pair(pets: false),
            seed: seedSharedPets([2: ["owner": [1]], 4: ["owner": [0]]]),
            safety: .dataDependent, codes: ["move-links", "add-column", "add-index"],
            check: (#"SELECT "name", "pet_pk" FROM "person" ORDER BY "_pk""#, [["Ada", "3"], ["Bob", "1"]])),
        Case(
            name: "one-to-many to one-to-one with two pets of one owner: stopped", old: pair(pets: true),
            new: pair(pets: false),
            seed: seedSharedPets([2: ["owner": [1]], 4: ["owner": [1]]]),
            safety: .dataDependent, codes: ["move-links"], check: ("SELECT 1", [])),
        Case(
            name: "a new parent entity above existing rows keeps them and the keys to them",
            old: owners(),
            new: entity(
                "Being",
                #"<attribute name="born" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>"#,
                extra: #"isAbstract="YES" "#)
                + "\n"
                + owners().replacingOccurrences(
                    of: #"representedClassName="Person" "#,
                    with: #"representedClassName="Person" parentEntity="Being" "#),
            seed: seedOwners, safety: .safe, codes: ["add-parent-entity", "rename-table"],
            check: (
                #"SELECT "being"."name", "being"."_entity", "pet"."name" FROM "pet" JOIN "being" ON "being"."_pk" = "pet"."owner_pk""#,
                [["Ada", "1131342752", "Rex"]]
            )),
        Case(
            name: "removing a root entity keeps the rows of its sub-entities and the keys to them",
            old: regions(withRoot: true),
            new: regions(withRoot: false),
            seed: [
                Object("Continent", ["name": "Europe", "code": 150, "area": 10.5]),
                Object("Country", ["name": "France", "code": 250, "capital": "Paris"]),
                Object("Country", ["name": "Peru", "code": 604, "capital": "Lima"]),
                Object("Person", ["name": "Ada"], links: ["home": [1]]),
            ],
            safety: .rewrite, codes: ["move-rows", "split-hierarchy", "retarget-key"],
            check: (
                #"SELECT "person"."name", "country"."name", "country"."capital", "country"."code", (SELECT "name" || ' ' || "area" FROM "continent") FROM "person" JOIN "country" ON "country"."_pk" = "person"."home_pk""#,
                [["Ada", "France", "Paris", "250", "Europe 10.5"]]
            )),
        Case(
            name: "a sub-entity that becomes a root takes its rows along", old: schooling(studentIsRoot: false),
            new: schooling(studentIsRoot: true),
            seed: schoolingSeed, safety: .dataDependent,
            codes: ["move-rows", "split-hierarchy", "retarget-key", "key-to-leaving-row"],
            check: (
                #"SELECT "person"."name", "student"."name", "student"."school", (SELECT count(*) FROM "course" JOIN "student" ON "student"."_pk" = "course"."pupil_pk"), (SELECT count(*) FROM "pet" WHERE "owner_pk" = "person"."_pk") FROM "person", "student""#,
                [["Ada", "Sam", "MIT", "1", "1"]]
            )),
        Case(
            name: "a sub-entity that becomes a root, with a key to one of its rows that stays behind: stopped",
            old: schooling(studentIsRoot: false), new: schooling(studentIsRoot: true),
            seed: schoolingSeed.enumerated().map { index, object in
                var changed = object
                if index == 3 { changed.links = ["owner": [1]] }  // Rex's owner: Sam, who moves
                return changed
            },
            safety: .dataDependent, codes: ["key-to-leaving-row"], check: ("SELECT 1", [])),
        Case(
            name: "remove a sub-entity whose rows a key points at: stopped",
            old: owners() + "\n" + entity("Student", "", extra: #"parentEntity="Person" "#),
            new: owners(),
            seed: [
                Object("Person", ["name": "Ada"]), Object("Student", ["name": "Sam"]),
                Object("Pet", ["name": "Rex"], links: ["owner": [1]]),
            ],
            safety: .lossy, codes: ["drop-sub-entity", "key-to-dropped-row"], allowDataLoss: true,
            check: ("SELECT 1", [])),
        Case(
            name: "a self-relationship from one-to-many to many-to-many keeps its links the right way round",
            old: mentoring(manyToMany: false),
            new: mentoring(manyToMany: true), seed: seedMentoring(["mentor": [0]], on: [1, 2]), safety: .rewrite,
            codes: ["move-links", "add-relationship"],
            check: (
                #"SELECT "m"."name", "e"."name" FROM "person_mentees" AS "j" JOIN "person" AS "m" ON "m"."_pk" = "j"."person_pk" JOIN "person" AS "e" ON "e"."_pk" = "j"."mentees_pk" ORDER BY "e"."_pk""#,
                [["Ada", "Bob"], ["Ada", "Cy"]]
            )),
        Case(
            name: "a self-relationship from many-to-many to one-to-many keeps its links",
            old: mentoring(manyToMany: true), new: mentoring(manyToMany: false),
            seed: seedMentoring(["mentees": [1, 2]], on: [0]), safety: .dataDependent, codes: ["move-links"],
            check: (
                #"SELECT "name", "mentor_pk" FROM "person" ORDER BY "_pk""#,
                [["Ada", nil], ["Bob", "1"], ["Cy", "1"]]
            )),
        Case(
            name: "merging two hierarchies is refused", old: owners(),
            new: entity("Person", #"<attribute name="name" optional="YES" attributeType="String"/>"#) + "\n"
                + entity(
                    "Pet", #"<attribute name="breed" optional="YES" attributeType="String"/>"#,
                    extra: #"parentEntity="Person" "#),
            seed: seedOwners, safety: .refused, codes: ["merge-hierarchies"], check: nil),
        Case(
            name: "date to double and back keeps the instant",
            old: entity(
                "Event", #"<attribute name="at" optional="YES" attributeType="Date" usesScalarValueType="NO"/>"#),
            new: entity(
                "Event", #"<attribute name="at" optional="YES" attributeType="Double" usesScalarValueType="YES"/>"#),
            seed: [Object("Event", ["at": .date(86400.5)]), Object("Event")], safety: .rewrite,
            codes: ["convert-type"],
            check: (#"SELECT count(*) FROM "event" WHERE "at" = 86400.5"#, [["1"]])),
        Case(
            name: "double to date",
            old: entity(
                "Event", #"<attribute name="at" optional="YES" attributeType="Double" usesScalarValueType="YES"/>"#),
            new: entity(
                "Event", #"<attribute name="at" optional="YES" attributeType="Date" usesScalarValueType="NO"/>"#),
            seed: [Object("Event", ["at": 86400.5]), Object("Event")], safety: .rewrite,
            codes: ["convert-type"],
            check: (#"SELECT count(*) FROM "event" WHERE "at" IS NOT NULL"#, [["1"]])),
        Case(
            name: "decimal to double", old: item(price: "Decimal"), new: item(price: "Double"), seed: seedItems,
            safety: .rewrite,
            codes: ["convert-type"], check: (#"SELECT count(*) FROM "item" WHERE "price" = 2"#, [["1"]])),
        Case(
            name: "rename a to-one relationship through its renaming ID", old: owners(),
            new: renamed(
                owners(),
                [
                    (#"name="owner" "#, #"name="keeper" elementID="owner" "#),
                    (#"inverseName="owner""#, #"inverseName="keeper""#),
                ]),
            seed: seedOwners, safety: .safe, codes: ["rename-column"],
            check: (#"SELECT "name", "keeper_pk" FROM "pet" ORDER BY "_pk""#, [["Rex", "1"], ["Tom", nil]])),
        Case(
            name: "rename a to-many relationship through its renaming ID", old: owners(),
            new: renamed(
                owners(),
                [
                    (#"name="pets" "#, #"name="animals" elementID="pets" "#),
                    (#"inverseName="pets""#, #"inverseName="animals""#),
                ]),
            seed: seedOwners, safety: .safe, codes: [],
            check: (#"SELECT "name", "owner_pk" FROM "pet" ORDER BY "_pk""#, [["Rex", "1"], ["Tom", nil]])),
        Case(
            name: "rename a many-to-many relationship through its renaming ID", old: owners(manyToMany: true),
            new: renamed(
                owners(manyToMany: true),
                [
                    (#"name="pets" "#, #"name="animals" elementID="pets" "#),
                    (#"inverseName="pets""#, #"inverseName="animals""#),
                ]),
            seed: seedSharedPets([0: ["pets": [2, 3]], 1: ["pets": [3]]]), safety: .safe, codes: ["rename-table"],
            check: (#"SELECT count(*) FROM "person_animals""#, [["3"]])),
        Case(
            name: "rename an entity other tables point at", old: owners(),
            new: renamed(
                owners(),
                [
                    (#""Person""#, #""Human""#),
                    (#"<entity name="Human" "#, #"<entity name="Human" elementID="Person" "#),
                ]),
            seed: seedOwners, safety: .safe, codes: ["rename-table"],
            check: (
                #"SELECT "pet"."name", "human"."name" FROM "pet" JOIN "human" ON "human"."_pk" = "pet"."owner_pk""#,
                [["Rex", "Ada"]]
            )),
        Case(
            name: "add a many-to-many relationship", old: unrelated, new: owners(manyToMany: true),
            seed: seedSharedPets(), safety: .safe,
            codes: ["add-relationship"], check: (#"SELECT count(*) FROM "person_pets""#, [["0"]])),
        Case(
            name: "remove a many-to-many relationship", old: owners(manyToMany: true), new: unrelated,
            seed: seedSharedPets([0: ["pets": [2, 3]]]), safety: .lossy, codes: ["drop-relationship"],
            allowDataLoss: true,
            check: (#"SELECT count(*) FROM "pet""#, [["4"]])),
        Case(
            name: "remove a one-to-many relationship", old: owners(), new: unrelated, seed: seedOwners, safety: .lossy,
            codes: ["drop-relationship"], allowDataLoss: true,
            check: (#"SELECT "name" FROM "pet" ORDER BY "_pk""#, [["Rex"], ["Tom"]])),
        Case(
            name: "change a relationship's destination drops its keys", old: adoption(to: "Person"),
            new: adoption(to: "Shelter"),
            seed: [
                Object("Person", ["name": "Ada"]), Object("Pet", ["name": "Rex"], links: ["home": [0]]),
                Object("Shelter", ["name": "North"]),
            ],
            safety: .lossy, codes: ["change-destination"], allowDataLoss: true,
            check: (#"SELECT "name", "home_pk" FROM "pet""#, [["Rex", nil]])),
        Case(
            name: "remove a fetch index", old: indexed(on: "name"), new: person, seed: seedPeople, safety: .safe,
            codes: ["drop-index"],
            check: (#"SELECT count(*) FROM "person""#, [["3"]])),
        Case(
            name: "change a fetch index", old: indexed(on: "name"), new: indexed(on: "age"), seed: seedPeople,
            safety: .safe,
            codes: ["drop-index", "add-index"], check: (#"SELECT count(*) FROM "person""#, [["3"]])),
        Case(
            name: "remove a uniqueness constraint", old: unique, new: person, seed: seedPeople, safety: .safe,
            codes: ["drop-index"],
            check: (#"SELECT count(*) FROM "person""#, [["3"]])),
        Case(
            name: "rename an entity and a property, add an attribute and order a to-many at once", old: owners(),
            new: renamed(
                owners(ordered: true),
                [
                    (#""Person""#, #""Human""#),
                    (#"<entity name="Human" "#, #"<entity name="Human" elementID="Person" "#),
                    (
                        #"<attribute name="name" optional="YES" attributeType="String"/><relationship name="owner""#,
                        #"<attribute name="nickname" optional="YES" attributeType="String" elementID="name"/><attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/><relationship name="owner""#
                    ),
                ]),
            seed: seedOwners, safety: .safe, codes: ["rename-table", "rename-column", "add-column"],
            check: (
                #"SELECT "nickname", "owner_pk", "age" FROM "pet" ORDER BY "_pk""#,
                [["Rex", "1", nil], ["Tom", nil, nil]]
            )),
        Case(
            name: "several changes at once", old: person,
            new: entity(
                "Person",
                #"<attribute name="fullName" optional="YES" attributeType="String" elementID="name"/><attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/><fetchIndex name="byName"><fetchIndexElement property="fullName" type="Binary" order="ascending"/></fetchIndex>"#
            ),
            seed: seedPeople, safety: .lossy, codes: ["rename-column", "add-column", "drop-attribute", "add-index"],
            allowDataLoss: true,
            check: (
                #"SELECT "full_name", "born" FROM "person" ORDER BY "_pk""#,
                [["Ada", nil], ["Alan", nil], [nil, nil]]
            )),
    ]

    static func load(_ body: String) throws -> (ObjectModel, RelationalSchema) {
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(
                SourceFile(path: "Model.xcdatamodel/contents", bytes: Array(modelDocument(body).utf8)),
                diagnostics: engine))
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine), "\(engine.sorted)")
        try #require(!engine.hasErrors, "\(engine.sorted)")
        return (model, schema)
    }

    /// Everything a database holds: its schema's SQL and every table's rows.
    static func dump(_ database: SQLiteDatabase) throws -> [[String?]] {
        var rows = try database.rows("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
        for table in try database.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") {
            rows += try database.rows("SELECT * FROM \(SQLNaming.quoted(table[0]!)) ORDER BY rowid")
        }
        return rows
    }

    /// Runs `statements` until one fails (or until `stopAfter` of them ran, then fails on
    /// purpose); a failure rolls back and restores the connection's settings.
    static func apply(_ statements: [String], to database: SQLiteDatabase, stopAfter: Int? = nil) -> String? {
        for (index, statement) in statements.enumerated() {
            if index == stopAfter { return rollback(database, "injected failure after statement \(index)") }
            do {
                try database.execute(statement)
            } catch {
                return rollback(database, "\(error)")
            }
        }
        return nil
    }

    private static func rollback(_ database: SQLiteDatabase, _ message: String) -> String {
        try? database.execute("ROLLBACK")
        try? database.execute("PRAGMA legacy_alter_table = OFF")
        try? database.execute("PRAGMA foreign_keys = ON")
        return message
    }

    /// A drop and an add that look like a rename are not made a rename, but the drop says how.
    @Test func aLookAlikeDropAndAddSuggestsARenamingID() throws {
        let (oldModel, oldSchema) = try Self.load(Self.person)
        let (newModel, newSchema) = try Self.load(
            Self.entity(
                "Person",
                #"<attribute name="fullName" optional="YES" attributeType="String"/><attribute name="age" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>"#
            ))
        let plan = MigrationPlanner().plan(from: oldModel, oldSchema, to: newModel, newSchema)
        let drop = try #require(plan.steps.first { $0.code == "drop-attribute" })
        #expect(drop.safety == .lossy)
        #expect(drop.message.contains(#"give fullName the renaming ID "name""#), "\(drop.message)")
        #expect(plan.steps.contains { $0.code == "add-column" && $0.subject == "person.full_name" })
    }

    /// With several look-alikes added, the hint names the one whose name is closest to the
    /// dropped one's, for properties and for entities.
    @Test func theRenameHintNamesTheClosestLookAlike() throws {
        let binary = { (name: String) in #"<attribute name="\#(name)" optional="YES" attributeType="Binary"/>"# }
        let (oldModel, oldSchema) = try Self.load(Self.entity("Note", binary("fieldsData") + binary("title")))
        let (newModel, newSchema) = try Self.load(
            Self.entity("Note", binary("emojis") + binary("fields") + binary("title")))
        let plan = MigrationPlanner().plan(from: oldModel, oldSchema, to: newModel, newSchema)
        let drop = try #require(plan.steps.first { $0.code == "drop-attribute" })
        #expect(
            drop.message.hasSuffix(
                #"if fields is fieldsData renamed, give fields the renaming ID "fieldsData" in the model to keep the values"#
            ), "\(drop.message)")

        let people = try Self.load(Self.person)
        let animalsAndHumans = try Self.load(
            Self.person.replacingOccurrences(of: #""Person""#, with: #""Animal""#) + "\n"
                + Self.person.replacingOccurrences(of: #""Person""#, with: #""Persons""#))
        let entityPlan = MigrationPlanner().plan(from: people.0, people.1, to: animalsAndHumans.0, animalsAndHumans.1)
        let dropEntity = try #require(entityPlan.steps.first { $0.code == "drop-entity" })
        #expect(dropEntity.message.contains(#"if Persons is Person renamed"#), "\(dropEntity.message)")
        #expect(MigrationPlanner.closest(to: "fieldsData", among: ["emojis", "Fields", "fieldData"]) == "fieldData")
        #expect(MigrationPlanner.closest(to: "a", among: []) == nil)
    }

    /// An entity dropped and one of the same shape added look like a rename: the drop says how.
    @Test func aLookAlikeEntitySuggestsARenamingID() throws {
        let (oldModel, oldSchema) = try Self.load(Self.person)
        let (newModel, newSchema) = try Self.load(Self.person.replacingOccurrences(of: #""Person""#, with: #""Human""#))
        let plan = MigrationPlanner().plan(from: oldModel, oldSchema, to: newModel, newSchema)
        let drop = try #require(plan.steps.first { $0.code == "drop-entity" })
        #expect(
            drop.message.contains(#"if Human is Person renamed, give Human the renaming ID "Person""#),
            "\(drop.message)")
        #expect(plan.steps.contains { $0.code == "add-entity" && $0.subject == "human" })
    }

    /// SQLite 3.35+ adds and drops plain columns in place: no table copy, and the added column's
    /// checks hold (under the names a fresh table gives them).
    @Test func plainColumnsAreAddedAndDroppedInPlace() throws {
        let (oldModel, oldSchema) = try Self.load(
            Self.entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="old" optional="YES" attributeType="String"/>"#
            ))
        let (newModel, newSchema) = try Self.load(
            Self.entity(
                "Person",
                #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>"#
            ))
        let plan = MigrationPlanner().plan(from: oldModel, oldSchema, to: newModel, newSchema)
        let statements = SQLiteMigrationRenderer().statements(plan)
        #expect(statements.contains(#"ALTER TABLE "person" DROP COLUMN "old""#))
        #expect(
            statements.contains {
                $0.hasPrefix(#"ALTER TABLE "person" ADD COLUMN "age" INTEGER CONSTRAINT "person_age_width" CHECK"#)
            })
        #expect(!statements.contains { $0.contains("_modelgen_old_") }, "\(statements)")
        let database = try SQLiteDatabase()
        try database.execute(SQLEmitter(dialect: .sqlite).emit(oldSchema))
        try database.execute(
            #"INSERT INTO "person" ("_pk", "_entity", "name", "old") VALUES (1, 1131342752, 'Ada', 'x')"#)
        #expect(Self.apply(statements, to: database) == nil)
        #expect(try database.rows(#"SELECT "name", "age" FROM "person""#) == [["Ada", nil]])
        #expect(throws: SQLiteDatabase.Failure.self) { try database.execute(#"UPDATE "person" SET "age" = 40000"#) }
        #expect(
            try SchemaFacts(sqlite: database).differences(from: SchemaFacts(expected: newSchema, dialect: .sqlite))
                .isEmpty)
    }

    @Test(arguments: cases)
    func migrates(_ testCase: Case) throws {
        let (oldModel, oldSchema) = try Self.load(testCase.old)
        let (newModel, newSchema) = try Self.load(testCase.new)
        let plan = MigrationPlanner(defaults: testCase.defaults).plan(
            from: oldModel, oldSchema, to: newModel, newSchema)
        #expect(plan.safety == testCase.safety, "\(plan.steps)")
        for code in testCase.codes {
            #expect(plan.steps.contains { $0.code.rawValue == code }, "no \(code) in \(plan.steps.map(\.code))")
        }
        let blocking = plan.blockingSteps(allowDataLoss: testCase.allowDataLoss)
        guard let check = testCase.check else {
            #expect(!blocking.isEmpty, "the plan should not run as given")
            return
        }
        try #require(blocking.isEmpty, "\(blocking)")
        let statements = SQLiteMigrationRenderer().statements(plan)
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = directory.appendingPathComponent("seed.sqlite")
        try RuntimeSeeder.seed(testCase.seed, model: oldModel, schema: oldSchema, at: seed.path)
        func freshOld(_ name: String) throws -> SQLiteDatabase {
            let copy = directory.appendingPathComponent(name)
            try FileManager.default.copyItem(at: seed, to: copy)
            return try SQLiteDatabase(path: copy.path)
        }
        let database = try freshOld("main.sqlite")
        let before = try Self.dump(database)
        let failure = Self.apply(statements, to: database)
        if check.rows.isEmpty {
            // A migration the data must stop: stopped, nothing changed.
            // Stopped by the preflight of a step when there is one, named with its subject and what
            // in the data stops it; else by the new table's own constraint.
            let stopping = plan.steps.filter { $0.preflight != nil }.map {
                "modelgen migration stopped by \($0.code) \($0.subject): \($0.message)"
            }
            #expect(
                stopping.isEmpty
                    ? failure?.contains("constraint failed") == true
                    : stopping.contains { failure?.contains($0) == true },
                "the migration should have been stopped by a preflight: \(failure ?? "not stopped")")
            #expect(try Self.dump(database) == before)
            return
        }
        try #require(failure == nil, "\(failure!)\n\(statements.joined(separator: ";\n"))")
        let differences = try SchemaFacts(sqlite: database).differences(
            from: SchemaFacts(expected: newSchema, dialect: .sqlite))
        #expect(differences.isEmpty, "\(differences)")
        #expect(try database.rows(check.sql) == check.rows)
        #expect(try database.rows("PRAGMA integrity_check") == [["ok"]])
        #expect(try database.rows("PRAGMA foreign_key_check").isEmpty)
        let recorded = try database.rows(#"SELECT "value" FROM "_modelgen_metadata" WHERE "key" = 'schema'"#)
        #expect(recorded == [[SchemaSnapshot.make(newSchema).json]])
        #expect(MigrationPlanner().plan(from: newModel, newSchema, to: newModel, newSchema).isEmpty)
        // A failure after any statement leaves the old database as it was.
        for stop in 1..<statements.count - 3 {
            let injected = try freshOld("stop-\(stop).sqlite")
            #expect(Self.apply(statements, to: injected, stopAfter: stop) != nil)
            #expect(try Self.dump(injected) == before, "after statement \(stop): \(statements[stop - 1])")
        }
    }
}
