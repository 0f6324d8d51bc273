/// The default layout (DESIGN.md §3): one table per root entity shared by its sub-entities and
/// told apart by `_entity`; `_pk`, `_version`; snake_case names; to-one relationships as
/// `<name>_pk` foreign keys; join tables for many-to-many and inverse-less to-many relationships;
/// position columns for ordered ones; uniqueness constraints and indexes as indexes.
public struct StandardLayout: RelationalLayout {
    public let name = "relational"

    /// How entities are numbered in `_entity`.
    public enum EntityCodes: Sendable {
        /// Each entity's number is a hash of its renaming ID, else its name (31 bits, never 0), so
        /// adding, removing or renaming an entity changes no other entity's number (and renaming
        /// it through its renaming ID not even its own), and a migration rewrites no other table.
        /// Two entities with the same hash are told apart by the next free number, taken in order
        /// of what was hashed.
        case nameHashes
        /// Positions in pre-order over the hierarchies (siblings by name in byte order, from 1;
        /// Core Data's order differs only in sorting case-insensitively): the numbers of stores
        /// made by modelgen 0.1, which the generated code migrates.
        case sortedPositions
    }

    public var entityCodes: EntityCodes

    public init(entityCodes: EntityCodes = .nameHashes) {
        self.entityCodes = entityCodes
    }

    /// The `userInfo` key that overrides a table's or column's name.
    public static let sqlNameKey = "modelgen.sqlName"

    public func lower(_ model: ObjectModel, entities: Set<Int>?, diagnostics: DiagnosticEngine) -> RelationalSchema {
        var builder = LayoutBuilder(
            model: model, diagnostics: diagnostics, layoutName: name, selection: entities, entityCodes: entityCodes)
        return builder.build()
    }
}

/// Where a planned table or column comes from: the line of its element and the XML attribute to
/// point at, turned into a `SourceLocation` only for a diagnostic (finding the attribute on its
/// line for every column of a large model would be a tenth of lowering).
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
    let entityCodes: StandardLayout.EntityCodes

    /// `_entity` value per entity index.
    var entityIDs: [Int] = []
    /// Entity indices in pre-order (roots by name, each followed by its sub-entities by name);
    /// per entity index its 1-based position there and the end of its descendants.
    var preorder: [Int] = []
    var position: [Int] = []
    var subtreeEnd: [Int] = []
    /// Table index per root entity index.
    var tableOfRoot: [Int: Int] = [:]
    var tables: [PlannedTable] = []
    var indexes: [Index] = []
    /// Column names taken so far, by table index (made on first use).
    var takenColumnNames: [Int: Set<String>] = [:]
    /// The column of a property (`Entity.property`, `Entity.property.member`) whose name was
    /// taken by another entity's property in the same table, and so got another one.
    var renamedColumns: [String: String] = [:]

    init(
        model: ObjectModel, diagnostics: DiagnosticEngine, layoutName: String, selection: Set<Int>?,
        entityCodes: StandardLayout.EntityCodes
    ) {
        self.model = model
        self.diagnostics = diagnostics
        self.layoutName = layoutName
        self.selection = selection
        self.entityCodes = entityCodes
    }

    mutating func build() -> RelationalSchema {
        assignEntityIDs()
        createEntityTables()
        var attributeColumns = attributeColumnsOfEntities()
        for root in tableOfRoot.keys.sorted() {
            // Each entity's planned columns are moved into its table, not copied.
            for entity in hierarchy(of: root) { addProperties(of: entity, attributes: attributeColumns[entity].take()) }
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

    /// Orders the entities in pre-order — root entities sorted by name, each followed by its
    /// sub-entities (sorted by name, recursively) — so that an entity and its descendants are
    /// consecutive in `preorder` and `subtreeEnd` says where each one's descendants end; then
    /// numbers them as `entityCodes` says.
    mutating func assignEntityIDs() {
        position = Array(repeating: 0, count: model.entities.count)
        subtreeEnd = Array(repeating: 0, count: model.entities.count)
        preorder = []
        preorder.reserveCapacity(model.entities.count)
        func visit(_ index: Int) {
            preorder.append(index)
            position[index] = preorder.count
            for child in model.entities[index].subentities.sorted(by: {
                model.entities[$0].name < model.entities[$1].name
            }) {
                visit(child)
            }
            subtreeEnd[index] = preorder.count
        }
        let roots = model.entities.indices.filter { model.entities[$0].parent == nil }
        for root in roots.sorted(by: { model.entities[$0].name < model.entities[$1].name }) { visit(root) }
        switch entityCodes {
        case .sortedPositions: entityIDs = position
        case .nameHashes: entityIDs = EntityCode.codes(of: model.entities.map { $0.elementID ?? $0.name })
        }
    }

    /// The entity and its descendants, in pre-order (sub-entities by name).
    func hierarchy(of entity: Int) -> ArraySlice<Int> {
        let start = position[entity]
        // Every entity of a hierarchy is visited; this is only for safety.
        guard start > 0 else { return [entity] }
        return preorder[(start - 1)..<subtreeEnd[entity]]
    }

    /// `_entity` values of the entity and its descendants, ascending.
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
            let hierarchy = hierarchy(of: root)
            if let selection, !hierarchy.contains(where: selection.contains) { continue }
            var table = PlannedTable(
                name: sqlName(model.entities[root].name, userInfo: model.entities[root].userInfo), kind: .entity,
                root: root,
                location: SourceAnchor(line: model.entities[root].line, attribute: "name"))
            table.primaryKey = ["_pk"]
            table.columns = [
                PlannedColumn(
                    column: Column(name: "_pk", type: .key, isNullable: false, role: .primaryKey), location: nil),
                PlannedColumn(
                    column: Column(name: "_entity", type: .integer32, isNullable: false, role: .entity), location: nil),
                PlannedColumn(
                    column: Column(
                        name: "_version", type: .integer64, isNullable: false, defaultValue: .integer(1), role: .version
                    ),
                    location: nil),
            ]
            let concrete = hierarchy.filter { !model.entities[$0].isAbstract }
            let values = (concrete.isEmpty ? Array(hierarchy) : concrete).map { Int64(entityIDs[$0]) }.sorted()
            table.checks.append(.oneOf(column: "_entity", values: values))
            tableOfRoot[root] = tables.count
            tables.append(table)
        }
    }
}
