/// Core Data's own SQLite layout (`Z` tables), as Apple's framework writes it: what a store that
/// an app made with Core Data contains, so that the runtime can open such a store and
/// `modelgen sql --layout coredata` can print its schema.
///
/// The rules (entity numbers, names, column order, indexes) are those of the store layout spec
/// (`corpus/STORE-LAYOUT.md` §2, checked on real stores). Where Core Data's choice cannot be
/// derived from the model — the order in which colliding join columns get their digit suffixes —
/// this layout picks one deterministically and the runtime reads the store's own names instead.
///
/// The tables carry no constraints (no NOT NULL, CHECK or FOREIGN KEY): Core Data enforces its
/// rules itself, and so does the runtime.
public struct CoreDataLayout: RelationalLayout {
    public let name = "coredata"

    /// The `NSPersistenceFrameworkVersion` whose index naming to follow: up to 754 an indexed
    /// attribute gets `<TABLE>_<COLUMN>_INDEX` and join tables no reverse index (below 754);
    /// later versions make an indexed attribute a fetch index `Z_<Entity>_<attribute>`.
    public var frameworkVersion: Int

    /// A recent framework version (macOS 14 / iOS 17 era).
    public static let currentFrameworkVersion = 1344

    public init(frameworkVersion: Int = CoreDataLayout.currentFrameworkVersion) {
        self.frameworkVersion = frameworkVersion
    }

    public func lower(_ model: ObjectModel, entities: Set<Int>?, diagnostics: DiagnosticEngine) -> RelationalSchema {
        var builder = CoreDataLayoutBuilder(
            model: model, diagnostics: diagnostics, selection: entities, frameworkVersion: frameworkVersion)
        return builder.build()
    }

    /// Core Data's entity numbers (`Z_ENT`), by entity index: pre-order over the hierarchies, roots
    /// and siblings sorted by name case-insensitively (byte order between names equal so), from 1.
    public static func entityNumbers(of model: ObjectModel) -> [Int] {
        CoreDataLayoutBuilder.preorder(of: model).numbers
    }

    /// `Z` + the name upper-cased: Core Data's name for a table or a column.
    static func storeName(_ name: String) -> String { "Z" + name.uppercased() }
}

/// A column being planned, with what orders it among the table's columns (R10: storage class,
/// declaring entity's pre-order position, kind, name case-insensitively).
struct CoreDataPlannedColumn {
    var column: Column
    var storageClass: Int
    /// Hidden keys and `Z_FOK_` columns come after every other INTEGER column.
    var isLate: Bool
    var entityPosition: Int
    var kind: Int
    var sortName: String
    /// The column it follows at once (an entity column after its key), else nil.
    var companion: Column?
}

struct CoreDataLayoutBuilder {
    let model: ObjectModel
    let diagnostics: DiagnosticEngine
    let selection: Set<Int>?
    let frameworkVersion: Int

    /// `Z_ENT` per entity index, and the entities in that order.
    var numbers: [Int] = []
    var preorder: [Int] = []
    var tableOfRoot: [Int: Int] = [:]
    var tables: [PlannedTable] = []
    var plannedColumns: [[CoreDataPlannedColumn]] = []
    var indexes: [Index] = []
    /// Join column names taken so far (they are unique in the whole store).
    var joinColumnNames: Set<String> = []
    /// Join tables, each after the table (by number) of its owner's root.
    var joinTables: [(after: Int, table: PlannedTable)] = []

