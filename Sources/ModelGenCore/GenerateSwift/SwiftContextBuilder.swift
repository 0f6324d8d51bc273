import Mustache

private typealias Key = ContextKey

/// Builds what the Swift templates see: every decision (names, types, slots, columns, storage,
/// sort orders, parameter types) is made here, so templates only print.
///
/// `modelgen dump --stage swift` prints this context; Documentation/Templates.md describes it.
struct SwiftContextBuilder {
    let model: ObjectModel
    let schema: RelationalSchema
    let options: SwiftGenerationOptions

    /// Class name per entity index (entities of the schema only).
    private(set) var classNames: [Int: String] = [:]
    /// Stored attributes per entity index, inherited first: (declaring entity, attribute).
    private(set) var storedAttributes: [Int: [StoredAttribute]] = [:]
    /// Relationships with storage per entity index, inherited first.
    private(set) var relationships: [Int: [PlannedRelationship]] = [:]
    let mappings: [String: EntityMapping]
    /// Tables by name.
    let tables: [String: Table]
    /// Join tables by the `Entity.relationship` their link columns store.
    let joinTables: [String: Table]
    /// Every generated class name, and the model type's name.
    private(set) var takenNames: Set<String> = []
    private(set) var modelTypeName = ""

    /// A stored attribute (or a composite attribute's member) of an entity: what the templates and
    /// the runtime metadata need of it, copied out of the model once (not the whole `Attribute`:
    /// a 2,000-entity model has 40,000 of these, and copies of the full attribute were tens of
    /// megabytes of memory).
    struct StoredAttribute {
        var declaringEntity: Int
        /// The attribute's name (the composite attribute's, for a member).
        var name: String
        /// For a composite member: the member's name.
        var memberName: String?
        /// For a composite member: the composite type's name.
        var compositeName: String?
        /// What is stored (the member's, for a composite member).
        var type: AttributeType
        var isOptional: Bool
        var defaultValue: AttributeValue?
        var minimum: AttributeValue?
        var maximum: AttributeValue?
        var regularExpression: String?
        var valueType: SwiftValueType
        var column: String
        var columnOffset: Int

        init(declaringEntity: Int, attribute: Attribute, member: Attribute?, valueType: SwiftValueType, column: String, columnOffset: Int) {
            let stored = member ?? attribute
            self.declaringEntity = declaringEntity
            name = attribute.name
            memberName = member?.name
            compositeName = member == nil ? nil : attribute.compositeName
            type = stored.type
            isOptional = stored.isOptional
            defaultValue = stored.defaultValue
            minimum = stored.minimum
            maximum = stored.maximum
            regularExpression = stored.regularExpression
            self.valueType = valueType
            self.column = column
            self.columnOffset = columnOffset
        }

        /// The key dynamic access uses (`name`, or `location.latitude` for a composite member).
        var key: String { memberName.map { name + "." + $0 } ?? name }
        var isMember: Bool { memberName != nil }
    }

