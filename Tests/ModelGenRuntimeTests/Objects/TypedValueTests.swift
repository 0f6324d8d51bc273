import Foundation
import GeneratedModels
import TestSupport
import Testing

@_spi(Generated) @_spi(Database) @testable import ModelGenRuntime

/// Attributes of the program's own types (the Tasks model): enums and other `RawRepresentable`
/// types stored as their raw values, `Codable` transformables stored as JSON, a transformable
/// stored by a registered value transformer, on a generated class and on a `category` entity.
/// Serialized: the tests change the process-wide transformer registry.
@Suite(.serialized) struct TypedValueTests {
    /// "ColorTransformer": a color as the text `#rrggbb`.
    static func registerColors() {
        ValueTransformers.register(
            "ColorTransformer", for: Color.self,
            encode: { color in Data(String(format: "#%02x%02x%02x", color.red, color.green, color.blue).utf8) },
            decode: { data in
                let text = String(decoding: data, as: UTF8.self)
                guard text.count == 7, text.first == "#", let value = UInt32(text.dropFirst(), radix: 16) else {
                    throw DatabaseError(.conversion, "not a color: \(text)")
                }
                return Color(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xff), blue: UInt8(value & 0xff))
            })
    }

    /// The text of a blob column, read without the runtime.
    static func text(_ column: String, _ backend: Backend) -> String {
        backend == .sqlite ? "CAST(\"\(column)\" AS TEXT)" : "convert_from(\"\(column)\", 'UTF8')"
    }

    @Test(arguments: Backend.allCases) func typedValuesAreStoredAsTheirStoredFormsAndReadBack(_ backend: Backend) throws
    {
        Self.registerColors()
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let store = try location.open(TasksModel.model)
        let context = store.newContext()
        let project = Project(in: context, name: "house")
        #expect(project.kind == .personal, "the model's default, as the enum's case")
        project.kind = .work
        let task = Task(in: context, estimate: Points(rawValue: 5), title: "paint")
        #expect(task.priority == .normal && task.state == nil && task.flags == nil)
        task.priority = .urgent
        task.state = .started
        task.flags = [.blocked, .recurring]
        task.checklist = Checklist(items: [.init(text: "buy paint", done: true), .init(text: "tape", done: false)])
        task.tags = ["home", "weekend"]
        task.color = Color(red: 255, green: 128, blue: 0)
        task.note = Data([1, 2, 3])
        task.project = project
        let label = Label()
        context.insert(label)
        label.name = "chores"
        #expect(label.style == .plain)
        label.style = .outlined
        label.palette = ["red", "blue"]
        try context.save()

        let taskRows = try TemporaryStore.rows(
            location,
            "SELECT \"priority\", \"state\", \"estimate\", \"flags\", \(Self.text("checklist", backend)), \(Self.text("tags", backend)), "
                + "\(Self.text("color", backend)) FROM \"task\"")
        #expect(
            taskRows == [
                [
                    "3", "started", "5", "5",
                    #"{"items":[{"done":true,"text":"buy paint"},{"done":false,"text":"tape"}]}"#,
                    #"["home","weekend"]"#, "#ff8000",
                ]
            ])
        #expect(try TemporaryStore.rows(location, "SELECT \"kind\" FROM \"project\"") == [["1"]])
        #expect(
            try TemporaryStore.rows(location, "SELECT \"style\", \(Self.text("palette", backend)) FROM \"label\"")
                == [["outlined", #"["red","blue"]"#]])

        let fresh = store.newContext()
        let read = try #require(try fresh.fetch(FetchRequest<Task>()).first)
        #expect(read.priority == .urgent && read.state == .started && read.estimate == Points(rawValue: 5))
        #expect(
            read.flags == [.blocked, .recurring] && read.tags == ["home", "weekend"] && read.note == Data([1, 2, 3]))
        #expect(read.checklist == task.checklist && read.color == Color(red: 255, green: 128, blue: 0))
        #expect(read.project?.kind == .work)
        let readLabel = try #require(try fresh.fetch(FetchRequest<Label>()).first)
        #expect(readLabel.style == .outlined && readLabel.palette == ["red", "blue"])

        // Cleared values are NULL again.
        read.checklist = nil
        read.state = nil
        try fresh.save()
        #expect(
            try TemporaryStore.rows(location, "SELECT \"checklist\", \"state\" FROM \"task\"") == [["NULL", "NULL"]])
    }

    /// Typed predicates, format strings with enum arguments and sorts by an enum's raw value, on
    /// saved rows (SQL) and on unsaved changes (evaluated in memory), against a filter in Swift.
    @Test(arguments: [1, 2, 3]) func queriesOnTypedValuesMatchABruteForceFilter(_ seed: UInt64) throws {
        Self.registerColors()
        try TemporaryStore.with(TasksModel.model) { store, _ in
            var random = SplitMix(seed: seed)
            let context = store.newContext()
            var tasks: [Task] = []
            for number in 0..<300 {
                let task = Task(
                    in: context, estimate: Points(rawValue: Int.random(in: 0...20, using: &random)), title: "t\(number)"
                )
                task.priority = Priority.allCases.randomElement(using: &random)!
                task.state = Bool.random(using: &random) ? nil : TaskState.allCases.randomElement(using: &random)!
                task.flags = TaskFlags(rawValue: Int64.random(in: 0...7, using: &random))
                tasks.append(task)
            }
            try context.save()
            // Unsaved: some changed, some new.
            for task in tasks.shuffled(using: &random).prefix(40) {
                task.priority = Priority.allCases.randomElement(using: &random)!
            }
            for number in 0..<20 {
                let task = Task(in: context, estimate: Points(rawValue: number), title: "new\(number)")
                task.state = .done
                tasks.append(task)
            }
            let byTitle = { (list: [Task]) in list.map(\.title).sorted() }
            for pending in [true, false] {
                if !pending { try context.save() }
                let high = try context.fetch(FetchRequest(predicate: \Task.priority == Priority.high))
                #expect(byTitle(high) == byTitle(tasks.filter { $0.priority == .high }))
                let urgentOrDone = try context.fetch(
                    FetchRequest(
                        predicate: try ObjectPredicate<Task>(
                            format: "priority == %@ OR state == %@", Priority.urgent, TaskState.done)))
                #expect(byTitle(urgentOrDone) == byTitle(tasks.filter { $0.priority == .urgent || $0.state == .done }))
                let atLeastNormal = try context.fetch(
                    FetchRequest(predicate: try ObjectPredicate<Task>(format: "priority >= 1 AND estimate < %@", 10)))
                #expect(
                    byTitle(atLeastNormal)
                        == byTitle(tasks.filter { $0.priority.rawValue >= 1 && $0.estimate!.rawValue < 10 }))
                let sorted = try context.fetch(
                    FetchRequest<Task>(sortDescriptors: [
                        ObjectSortDescriptor(\Task.priority, ascending: false), ObjectSortDescriptor(\Task.title),
                    ]))
                let expected = tasks.sorted { ($0.priority.rawValue, $1.title) > ($1.priority.rawValue, $0.title) }
                #expect(sorted.map(\.title) == expected.map(\.title))
                #expect(
                    try context.count(FetchRequest(predicate: \Task.state == nil))
                        == tasks.filter { $0.state == nil }.count)
            }
        }
    }

    /// A stored value the program's type has no value for is an error naming the entity,
    /// attribute and row, every time it is read; the row is left as it is.
    @Test func storedValuesTheTypeDoesNotKnowAreErrors() throws {
        Self.registerColors()
        try TemporaryStore.with(TasksModel.model) { store, location in
            let context = store.newContext()
            _ = Task(in: context, estimate: Points(rawValue: 1), title: "a")
            try context.save()
            guard case .file(let path) = location else { return }
            let raw = try Connection(path: path)
            for (sql, property) in [
                ("UPDATE \"task\" SET \"state\" = 'archived'", "state"),
                ("UPDATE \"task\" SET \"state\" = NULL, \"checklist\" = X'00'", "checklist"),
                ("UPDATE \"task\" SET \"checklist\" = NULL, \"color\" = CAST('red' AS BLOB)", "color"),
            ] {
                try raw.execute(sql)
                for _ in 0..<2 {
                    let fresh = store.newContext()
                    do {
                        _ = try fresh.fetch(FetchRequest<Task>())
                        Issue.record("\(property): read without an error")
                    } catch let error as DatabaseError {
                        #expect(
                            error.code == .conversion && error.entity == "Task" && error.property == property,
                            "\(error)")
                        #expect(error.message.contains("row 1 of task"), "\(error.message)")
                    }
                }
            }
            // Read into an object already registered: the merge reports it too.
            try raw.execute("UPDATE \"task\" SET \"color\" = NULL, \"priority\" = 2, \"_version\" = \"_version\" + 1")
            let task = try #require(try context.fetch(FetchRequest<Task>()).first)
            try context.refresh(task)
            #expect(task.priority == .high)
            try raw.execute("UPDATE \"task\" SET \"state\" = 'archived', \"_version\" = \"_version\" + 1")
            #expect(throws: DatabaseError.self) { try context.refresh(task) }
            #expect(
                try TemporaryStore.rows(location, "SELECT \"state\" FROM \"task\"") == [["archived"]],
                "nothing rewritten")
        }
    }

    /// A value that cannot be encoded fails the save with the attribute named, and nothing is
    /// written; so does a transformer nobody registered.
    @Test func valuesThatCannotBeStoredFailTheSave() throws {
        try TemporaryStore.with(TasksModel.model) { store, location in
            let context = store.newContext()
            ValueTransformers.unregister("ColorTransformer")
            defer { Self.registerColors() }
            let task = Task(in: context, estimate: Points(rawValue: 1), title: "a")
            task.color = Color(red: 1, green: 2, blue: 3)
            do {
                try context.save()
                Issue.record("saved a color with no transformer")
            } catch let error as DatabaseError {
                #expect(
                    error.code == .conversion && error.property == "color"
                        && error.message.contains("ColorTransformer"), "\(error)")
            }
            #expect(try TemporaryStore.rows(location, "SELECT count(*) FROM \"task\"") == [["0"]])
            ValueTransformers.register(
                "ColorTransformer", for: Color.self,
                encode: { _ in throw DatabaseError(.conversion, "no colors today") },
                decode: { _ in Color(red: 0, green: 0, blue: 0) })
            #expect(throws: DatabaseError.self) { try context.save() }
            #expect(try TemporaryStore.rows(location, "SELECT count(*) FROM \"task\"") == [["0"]])
            Self.registerColors()
            try context.save()
            #expect(
                try TemporaryStore.rows(location, "SELECT \(Self.text("color", .sqlite)) FROM \"task\"") == [
                    ["#010203"]
                ])
        }
    }

    /// Required typed attributes whose Swift type is optional are checked at the save; dynamic
    /// access takes the type or its stored form and refuses anything else.
    @Test func requiredTypedValuesAndDynamicAccess() throws {
        Self.registerColors()
        try TemporaryStore.with(TasksModel.model) { store, _ in
            let context = store.newContext()
            let unset = Task()
            context.insert(unset)
            unset.title = "never estimated"
            #expect(throws: DatabaseError.self) { try context.save() }
            unset.estimate = nil
            do {
                try context.save()
                Issue.record("saved a required estimate of nil")
            } catch let error as DatabaseError {
                #expect(
                    error.code == .validation && error.property == "estimate" && error.message.contains("is required"),
                    "\(error)")
            }
            unset.estimate = Points(rawValue: 2)
            try context.save()

            try unset.setValue(Int16(2), forKey: "priority")
            #expect(unset.priority == .high)
            try unset.setValue(Priority.low, forKey: "priority")
            let dynamic = try unset.value(forKey: "priority")
            #expect(unset.priority == .low && dynamic as? Priority == .low)
            try unset.setValue("done", forKey: "state")
            #expect(unset.state == .done)
            try unset.setValue(Data(#"["x"]"#.utf8), forKey: "tags")
            #expect(unset.tags == ["x"])
            for (key, value, code) in [
                ("priority", 9 as Any, DatabaseError.Code.conversion), ("priority", "high", .wrongType),
                ("state", "archived", .conversion),
                ("tags", Data([0]), .conversion), ("tags", 3, .wrongType),
            ] {
                do {
                    try unset.setValue(value, forKey: key)
                    Issue.record("\(key) took \(value)")
                } catch let error as DatabaseError {
                    #expect(error.code == code && error.property == key, "\(key) = \(value): \(error)")
                }
            }
            #expect(
                unset.priority == .low && unset.state == .done && unset.tags == ["x"], "refused values changed nothing")
            let label = Label()
            context.insert(label)
            label.name = "x"
            try label.setValue("bold", forKey: "style")
            #expect(label.style == .bold)
            #expect(throws: DatabaseError.self) { try label.setValue("loud", forKey: "style") }
            try context.save()
        }
    }

    /// A child context (an editing form) carries typed values into its parent and the store.
    @Test func aChildContextCarriesTypedValues() throws {
        Self.registerColors()
        try TemporaryStore.with(TasksModel.model) { store, location in
            let main = store.newContext()
            let task = Task(in: main, estimate: Points(rawValue: 3), title: "a")
            try main.save()
            let form = main.newChildContext()
            let draft = try form.existingObject(with: task.objectID, as: Task.self)
            #expect(draft.estimate == Points(rawValue: 3))
            draft.priority = .urgent
            draft.checklist = Checklist(items: [.init(text: "x", done: false)])
            draft.color = Color(red: 0, green: 0, blue: 255)
            let label = Label()
            form.insert(label)
            label.name = "new"
            label.style = .bold
            try form.save()
            #expect(task.priority == .urgent && task.checklist?.items.count == 1 && task.color?.blue == 255)
            try main.save()
            #expect(
                try TemporaryStore.rows(location, "SELECT \"priority\", \(Self.text("color", .sqlite)) FROM \"task\"")
                    == [["3", "#0000ff"]])
            #expect(
                try TemporaryStore.rows(location, "SELECT \"name\", \"style\" FROM \"label\"") == [["new", "bold"]])
        }
    }
}
