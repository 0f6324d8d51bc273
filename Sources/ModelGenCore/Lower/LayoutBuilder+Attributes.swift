extension LayoutBuilder {
    static func unstorable(_ name: String, _ type: AttributeType) -> DiagnosticMessage {
        DiagnosticMessage(
            "unstorable-attribute-type", .error,
            "attribute '\(name)' of type \(type.rawValue) cannot be stored; make it transient")
    }

    /// What storing an entity's attributes adds to its table: worked out from the model alone
    /// (no other table is touched), so entities are planned on all cores and the results added in
    /// order, with the diagnostics they would have reported.
    struct AttributeColumns: Sendable {
        var columns: [PlannedColumn] = []
        var checks: [Check.Condition] = []
        var diagnostics: [Diagnostic] = []
    }

    /// The attribute columns of every entity with a table, by entity index.
    func attributeColumnsOfEntities() -> [AttributeColumns?] {
        let included = model.entities.indices.filter { tableOfRoot[model.entities[$0].root] != nil }
        // Only read in the jobs: `attributeColumns(of:)` reads the model and the entity IDs and
        // reports nothing to the (not thread-safe) diagnostics engine.
        nonisolated(unsafe) let planner = self
        let runs = Parallel.runs(included, minimumLength: 64)
        let plans = Parallel.map(runs.count) { runs[$0].map { planner.attributeColumns(of: $0) } }
        var result = [AttributeColumns?](repeating: nil, count: model.entities.count)
        for (entity, plan) in zip(included, plans.joined()) { result[entity] = plan }
        return result
    }

    func attributeColumns(of entity: Int) -> AttributeColumns {
        var result = AttributeColumns()
        // About a column per attribute and a check for every other one (grown as needed).
        result.columns.reserveCapacity(model.entities[entity].attributes.count)
        result.checks.reserveCapacity(model.entities[entity].attributes.count)
        for (index, attribute) in model.entities[entity].attributes.enumerated() where !attribute.isTransient {
            addAttribute(attribute, at: index, of: entity, to: &result)
        }
        return result
    }

    mutating func addProperties(of entity: Int, attributes: consuming AttributeColumns?) {
        guard let tableIndex = tableOfRoot[model.entities[entity].root] else { return }
        if var attributes = attributes.take() {
            for position in attributes.columns.indices {
                let column = attributes.columns[position].column
                let name = claimColumnName(
                    column.name, table: tableIndex, entity: entity, source: column.source ?? "",
                    explicit: isNamedByUser(column, of: entity))
                if name != column.name {
                    attributes.columns[position].column.name = name
                    attributes.checks = attributes.checks.map { $0.renamingColumn(column.name, to: name) }
                }
            }
            Self.append(&attributes.columns, to: &tables[tableIndex].columns)
            Self.append(&attributes.checks, to: &tables[tableIndex].checks)
            for diagnostic in attributes.diagnostics { diagnostics.report(diagnostic) }
        }
        for position in model.entities[entity].relationships.indices
        where !model.entities[entity].relationships[position].isTransient {
            addRelationship(RelationshipRef(entity: entity, index: position), table: tableIndex)
        }
    }

    /// Whether the user named the column of an attribute of `entity` (`modelgen.sqlName`): a
    /// collision of such a name stays an error instead of being resolved.
    private func isNamedByUser(_ column: Column, of entity: Int) -> Bool {
        guard case .attribute(entity, let attribute, _)? = column.origin else { return false }
        return model.entities[entity].attributes[attribute].userInfo[StandardLayout.sqlNameKey] != nil
    }

    /// A name for a new column of `table`: `name`, or when another property of the table already
    /// has it (same-named properties of sibling sub-entities, as Core Data allows), `name` with
    /// the entity's name after it (then a number). The first entity in the hierarchy's order keeps
    /// the plain name, so adding a sibling later renames at most the new one's column. A name the
    /// user chose (`explicit`) is kept, and `checkNames` reports the collision.
    mutating func claimColumnName(_ name: String, table: Int, entity: Int, source: String, explicit: Bool) -> String {
        if takenColumnNames[table] == nil { takenColumnNames[table] = Set(tables[table].columns.map(\.column.name)) }
        var chosen = name
        if !explicit, takenColumnNames[table]!.contains(name) {
            let suffix = SQLNaming.snakeCase(model.entities[entity].name)
            chosen = SQLNaming.fitted(name + "_" + suffix)
            var number = 2
            while takenColumnNames[table]!.contains(chosen) {
                chosen = SQLNaming.fitted(name + "_" + suffix + "_\(number)")
                number += 1
            }
            renamedColumns[source] = chosen
        }
        takenColumnNames[table]!.insert(chosen)
        return chosen
    }

    /// Appends `items` to `array`, leaving `items` empty. When `items` is the longer one (a
    /// table's first entity brings its many columns to the three bookkeeping ones), the two
    /// swap places and the few are inserted in front: elements are moved, not copied.
    private static func append<T>(_ items: inout [T], to array: inout [T]) {
        if items.count > array.count {
            swap(&items, &array)
            array.insert(contentsOf: items, at: 0)
        } else {
            array += items
        }
        items = []
    }

    /// Who must have a value: `nil` when every row must (NOT NULL), else the `_entity` values of
    /// the rows that must (a required property declared on a sub-entity).
    func requirement(of entity: Int) -> [Int64]? {
        model.entities[entity].parent == nil ? nil : entityIDValues(of: entity)
    }

    func addAttribute(_ attribute: Attribute, at index: Int, of entity: Int, to table: inout AttributeColumns) {
        let location = SourceAnchor(line: attribute.line, attribute: "name")
        let source = String.concatenating(model.entities[entity].name, ".", attribute.name)
        guard attribute.type.isStorable else {
            let at = model.location(attribute.line, attribute: "attributeType")
            table.diagnostics.append(
                Diagnostic(
                    Self.unstorable(attribute.name, attribute.type), at: at.column > 1 ? at : self.location(location)))
            return
        }
        let base = sqlName(attribute.name, userInfo: attribute.userInfo)
        if attribute.type == .composite {
            guard let composite = model.composites.first(where: { $0.name == attribute.compositeName }) else { return }
            for (position, member) in composite.attributes.enumerated()
            where !member.isTransient && member.type.isStorable {
                let name = SQLNaming.fitted(base + "_" + sqlName(member.name, userInfo: member.userInfo))
                addValueColumn(
                    name, for: member, isOptional: attribute.isOptional || member.isOptional, entity: entity,
                    source: source + "." + member.name,
                    origin: .attribute(entity: entity, attribute: index, member: position), location: location,
                    to: &table)
            }
            return
        }
        addValueColumn(
            base, for: attribute, isOptional: attribute.isOptional, entity: entity, source: source,
            origin: .attribute(entity: entity, attribute: index, member: nil), location: location, to: &table)
    }

    /// Adds the column of a stored attribute with its default and checks.
    private func addValueColumn(
        _ name: String, for attribute: Attribute, isOptional: Bool, entity: Int, source: String,
        origin: ColumnOrigin, location: SourceAnchor, to table: inout AttributeColumns
    ) {
        let type = Self.columnType(attribute.type)
        let required = isOptional ? nil : requirement(of: entity)
        let isNullable = isOptional || required != nil
        table.columns.append(
            PlannedColumn(
                column: Column(
                    name: name, type: type, isNullable: isNullable,
                    defaultValue: attribute.defaultValue.map(Self.sqlValue),
                    role: .attribute, source: source, origin: origin),
                location: location))
        // Straight into the table's checks (a local array per attribute would be an allocation each).
        if let required, !isOptional { table.checks.append(.requiredFor(column: name, entityIDs: required)) }
        switch attribute.type {
        case .integer16, .integer32: table.checks.append(.integerWidth(column: name, type: type))
        case .boolean: table.checks.append(.isBoolean(column: name))
        case .uuid: table.checks.append(.byteCount(column: name, bytes: 16))
        default: break
        }
        switch attribute.type {
        case .string, .binary, .uri, .transformable:
            let minimum = attribute.minimum.flatMap(Self.integer)
            let maximum = attribute.maximum.flatMap(Self.integer)
            if minimum != nil || maximum != nil {
                table.checks.append(.length(column: name, minimum: minimum, maximum: maximum))
            }
        case .integer16, .integer32, .integer64, .decimal, .double, .float, .date:
            if attribute.minimum != nil || attribute.maximum != nil {
                table.checks.append(
                    .range(
                        column: name, minimum: attribute.minimum.map(Self.sqlValue),
                        maximum: attribute.maximum.map(Self.sqlValue)))
            }
        default: break
        }
        if let pattern = attribute.regularExpression, !pattern.isEmpty, attribute.type == .string {
            table.checks.append(.matches(column: name, pattern: pattern))
        }
    }

    static func columnType(_ type: AttributeType) -> ColumnType {
        switch type {
        case .integer16: .integer16
        case .integer32: .integer32
        case .integer64: .integer64
        case .decimal: .decimal
        case .double: .double
        case .float: .float
        case .string: .text
        case .boolean: .boolean
        case .date: .date
        case .binary, .transformable: .blob
        case .uuid: .uuid
        case .uri: .uri
        case .composite, .objectID, .undefined: .blob
        }
    }

    static func sqlValue(_ value: AttributeValue) -> SQLValue {
        switch value {
        case .integer(let number): .integer(number)
        case .decimal(let text): .decimal(text)
        case .double(let number): .real(number)
        case .string(let text), .uri(let text): .text(text)
        case .bool(let flag): .bool(flag)
        case .date(let seconds): .date(seconds)
        case .uuid(let text): .uuid(text)
        }
    }

    static func integer(_ value: AttributeValue) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }
}

extension Check.Condition {
    /// The same condition on column `new` where it was on `old`.
    func renamingColumn(_ old: String, to new: String) -> Check.Condition {
        func renamed(_ column: String) -> String { column == old ? new : column }
        switch self {
        case .oneOf(let column, let values): return .oneOf(column: renamed(column), values: values)
        case .range(let column, let minimum, let maximum):
            return .range(column: renamed(column), minimum: minimum, maximum: maximum)
        case .length(let column, let minimum, let maximum):
            return .length(column: renamed(column), minimum: minimum, maximum: maximum)
        case .integerWidth(let column, let type): return .integerWidth(column: renamed(column), type: type)
        case .requiredFor(let column, let entityIDs): return .requiredFor(column: renamed(column), entityIDs: entityIDs)
        case .matches(let column, let pattern): return .matches(column: renamed(column), pattern: pattern)
        case .isBoolean(let column): return .isBoolean(column: renamed(column))
        case .byteCount(let column, let bytes): return .byteCount(column: renamed(column), bytes: bytes)
        }
    }
}