    init(model: ObjectModel, schema: RelationalSchema, options: SwiftGenerationOptions) {
        self.model = model
        self.schema = schema
        self.options = options
        mappings = Dictionary(schema.entities.map { ($0.entity, $0) }, uniquingKeysWith: { first, _ in first })
        tables = Dictionary(schema.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var joins: [String: Table] = [:]
        for table in schema.tables where table.kind == .join {
            for column in table.columns where column.role == .join {
                if let source = column.source, joins[source] == nil { joins[source] = table }
            }
        }
        joinTables = joins
        assignClassNames()
        takenNames = Set(classNames.values)
        var modelType = SwiftNames.sanitized(model.modelName ?? model.versionName ?? "Generated") + "Model"
        while takenNames.contains(modelType) { modelType += "_" }
        modelTypeName = modelType
        // Each entity is planned on its own (from the model, the schema and the class names), so
        // runs of entities are planned on all cores.
        let included = model.entities.indices.filter { mappings[model.entities[$0].name] != nil }
        let planner = self
        let runs = Parallel.runs(included, minimumLength: 64)
        let plans = Parallel.map(runs.count) { run in
            runs[run].map { index in (index, planner.planAttributes(index), planner.planRelationships(index)) }
        }
        for (index, attributes, relationships) in plans.joined() {
            storedAttributes[index] = attributes
            self.relationships[index] = relationships
        }
    }

    var access: String { options.access == .public ? "public " : "" }

    // MARK: - Names

    private mutating func assignClassNames() {
        var taken: Set<String> = []
        let included = model.entities.indices.filter { mappings[model.entities[$0].name] != nil }
        // Entity names are unique; a represented class name shared by two entities, or reserved,
        // falls back to the entity name.
        var wanted: [Int: String] = [:]
        var counts: [String: Int] = [:]
        for index in included {
            let entity = model.entities[index]
            let name = SwiftNames.className(fromRepresented: entity.representedClassName) ?? SwiftNames.sanitized(entity.name)
            wanted[index] = name
            counts[name, default: 0] += 1
        }
        for index in included {
            var name = wanted[index]!
            if counts[name]! > 1 { name = SwiftNames.sanitized(model.entities[index].name) }
            if SwiftNames.reservedTypeNames.contains(name) || SwiftNames.keywords.contains(name) { name += "Entity" }
            while taken.contains(name) { name += "_" }
            taken.insert(name)
            classNames[index] = name
        }
    }

    /// The Swift name of a model type (`String`), qualified when a generated class took it.
    func typeName(_ name: String) -> String {
        guard takenNames.contains(name) else { return name }
        let foundation: Set<String> = ["Date", "Data", "UUID", "URL", "Decimal"]
        return (foundation.contains(name) ? "Foundation." : "Swift.") + name
    }

    /// A property's Swift name: verbatim, back-quoted if a keyword, `_`-suffixed if it would
    /// clash with a member of `ManagedObject`.
    static func propertyName(_ name: String) -> String {
        SwiftNames.identifier(SwiftNames.reservedMembers.contains(name) ? name + "_" : name)
    }

    /// The chain from the root entity down to `index`.
    func lineage(_ index: Int) -> [Int] {
        var chain = [index]
        var seen: Set<Int> = [index]
        while let parent = model.entities[chain[0]].parent, seen.insert(parent).inserted { chain.insert(parent, at: 0) }
        return chain
    }

    // MARK: - Attributes

    private func planAttributes(_ index: Int) -> [StoredAttribute] {
        let entity = model.entities[index]
        guard let mapping = mappings[entity.name], let table = tables[mapping.table] else { return [] }
        let dataColumns = Array(table.columns.filter { $0.role != .primaryKey && $0.role != .entity && $0.role != .version })
        var offsets: [String: (String, Int)] = [:]
        for (offset, column) in dataColumns.enumerated() {
            if let source = column.source, column.role == .attribute { offsets[source] = (column.name, offset) }
        }
        var result: [StoredAttribute] = []
        for declaring in lineage(index) {
            let owner = model.entities[declaring]
            for attribute in owner.attributes where !attribute.isTransient {
                if attribute.type == .composite {
                    guard let composite = model.composites.first(where: { $0.name == attribute.compositeName }) else { continue }
                    for member in composite.attributes where !member.isTransient {
                        guard let valueType = SwiftValueType(member.type),
                            let (column, offset) = offsets[String.concatenating(owner.name, ".", attribute.name, ".", member.name)]
                        else { continue }
                        result.append(
                            StoredAttribute(
                                declaringEntity: declaring, attribute: attribute, member: member, valueType: valueType, column: column,
                                columnOffset: offset))
                    }
                    continue
                }
                guard let valueType = SwiftValueType(attribute.type), let (column, offset) = offsets[String.concatenating(owner.name, ".", attribute.name)]
                else { continue }
                result.append(
                    StoredAttribute(
                        declaringEntity: declaring, attribute: attribute, member: nil, valueType: valueType, column: column, columnOffset: offset))
            }
        }
        return result
    }

    /// The context of one stored attribute (slot `slot`).
    func attributeContext(_ stored: StoredAttribute, slot: Int, className: String, into context: inout MustacheTreeBuilder) -> MustacheTree.Ref {
        let swiftType = typeName(stored.valueType.swiftName)
        let initial: String
        if let value = stored.defaultValue {
            initial = stored.valueType.literal(value)
        } else {
            initial = stored.isOptional ? "nil" : stored.valueType.placeholder
        }
        let mark = context.beginObject()
        context.member(Key.name, Self.propertyName(stored.name))
        context.member(Key.key, SwiftNames.literal(stored.key))
        context.member(Key.storage, context.string { $0.append(UInt8(ascii: "_")); $0.append(contentsOf: SwiftNames.sanitized(stored.key).utf8) })
        context.member(Key.type, context.string { $0.append(contentsOf: swiftType.utf8); if stored.isOptional { $0.append(UInt8(ascii: "?")) } })
        context.member(Key.wrappedType, swiftType)
        context.member(Key.isOptional, stored.isOptional)
        context.member(Key.checker, stored.isOptional ? "checkedOptionalValue" : "checkedValue")
        context.member(Key.initialValue, initial)
        context.member(Key.slot, slot)
        context.member(Key.maskBit, context.string { $0.append(contentsOf: "1 << ".utf8); $0.append(contentsOf: String(min(slot, 63)).utf8) })
        context.member(Key.columnOffset, stored.columnOffset)
        context.member(Key.description, attributeMetadata(stored).swiftExpression)
        context.member(Key.className, className)
        return context.endObject(mark)
    }

    /// What the runtime reads about a stored attribute.
    func attributeMetadata(_ stored: StoredAttribute) -> RuntimeEntityMetadata.Attribute {
        let number = { (value: AttributeValue?) in value?.numericValue.flatMap { SwiftValueType.doubleLiteral($0) == nil ? nil : $0 } }
        let pattern = stored.regularExpression.flatMap { !$0.isEmpty && stored.type == .string ? $0 : nil }
        return RuntimeEntityMetadata.Attribute(
            key: stored.key, column: stored.column, type: String(stored.valueType.runtimeCase.dropFirst()), isOptional: stored.isOptional,
            hasDefault: stored.defaultValue != nil, minimum: number(stored.minimum), maximum: number(stored.maximum), pattern: pattern)
    }
}
