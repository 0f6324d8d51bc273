/// The default layout (DESIGN.md §3): one table per root entity shared by its sub-entities and
/// told apart by `_entity`; `_pk`, `_version`; snake_case names; to-one relationships as
/// `<name>_pk` foreign keys; join tables for many-to-many and inverse-less to-many relationships;
/// position columns for ordered ones; uniqueness constraints and indexes as indexes.
public struct StandardLayout: RelationalLayout {
    public let name = "relational"

    public init() {}

    /// The `userInfo` key that overrides a table's or column's name.
    public static let sqlNameKey = "modelgen.sqlName"

    public func lower(_ model: ObjectModel, entities: Set<Int>?, diagnostics: DiagnosticEngine) -> RelationalSchema {
        var builder = LayoutBuilder(model: model, diagnostics: diagnostics, layoutName: name, selection: entities)
        return builder.build()
    }
}

/// Where a planned table or column comes from: the line of its element and the XML attribute to
/// point at, turned into a `SourceLocation` only for a diagnostic (finding the attribute on its
/// line for every column of a large model was a tenth of lowering).
struct SourceAnchor {
    var line: Int
    var attribute: String
}

/// One column being planned, with where it came from (for collision diagnostics).
struct PlannedColumn {
    var column: Column
    var location: SourceAnchor?
}

/// A table being planned.
struct PlannedTable {
    var name: String
    var kind: Table.Kind
    var root: Int?
    var location: SourceAnchor?
    var columns: [PlannedColumn] = []
    var primaryKey: [String] = []
    var foreignKeys: [ForeignKey] = []
    var checks: [Check.Condition] = []
}

/// The state of one lowering.
struct LayoutBuilder {
    let model: ObjectModel
    let diagnostics: DiagnosticEngine
    let layoutName: String
    let selection: Set<Int>?

    /// `_entity` value per entity index.
    var entityIDs: [Int] = []
    /// Table index per root entity index.
    var tableOfRoot: [Int: Int] = [:]
    var tables: [PlannedTable] = []
    var indexes: [Index] = []

    init(model: ObjectModel, diagnostics: DiagnosticEngine, layoutName: String, selection: Set<Int>?) {
        self.model = model
        self.diagnostics = diagnostics
        self.layoutName = layoutName
        self.selection = selection
    }

    mutating func build() -> RelationalSchema {
        assignEntityIDs()
        createEntityTables()
        let attributeColumns = attributeColumnsOfEntities()
        for root in tableOfRoot.keys.sorted() {
            for entity in hierarchy(of: root) { addProperties(of: entity, attributes: attributeColumns[entity]) }
        }
        for root in tableOfRoot.keys.sorted() {
            for entity in hierarchy(of: root) {
                addUniquenessConstraints(of: entity)
                addFetchIndexes(of: entity)
            }
        }
        return finish()
    }

    // MARK: - Entities and tables

    /// Core Data's numbering: root entities sorted by name, each followed by its sub-entities
    /// (sorted by name, recursively); 1-based.
    mutating func assignEntityIDs() {
        entityIDs = Array(repeating: 0, count: model.entities.count)
        var next = 1
        func visit(_ index: Int) {
            entityIDs[index] = next
            next += 1
            for child in model.entities[index].subentities.sorted(by: { model.entities[$0].name < model.entities[$1].name }) {
                visit(child)
            }
        }
        let roots = model.entities.indices.filter { model.entities[$0].parent == nil }
        for root in roots.sorted(by: { model.entities[$0].name < model.entities[$1].name }) { visit(root) }
    }

    /// The entity and its descendants, in pre-order.
    func hierarchy(of entity: Int) -> [Int] {
        var result = [entity]
        for child in model.entities[entity].subentities.sorted(by: { model.entities[$0].name < model.entities[$1].name }) {
            result += hierarchy(of: child)
        }
        return result
    }

    /// `_entity` values of the entity and its descendants.
    func entityIDValues(of entity: Int) -> [Int64] {
        hierarchy(of: entity).map { Int64(entityIDs[$0]) }.sorted()
    }

    func isIncluded(_ entity: Int) -> Bool {
        tableOfRoot[model.entities[entity].root] != nil
    }

    func sqlName(_ name: String, userInfo: UserInfo) -> String {
        SQLNaming.fitted(userInfo[StandardLayout.sqlNameKey] ?? SQLNaming.snakeCase(name))
    }

    mutating func createEntityTables() {
        let roots = model.entities.indices.filter { model.entities[$0].parent == nil }
            .sorted { model.entities[$0].name < model.entities[$1].name }
        for root in roots {
            if let selection, !hierarchy(of: root).contains(where: selection.contains) { continue }
            let entity = model.entities[root]
            var table = PlannedTable(
                name: sqlName(entity.name, userInfo: entity.userInfo), kind: .entity, root: root,
                location: SourceAnchor(line: entity.line, attribute: "name"))
            table.primaryKey = ["_pk"]
            table.columns = [
                PlannedColumn(column: Column(name: "_pk", type: .key, isNullable: false, role: .primaryKey), location: nil),
                PlannedColumn(column: Column(name: "_entity", type: .integer32, isNullable: false, role: .entity), location: nil),
                PlannedColumn(
                    column: Column(name: "_version", type: .integer64, isNullable: false, defaultValue: .integer(1), role: .version),
                    location: nil),
            ]
            let concrete = hierarchy(of: root).filter { !model.entities[$0].isAbstract }
            let values = (concrete.isEmpty ? hierarchy(of: root) : concrete).map { Int64(entityIDs[$0]) }.sorted()
            table.checks.append(.oneOf(column: "_entity", values: values))
            tableOfRoot[root] = tables.count
            tables.append(table)
        }
    }
}
