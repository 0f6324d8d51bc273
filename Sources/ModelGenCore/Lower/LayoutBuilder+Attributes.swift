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
        for attribute in model.entities[entity].attributes where !attribute.isTransient {
            addAttribute(attribute, of: entity, to: &result)
        }
        return result
    }

    mutating func addProperties(of entity: Int, attributes: consuming AttributeColumns?) {
        guard let tableIndex = tableOfRoot[model.entities[entity].root] else { return }
        if var attributes = attributes.take() {
            Self.append(&attributes.columns, to: &tables[tableIndex].columns)
            Self.append(&attributes.checks, to: &tables[tableIndex].checks)
            for diagnostic in attributes.diagnostics { diagnostics.report(diagnostic) }
        }
        for position in model.entities[entity].relationships.indices where !model.entities[entity].relationships[position].isTransient {
            addRelationship(RelationshipRef(entity: entity, index: position), table: tableIndex)
        }
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

    func addAttribute(_ attribute: Attribute, of entity: Int, to table: inout AttributeColumns) {
        let location = SourceAnchor(line: attribute.line, attribute: "name")
        let source = String.concatenating(model.entities[entity].name, ".", attribute.name)
        guard attribute.type.isStorable else {
            let at = model.location(attribute.line, attribute: "attributeType")
            table.diagnostics.append(Diagnostic(Self.unstorable(attribute.name, attribute.type), at: at.column > 1 ? at : self.location(location)))
            return
        }
        let base = sqlName(attribute.name, userInfo: attribute.userInfo)
        if attribute.type == .composite {
            guard let composite = model.composites.first(where: { $0.name == attribute.compositeName }) else { return }
            for member in composite.attributes where !member.isTransient && member.type.isStorable {
                let name = SQLNaming.fitted(base + "_" + sqlName(member.name, userInfo: member.userInfo))
                addValueColumn(
                    name, for: member, isOptional: attribute.isOptional || member.isOptional, entity: entity,
                    source: source + "." + member.name, location: location, to: &table)
            }
            return
        }
        addValueColumn(base, for: attribute, isOptional: attribute.isOptional, entity: entity, source: source, location: location, to: &table)
    }

    /// Adds the column of a stored attribute with its default and checks.
    private func addValueColumn(
        _ name: String, for attribute: Attribute, isOptional: Bool, entity: Int, source: String,
        location: SourceAnchor, to table: inout AttributeColumns
    ) {
        let type = Self.columnType(attribute.type)
        let required = isOptional ? nil : requirement(of: entity)
        let isNullable = isOptional || required != nil
        table.columns.append(
            PlannedColumn(
                column: Column(
                    name: name, type: type, isNullable: isNullable, defaultValue: attribute.defaultValue.map(Self.sqlValue),
                    role: .attribute, source: source),
                location: location))
        // Straight into the table's checks (a local array per attribute was an allocation each).
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
            if minimum != nil || maximum != nil { table.checks.append(.length(column: name, minimum: minimum, maximum: maximum)) }
        case .integer16, .integer32, .integer64, .decimal, .double, .float, .date:
            if attribute.minimum != nil || attribute.maximum != nil {
                table.checks.append(
                    .range(column: name, minimum: attribute.minimum.map(Self.sqlValue), maximum: attribute.maximum.map(Self.sqlValue)))
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
