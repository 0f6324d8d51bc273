import CAllocator
import Foundation
import ModelGenRuntime
import Mustache
import Testing

@testable import ModelGenCore

/// The pieces that make generation fast without changing its output: context objects kept as
/// ordered pairs, and jobs spread over cores with results in job order.
@Suite struct GenerationMachineryTests {
    /// A represented class name is trimmed of blanks and of its module; what is left must be an
    /// identifier other than `NSManagedObject`.
    @Test func classNamesFromRepresentedClassNames() {
        #expect(SwiftNames.className(fromRepresented: "Person") == "Person")
        #expect(SwiftNames.className(fromRepresented: " Person\t") == "Person")
        #expect(SwiftNames.className(fromRepresented: "\tApp.Person ") == "Person")
        #expect(SwiftNames.className(fromRepresented: ".Person") == "Person")
        #expect(SwiftNames.className(fromRepresented: "Café") == "Café")
        #expect(SwiftNames.className(fromRepresented: " \t ") == nil)
        #expect(SwiftNames.className(fromRepresented: "") == nil)
        #expect(SwiftNames.className(fromRepresented: nil) == nil)
        #expect(SwiftNames.className(fromRepresented: " NSManagedObject") == nil)
        #expect(SwiftNames.className(fromRepresented: "9Lives") == nil)
        #expect(SwiftNames.className(fromRepresented: "App.") == nil)
    }

    @Test func laterMembersOfAContextObjectWinAsInADictionaryLiteral() throws {
        let object: MustacheObject = ["name": "first", "other": 1, "name": "second"]
        #expect(object["name"] == .string("second"))
        #expect(object["other"] == .number(1))
        #expect(object["missing"] == nil)
        #expect(object.uniqueMembers.map(\.key) == ["name", "other"])
        let rendered = try MustacheTemplate("{{name}}/{{other}}").renderChecked(
            .object(object), partials: MustachePartials([:]))
        #expect(rendered == "second/1")
    }

    @Test func settingAMemberReplacesEveryEarlierOne() {
        var object: MustacheObject = ["a": 1, "b": 2, "a": 3]
        object["a"] = "x"
        #expect(object.members.count == 2)
        #expect(object["a"] == .string("x"))
        object["b"] = nil
        #expect(object["b"] == nil)
        #expect(object.members.count == 1)
    }

    @Test func contextObjectsAreEqualWhateverTheOrderOfTheirMembers() {
        let one: MustacheValue = ["a": 1, "b": ["c": true]]
        let other: MustacheValue = ["b": ["c": true], "a": 1]
        #expect(one == other)
        #expect(one != ["a": 1, "b": ["c": false]])
        #expect(one != ["a": 1])
        #expect(MustacheValue.object(["a": 1, "a": 2]) == ["a": 2])
    }

    @Test func reservingCapacityDoesNotChangeWhatRenders() throws {
        let template = try MustacheTemplate("{{#items}}<{{.}}>{{/items}}")
        let context: MustacheValue = ["items": ["x", "y", "z"]]
        let plain = try template.renderChecked(context, partials: MustachePartials([:]))
        let reserved = try template.renderChecked(context, partials: MustachePartials([:]), reservingCapacity: 1 << 16)
        #expect(plain == "<x><y><z>")
        #expect(reserved == plain)
    }

