/// Lower: `ObjectModel` → `RelationalSchema`.
///
/// Input: a validated model. Output: the tables, columns, keys, checks and indexes that store it,
/// decided by a `RelationalLayout` strategy (the default is `StandardLayout`, DESIGN.md §3; a
/// Core Data–compatible layout can be added as another strategy without touching other stages).
///
/// Invariants of the output when no error was reported: identifiers are unique per table (columns)
/// and per schema (tables, indexes) and at most 63 bytes; every foreign key names an existing
/// table and column; tables are in foreign-key order.
public struct SchemaLowering: Sendable {
    public var layout: any RelationalLayout

    public init(layout: any RelationalLayout = StandardLayout()) {
        self.layout = layout
    }

    static func unknownConfiguration(_ name: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-configuration", .error, "the model has no configuration named '\(name)'")
    }

    /// Lowers `model`, restricted to the entities of `configuration` when one is given.
    public func lower(
        _ model: ObjectModel, configuration: String? = nil, diagnostics: DiagnosticEngine
    ) -> RelationalSchema? {
        var selected: Set<Int>?
        if let configuration, configuration != "Default" {
            guard let found = model.configurations.first(where: { $0.name == configuration }) else {
                let names = model.configurations.map { "'\($0.name)'" }
                diagnostics.report(
                    Self.unknownConfiguration(configuration), at: nil,
                    notes: [Diagnostic.Note("configurations: " + (["'Default'"] + names).joined(separator: ", "))])
                return nil
            }
            selected = Set(found.memberNames.compactMap { model.entityID(named: $0) })
        }
        let errorsBefore = diagnostics.errorCount
        let schema = layout.lower(model, entities: selected, diagnostics: diagnostics)
        return diagnostics.errorCount > errorsBefore ? nil : schema
    }
}

/// A way of laying a model out in tables.
public protocol RelationalLayout: Sendable {
    /// The name recorded in `_modelgen_metadata` (`relational`).
    var name: String { get }
    /// Lowers `model`; `entities` restricts it to the hierarchies holding those entities.
    func lower(_ model: ObjectModel, entities: Set<Int>?, diagnostics: DiagnosticEngine) -> RelationalSchema
}