    static func unsupported(_ what: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "coredata-layout-unsupported", .error, "\(what) has no known place in Core Data's store layout")
    }

    init(model: ObjectModel, diagnostics: DiagnosticEngine, selection: Set<Int>?, frameworkVersion: Int) {
        self.model = model
        self.diagnostics = diagnostics
        self.selection = selection
        self.frameworkVersion = frameworkVersion
    }

    static func preorder(of model: ObjectModel) -> (order: [Int], numbers: [Int]) {
        func sorted(_ entities: [Int]) -> [Int] {
            entities.sorted {
                let (a, b) = (model.entities[$0].name, model.entities[$1].name)
                let (la, lb) = (a.lowercased(), b.lowercased())
                return la != lb ? la < lb : a < b
            }
        }
        var order: [Int] = []
        var numbers = Array(repeating: 0, count: model.entities.count)
        func visit(_ entity: Int) {
            order.append(entity)
            numbers[entity] = order.count
            for child in sorted(model.entities[entity].subentities) { visit(child) }
        }
        for root in sorted(model.entities.indices.filter { model.entities[$0].parent == nil }) { visit(root) }
        return (order, numbers)
    }

    func hierarchy(of root: Int) -> [Int] {
        preorder.filter { model.entities[$0].root == root }
    }

    mutating func build() -> RelationalSchema {
        (preorder, numbers) = Self.preorder(of: model)
        for root in preorder where model.entities[root].parent == nil {
            if let selection, !hierarchy(of: root).contains(where: selection.contains) { continue }
            tableOfRoot[root] = tables.count
            tables.append(
                PlannedTable(
                    name: CoreDataLayout.storeName(model.entities[root].name), kind: .entity, root: root,
                    location: SourceAnchor(line: model.entities[root].line, attribute: "name")))
            plannedColumns.append([])
        }
        for entity in preorder where tableOfRoot[model.entities[entity].root] != nil {
            addAttributes(of: entity)
            for index in model.entities[entity].relationships.indices
            where !model.entities[entity].relationships[index].isTransient {
                addRelationship(RelationshipRef(entity: entity, index: index))
            }
        }
        for entity in preorder where tableOfRoot[model.entities[entity].root] != nil {
            addIndexes(of: entity)
        }
        return finish()
    }

    /// R5: a column `Z<NAME>` per stored attribute, on the root's table.
    mutating func addAttributes(of entity: Int) {
        guard let table = tableOfRoot[model.entities[entity].root] else { return }
        for (index, attribute) in model.entities[entity].attributes.enumerated()
        where !attribute.isTransient && attribute.type.isStorable {
            guard attribute.type != .composite else {
                diagnostics.report(
                    Self.unsupported("composite attribute '\(attribute.name)'"),
                    at: model.location(attribute.line, attribute: "name"))
                continue
            }
            let type = LayoutBuilder.columnType(attribute.type)
            let column = Column(
                name: CoreDataLayout.storeName(attribute.name), type: type, isNullable: true, role: .attribute,
                source: String.concatenating(model.entities[entity].name, ".", attribute.name),
                origin: .attribute(entity: entity, attribute: index, member: nil))
            add(column, to: table, entity: entity, kind: 0, sortName: attribute.name)
        }
    }

    /// Adds a column to table number `table`, with a digit suffix where the name is taken.
    mutating func add(
        _ column: Column, to table: Int, entity: Int, kind: Int, sortName: String, isLate: Bool = false,
        companion: Column? = nil
    ) {
        var column = column
        let taken = Set(plannedColumns[table].flatMap { [$0.column.name] + ($0.companion.map { [$0.name] } ?? []) })
        if taken.contains(column.name) || ["Z_PK", "Z_ENT", "Z_OPT"].contains(column.name) {
            var suffix = 1
            while taken.contains(column.name + String(suffix)) { suffix += 1 }
            column.name += String(suffix)
        }
        plannedColumns[table].append(
            CoreDataPlannedColumn(
                column: column, storageClass: CoreDataDeclaredType(column.type).rank, isLate: isLate,
                entityPosition: numbers[entity], kind: kind, sortName: sortName.lowercased(), companion: companion))
    }

    mutating func finish() -> RelationalSchema {
        var result: [Table] = []
        var mappings: [EntityMapping] = []
        var ordered: [(index: Int?, table: PlannedTable)] = []
        for (index, table) in tables.enumerated() {
            ordered.append((index, table))
            for join in joinTables where join.after == index { ordered.append((nil, join.table)) }
        }
        for (index, planned) in ordered {
            var columns = planned.columns.map(\.column)
            if let index {
                columns = [
                    Column(name: "Z_PK", type: .key, isNullable: false, role: .primaryKey),
                    Column(name: "Z_ENT", type: .integer32, isNullable: false, role: .entity),
                    Column(name: "Z_OPT", type: .integer64, isNullable: false, role: .version),
                ]
                let sorted = plannedColumns[index].sorted {
                    ($0.storageClass, $0.isLate ? 1 : 0, $0.entityPosition, $0.kind, $0.sortName)
                        < ($1.storageClass, $1.isLate ? 1 : 0, $1.entityPosition, $1.kind, $1.sortName)
                }
                for planned in sorted { columns += [planned.column] + (planned.companion.map { [$0] } ?? []) }
                if let root = planned.root {
                    for entity in hierarchy(of: root) {
                        mappings.append(
                            EntityMapping(
                                entity: model.entities[entity].name, table: planned.name, entityID: numbers[entity],
                                isAbstract: model.entities[entity].isAbstract))
                    }
                }
            }
            result.append(
                Table(
                    name: planned.name, kind: planned.kind, columns: columns, primaryKey: planned.primaryKey,
                    foreignKeys: [], checks: []))
        }
        for index in result.indices where result[index].kind == .entity { result[index].primaryKey = ["Z_PK"] }
        return RelationalSchema(
            layout: "coredata", modelName: model.modelName ?? "", versionName: model.versionName, tables: result,
            indexes: indexes, entities: mappings.sorted { $0.entityID < $1.entityID })
    }
}

/// The type Core Data declares a column with, and its place in R10's order.
struct CoreDataDeclaredType {
    var name: String
    var rank: Int

    init(_ type: ColumnType) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .key: (name, rank) = ("INTEGER", 0)
        case .date: (name, rank) = ("TIMESTAMP", 1)
        case .decimal: (name, rank) = ("DECIMAL", 2)
        case .double, .float: (name, rank) = ("FLOAT", 3)
        case .text, .uri: (name, rank) = ("VARCHAR", 4)
        case .blob, .uuid: (name, rank) = ("BLOB", 5)
        }
    }
}