    @Test func aTreeBuiltWithNestedObjectsAndListsHoldsWhatWasAdded() throws {
        let name = MustacheKey("name")
        let items = MustacheKey("items")
        let count = MustacheKey("count")
        var builder = MustacheTreeBuilder()
        let outer = builder.beginObject()
        builder.member(name, "outer")
        // An object and a list begun while the outer object is open, ended before it.
        let list = builder.beginList()
        for index in 0..<3 {
            let item = builder.beginObject()
            builder.member(name, "item \(index)")
            builder.member(count, index - 1)
            builder.item(builder.endObject(item))
        }
        builder.member(items, builder.endList(list))
        builder.member(count, 12_345_678_901)
        builder.member(name, "last wins")
        let tree = builder.finish(root: builder.endObject(outer))
        let expected: MustacheValue = [
            "name": "outer",
            "items": [
                ["name": "item 0", "count": -1], ["name": "item 1", "count": 0], ["name": "item 2", "count": 1],
            ],
            "count": 12_345_678_901, "name": "last wins",
        ]
        #expect(tree.value == expected)
        let template = try MustacheTemplate("{{name}}:{{#items}} {{name}}={{count}}{{/items}} {{count}} {{items.name}}")
        #expect(
            try template.renderBytes(tree, partials: MustachePartials([:]))
                == Array("last wins: item 0=-1 item 1=0 item 2=1 12345678901 ".utf8))
        // The builder is empty again after `finish`.
        #expect(builder.finish(root: builder.string("again")).value == "again")
    }

    @Test func aTreeRendersLikeTheValueItWasMadeFrom() throws {
        let value: MustacheValue = [
            "text": "a < b & \"c\" > d", "flag": true, "off": false, "none": nil, "number": .number(2.5),
            "whole": .number(-0.0), "big": .number(1e15),
            "nested": ["deeper": ["name": "x"]], "empty": [], "list": [1, "two", ["name": "three"]],
        ]
        let tree = MustacheTree(value)
        #expect(tree.value == value)
        let source =
            "{{text}}|{{{text}}}|{{flag}}{{off}}{{none}}|{{number}} {{whole}} {{big}}|{{nested.deeper.name}}{{nested.missing.name}}|"
            + "{{#empty}}never{{/empty}}{{^empty}}empty{{/empty}}|{{#list}}[{{.}}{{name}}]{{/list}}|{{#flag}}{{text}}{{/flag}}"
        let template = try MustacheTemplate(source)
        let expected =
            "a &lt; b &amp; &quot;c&quot; &gt; d|a < b & \"c\" > d|truefalse|2.5 0 1000000000000000.0|x|empty|[1][two][three]|a &lt; b &amp; &quot;c&quot; &gt; d"
        #expect(template.render(value) == expected)
        #expect(
            String(decoding: try template.renderBytes(tree, partials: MustachePartials([:])), as: UTF8.self) == expected
        )
    }

    @Test func aTextBufferWritesIntegersAndGrowsWithoutLosingBytes() {
        var buffer = TextBuffer(capacity: 1)
        for value: Int64 in [0, 7, -7, 10, 1_234_567_890, .max, .min] {
            buffer.append(integer: value)
            buffer.append(byte: UInt8(ascii: " "))
        }
        let long = String(repeating: "x", count: 300)
        buffer.append(string: long)
        buffer.append("!")
        let expected = "0 7 -7 10 1234567890 9223372036854775807 -9223372036854775808 " + long + "!"
        #expect(buffer.text == expected)
        #expect(buffer.count == expected.utf8.count)
        #expect(buffer.takeBytes() == Array(expected.utf8))
        #expect(buffer.count == 0)
    }

    @Test func namesChangeTheCaseOfTheirFirstCharacterOnlyWithOrWithoutTheASCIIPath() {
        #expect(SwiftNames.capitalized("grades") == "Grades")
        #expect(SwiftNames.capitalized("Grades") == "Grades")
        #expect(SwiftNames.capitalized("_grades") == "_grades")
        #expect(SwiftNames.capitalized("x") == "X")
        #expect(SwiftNames.capitalized("") == "")
        #expect(SwiftNames.capitalized("élan") == "Élan")
        // A letter with a combining mark is one character: both become upper-case together.
        #expect(SwiftNames.capitalized("e\u{301}tude") == "E\u{301}tude")
        #expect(SwiftNames.lowercasedFirst("AllStudents") == "allStudents")
        #expect(SwiftNames.lowercasedFirst("allStudents") == "allStudents")
        #expect(SwiftNames.lowercasedFirst("Émile") == "émile")
        #expect(SwiftNames.lowercasedFirst("") == "")
    }

    @Test func escapingIsNeededForQuotesBackslashesAndControlCharacters() {
        #expect(!"plain name 1".hasByteNeedingEscape())
        #expect("say \"hi\"".hasByteNeedingEscape())
        #expect("back\\slash".hasByteNeedingEscape())
        #expect("line\nbreak".hasByteNeedingEscape())
        #expect(!"del\u{7F}".hasByteNeedingEscape())
        #expect("del\u{7F}".hasByteNeedingEscape(includingDelete: true))
        #expect(!"ünïcödé and a longer text than fifteen bytes".hasByteNeedingEscape())
        #expect(SwiftNames.literal("a\"b") == "\"a\\\"b\"")
        #expect(DumpValue.quoted("tab\there") == "\"tab\\there\"")
    }

    /// The model file's DDL literal: one more `#` than the longest run of `#` in the text, wherever
    /// the runs are (start, end, several).
    @Test(arguments: [
        ("CREATE TABLE t;", "#\"\"\"\nCREATE TABLE t;\n\"\"\"#"),
        ("", "#\"\"\"\n\n\"\"\"#"),
        ("a # b", "##\"\"\"\na # b\n\"\"\"##"),
        ("##x#", "###\"\"\"\n##x#\n\"\"\"###"),
        ("x # y ### z ##", "####\"\"\"\nx # y ### z ##\n\"\"\"####"),
        ("\"\"\"#", "##\"\"\"\n\"\"\"#\n\"\"\"##"),
    ])
    func rawLiteralsHaveMoreHashesThanTheirText(_ text: String, _ literal: String) {
        var output = TextBuffer()
        output.append("let ddl = ")
        SwiftNames.appendRawMultilineLiteral(Array(text.utf8), to: &output)
        #expect(output.text == "let ddl = " + literal)
    }

    @Test(arguments: [0, 1, 2, 7, 300])
    func parallelJobsReturnTheirResultsInJobOrder(count: Int) {
        let results = Parallel.map(count) { index -> String in
            // Uneven work, so jobs finish out of order when they run on several cores.
            var text = ""
            for step in 0..<((count - index) * 50) { text = String(step &* index % 97) }
            return "\(index):\(text.isEmpty ? "-" : "+")"
        }
        #expect(results.count == count)
        #expect(results.map { Int($0.split(separator: ":")[0])! } == Array(0..<count))
    }

    @Test func generateAllGivesTheSameFilesEveryRunInModelOrderWithTheEmittersSQL() throws {
        let bytes = Array(Self.model(entities: 120).utf8)
        let engine = DiagnosticEngine()
        var model = try #require(
            FrontEnd().run(SourceFile(path: "Many.xcdatamodel/contents", bytes: bytes), diagnostics: engine))
        model.modelName = "Many"
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        #expect(!engine.hasErrors)
        let generator = SwiftGenerator(
            options: SwiftGenerationOptions(access: .public, sourceName: "Many.xcdatamodeld"))
        let first = try generator.generateAll(model: model, schema: schema, includePostgres: true)
        let second = try generator.generateAll(model: model, schema: schema, includePostgres: true)
        #expect(first.swiftFiles == second.swiftFiles)
        #expect(first.swiftFiles.count == 121)
        #expect(first.swiftFiles.dropLast().map(\.name) == (0..<120).map { "Thing\($0).swift" })
        #expect(first.swiftFiles.last?.name == "ManyModel.swift")
        // The same files as generating without PostgreSQL, and the SQL as the emitter writes it.
        #expect(try generator.generate(model: model, schema: schema) == first.swiftFiles)
        let snapshot = SchemaSnapshot.make(schema)
        #expect(first.sqliteDDL == SQLEmitter(dialect: .sqlite).emit(schema, snapshot: snapshot))
        #expect(first.postgresDDL == SQLEmitter(dialect: .postgres).emit(schema, snapshot: snapshot))
        // One file: the model file, then the entity files in model order.
        var options = generator.options
        options.singleFile = "Many.swift"
        let single = try SwiftGenerator(options: options).generateAll(
            model: model, schema: schema, includePostgres: false)
        #expect(single.swiftFiles.map(\.name) == ["Many.swift"])
        let separate = try SwiftGenerator(options: options).generate(model: model, schema: schema)
        #expect(separate == single.swiftFiles)
        let text = single.swiftFiles[0].contents
        let declarations =
            ["public enum ManyModel {"] + (0..<120).map { "public final class Thing\($0): ManagedObject {" }
        let offsets = try declarations.map { try #require(text.range(of: $0), "\($0) is missing").lowerBound }
        #expect(offsets == offsets.sorted())
    }

    /// A model large enough to be resolved in runs on several cores: the entities and the
    /// diagnostics come out in document order, as one by one (the expected lines are the
    /// entities' own: line 3 + index).
    @Test func resolvingInRunsKeepsEntitiesAndDiagnosticsInDocumentOrder() throws {
        var text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
            + #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"# + "\n"
        for index in 0..<700 {
            let name = index == 333 ? "" : #" name="E\#(index)""#
            let generation = index % 50 == 7 ? "bogus" : "class"
            text +=
                #"<entity\#(name) codeGenerationType="\#(generation)"><attribute name="a" optional="YES" attributeType="String"/></entity>"#
                + "\n"
        }
        text += "</model>\n"
        let engine = DiagnosticEngine()
        let syntax = try #require(
            ModelParser().parse(
                SourceFile(path: "Large.xcdatamodel/contents", bytes: Array(text.utf8)), diagnostics: engine))
        #expect(engine.diagnostics.isEmpty)
        let model = ModelResolver().resolve(syntax, diagnostics: engine)
        #expect(model.entities.map(\.name) == (0..<700).filter { $0 != 333 }.map { "E\($0)" })
        let expected = (0..<700).filter { $0 % 50 == 7 || $0 == 333 }.map {
            ($0 == 333 ? "missing-name" : "unknown-code-generation", $0 + 3)
        }
        let reported = engine.diagnostics.map { ($0.id.description, $0.location?.line ?? 0) }
        #expect(reported.map(\.0) == expected.map(\.0))
        #expect(reported.map(\.1) == expected.map(\.1))
        // The same under --warnings-as-errors: the runs' engines apply it as the caller's does.
        let strict = DiagnosticEngine(warningsAsErrors: true)
        _ = ModelResolver().resolve(syntax, diagnostics: strict)
        #expect(strict.diagnostics.allSatisfy { $0.severity == .error })
        #expect(strict.diagnostics.map(\.location) == engine.diagnostics.map(\.location))
    }

    /// The executables' allocator settings take effect on glibc (a check compiled out by a
    /// missing header once made them a silent no-op). Applying them in the test process only
    /// keeps its freed memory.
    @Test func theAllocatorTakesTheBatchSettingsOnGlibc() {
        #if os(Linux) && canImport(Glibc)
            #expect(BatchMemory.keepFreedMemory())
        #else
            #expect(!BatchMemory.keepFreedMemory())
        #endif
    }

    /// The benchmarks' settling of deferred free work is compiled in where the C library has it
    /// (a check before any libc header was included compiled it out once, silently).
    @Test func theBenchmarksCanSettleFreedMemoryOnGlibc() {
        let small = (0..<10_000).map { _ in malloc(48) }
        small.forEach { free($0) }
        #if os(Linux) && canImport(Glibc)
            #expect(modelgen_settle_freed_memory() == 1)
        #else
            #expect(modelgen_settle_freed_memory() == 0)
        #endif
    }

    /// A word set holds exactly its words: names that share a length and a first byte with one
    /// of them, prefixes, extensions and other cases are not in it.
    @Test func wordSetsHoldExactlyTheirWords() {
        let words: WordSet = ["init", "in", "_", "Type", "objectID"]
        for word in ["init", "in", "_", "Type", "objectID"] { #expect(words.contains(word)) }
        for name in [
            "", "i", "ini", "inits", "inn", "Init", "iNIT", "__", "type", "Typo", "objectId", "object", "x", "inité",
        ] {
            #expect(!words.contains(name), "\(name)")
        }
        #expect(SwiftNames.keywords.contains("associatedtype") && SwiftNames.keywords.contains("Self"))
        #expect(!SwiftNames.keywords.contains("attribute0") && !SwiftNames.reservedMembers.contains("title"))
    }

    /// Identifiers: letters, digits and `_`, not starting with a digit, decided from the bytes for
    /// ASCII names and from the scalars otherwise.
    @Test(arguments: [
        ("", false), ("1a", false), ("a1", true), ("_x", true), ("a-b", false), ("a b", false), ("é", true),
        ("naïve", true),
        ("x\u{0663}", false), ("\u{0663}x", false), ("Ab_9", true),
    ])
    func identifiersAreLettersDigitsAndUnderscores(_ name: String, _ expected: Bool) {
        #expect(SwiftNames.isIdentifier(name) == expected)
    }

    /// A generated class that takes the name of a Swift value type (`Date`) makes attributes of
    /// that type qualified (`Foundation.Date`) in every entity; the other types stay plain, and
    /// without such a class nothing is qualified.
    @Test(arguments: [("Date", true), ("Moment", false)])
    func attributeTypesAreQualifiedOnlyWhenAClassTakesTheirName(className: String, qualified: Bool) throws {
        let text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
            + #"<entity name="\#(className)" representedClassName="\#(className)" codeGenerationType="class"><attribute name="at" optional="YES" attributeType="Date"/></entity>"#
            + #"<entity name="Event" representedClassName="Event" codeGenerationType="class"><attribute name="when" attributeType="Date"/><attribute name="title" optional="YES" attributeType="String"/></entity>"#
            + "</model>"
        let files = try Self.generatedFiles(text, model: "Times")
        let event = try #require(files.first { $0.name == "Event.swift" }).contents
        let dateType = qualified ? "Foundation.Date" : "Date"
        #expect(event.contains("var when: \(dateType) {"))
        #expect(event.contains("var title: String? {"))
        let own = try #require(files.first { $0.name == "\(className).swift" }).contents
        #expect(own.contains("var at: \(dateType)? {"))
    }

    /// A root class reads and binds without calling `ManagedObject`'s (a protocol check per
    /// object), unless a `category` entity below it keeps its values in the runtime's storage,
    /// which `ManagedObject`'s read and bind; a sub-entity always calls its parent's.
    @Test func onlyRootsWithoutCategoryDescendantsSkipTheBaseClassReadAndBind() throws {
        let text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
            + #"<entity name="Plain" representedClassName="Plain" codeGenerationType="class"><attribute name="a" optional="YES" attributeType="String"/></entity>"#
            + #"<entity name="Animal" representedClassName="Animal" codeGenerationType="class"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
            + #"<entity name="Dog" representedClassName="Dog" parentEntity="Animal" codeGenerationType="class"><attribute name="breed" optional="YES" attributeType="String"/></entity>"#
            + #"<entity name="Puppy" representedClassName="Puppy" parentEntity="Dog" codeGenerationType="category"><attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/></entity>"#
            + "</model>"
        let files = try Self.generatedFiles(text, model: "Pets")
        func contents(_ name: String) throws -> String {
            try #require(files.first { $0.name == name + ".swift" }).contents
        }
        let callsBase = [
            "super.read(from: row, startingAt: column)",
            "var next = super.bind(to: statement, startingAt: index, mask: mask)",
        ]
        for line in callsBase {
            #expect(try !contents("Plain").contains(line))
            #expect(try contents("Animal").contains(line), "a category entity below")
            #expect(try contents("Dog").contains(line), "a generated parent")
        }
        #expect(try contents("Plain").contains("var next = index"))
    }

    /// A fetch request template is generated by its result type: objects, a count, object IDs, or
    /// (dictionary) the values of columns the caller names, distinct when the template says so.
    @Test func templatesAreGeneratedByResultType() throws {
        let text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
            + #"<entity name="Fruit" representedClassName="Fruit" codeGenerationType="class"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
            + #"<fetchRequest name="all" entity="Fruit"/>"#
            + #"<fetchRequest name="howMany" entity="Fruit" predicateString="name == $NAME" resultType="4"/>"#
            + #"<fetchRequest name="ids" entity="Fruit" predicateString="name == $NAME" resultType="1"/>"#
            + #"<fetchRequest name="values" entity="Fruit" resultType="2" returnDistinctResults="YES"/>"#
            + "</model>"
        let fruit = try #require(try Self.generatedFiles(text, model: "Fruits").first { $0.name == "Fruit.swift" })
            .contents
        let signatures = fruit.split(separator: "\n").filter { $0.contains("static func fetch") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(
            signatures == [
                "static func fetchAll(in objectContext: ObjectContext) throws -> [Fruit] {",
                "static func fetchHowMany(NAME: String, in objectContext: ObjectContext) throws -> Swift.Int {",
                "static func fetchIds(NAME: String, in objectContext: ObjectContext) throws -> [ObjectID] {",
                "static func fetchValues(columns: [any ResultColumn<Fruit>], in objectContext: ObjectContext) throws -> [ResultRow<Fruit>] {",
            ])
        #expect(fruit.contains("try objectContext.fetchObjectIDs(FetchRequest(predicate: predicate))"))
        #expect(fruit.contains("ValuesRequest<Fruit>(columns: columns, returnsDistinctResults: true)"))
    }

    /// The Swift files `generate` writes (internal access) for the `contents` XML `text` of model `name`.
    static func generatedFiles(_ text: String, model name: String) throws -> [GeneratedFile] {
        let engine = DiagnosticEngine()
        var model = try #require(
            FrontEnd().run(
                SourceFile(path: "\(name).xcdatamodel/contents", bytes: Array(text.utf8)), diagnostics: engine))
        model.modelName = name
        let schema = try #require(SchemaLowering().lower(model, diagnostics: engine))
        return try SwiftGenerator(
            options: SwiftGenerationOptions(access: .internal, sourceName: "\(name).xcdatamodeld")
        ).generate(model: model, schema: schema)
    }

    /// A model of `entities` entities, each pointing at the next.
    static func model(entities: Int) -> String {
        var text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
        for index in 0..<entities {
            let next = (index + 1) % entities
            text += #"<entity name="Thing\#(index)" representedClassName="Thing\#(index)" codeGenerationType="class">"#
            text += #"<attribute name="title" optional="YES" attributeType="String"/>"#
            text +=
                #"<attribute name="count" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>"#
            text +=
                #"<relationship name="next" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Thing\#(next)" inverseName="previous" inverseEntity="Thing\#(next)"/>"#
            let previous = (index + entities - 1) % entities
            text +=
                #"<relationship name="previous" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Thing\#(previous)" inverseName="next" inverseEntity="Thing\#(previous)"/>"#
            text += "</entity>"
        }
        return text + "</model>"
    }
}

extension GenerationMachineryTests {
    /// A template or fetched property whose predicate ModelGenRuntime cannot run is a located
    /// warning and gets no function; the runtime indeed refuses each such predicate (checked on
    /// the Library model in `PredicateFormRefusalTests`).
    @Test func predicatesTheRuntimeCannotRunGetNoFunction() throws {
        let refused = [
            "lowercase(title) == 'a'", "pages + 1 > 3", "pages * 2 == 4", "parent.title == title",
            "SUBQUERY(children, $c, $c.pages > 1)[FIRST] != nil", "children.@distinctUnionOfObjects.title != nil",
            "parent.@count == 1", "children.@sum.title > 1",
        ]
        let accepted = [
            "title == 'a'", "pages > 3", "children.@count > 1", "children.@sum.pages > 10", "children.@avg.pages < 3.5",
            "SUBQUERY(children, $c, $c.pages > 1).@count > 0", "pages > year", "parent.title == 'x'",
        ]
        var text =
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">"#
            + #"<entity name="Doc" representedClassName="Doc" codeGenerationType="class"><attribute name="title" optional="YES" attributeType="String"/>"#
            + #"<attribute name="pages" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>"#
            + #"<attribute name="year" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>"#
            + #"<relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Doc" inverseName="children" inverseEntity="Doc"/>"#
            + #"<relationship name="children" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Doc" inverseName="parent" inverseEntity="Doc"/></entity>"#
        for (number, predicate) in (refused + accepted).enumerated() {
            let escaped = predicate.replacingOccurrences(of: "'", with: "&apos;").replacingOccurrences(
                of: ">", with: "&gt;"
            )
            .replacingOccurrences(of: "<", with: "&lt;")
            text += #"<fetchRequest name="q\#(number)" entity="Doc" predicateString="\#(escaped)"/>"#
        }
        text += "</model>"
        let engine = DiagnosticEngine()
        let model = try #require(
            FrontEnd().run(SourceFile(path: "Docs.xcdatamodel/contents", bytes: Array(text.utf8)), diagnostics: engine))
        let warned = engine.diagnostics.filter { $0.id == "predicate-not-run-by-runtime" }
        #expect(warned.count == refused.count, "\(engine.diagnostics.map(\.message))")
        #expect(warned.allSatisfy { ($0.location?.line ?? 0) > 0 })
        let doc = try #require(try Self.generatedFiles(text, model: "Docs").first { $0.name == "Doc.swift" }).contents
        for number in refused.indices { #expect(!doc.contains("func fetchQ\(number)(")) }
        for number in accepted.indices { #expect(doc.contains("func fetchQ\(refused.count + number)(")) }

        // The runtime agrees: it refuses every predicate reported, and runs the others.
        var named = model
        named.modelName = "Docs"
        let schema = try #require(SchemaLowering().lower(named, diagnostics: engine))
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("docs.sqlite").path
        try RuntimeSeeder.seedEverything(model: named, schema: schema, at: path)
        let store = try PersistentStore(path: path, model: RuntimeSeeder.runtimeModel(named, schema, patterns: false))
        let type = try #require(store.model.entities.first?.objectType as? any DynamicFetching.Type)
        for predicate in refused + accepted {
            let runs =
                (try? type.fetch(store.newContext(), format: predicate, variables: [:], prefetching: [], limit: nil))
                != nil
            #expect(runs == accepted.contains(predicate), "\(predicate)")
        }
    }
}
