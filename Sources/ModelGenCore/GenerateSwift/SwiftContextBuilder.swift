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

    /// Class name per entity index (entities of the schema only). These three are arrays with a
    /// place per entity, not dictionaries: they are read thousands of times per entity.
    private(set) var classNames: [String?]
    /// Stored attributes per entity index, inherited first: (declaring entity, attribute).
    private(set) var storedAttributes: [[StoredAttribute]?]
    /// Relationships with storage per entity index, inherited first.
    private(set) var relationships: [[PlannedRelationship]?]
    /// Each entity's mapping (the first for its name) and the index of its table in
    /// `schema.tables` (the first of that name), by entity index: found once, not by hashing
    /// names again and again.
    let entityMappings: [EntityMapping?]
    let entityTables: [Int?]
    /// The index of each join table in `schema.tables`, by the relationship that owns it.
    let joinTables: [RelationshipRef: Int]
    /// Every generated class name, and the model type's name.
    private(set) var takenNames: Set<String> = []
    /// Whether no generated class took the name of an attribute's Swift value type (`Date`, …),
    /// so those need no qualifying: checked once, where looking each of 40,000 attributes' type
    /// up in `takenNames` hashed the name each time.
    private var valueTypesAreUnshadowed = false
    private(set) var modelTypeName = ""
    /// The header line of every generated file.
    let header: String

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
        /// The attribute's renaming identifier where it differs from its name (not a member's).
        var renamingIdentifier: String?
        var valueType: SwiftValueType
        var column: String
        var columnOffset: Int
        /// The property's Swift name (`propertyName(name)`), and the Swift type of its value
        /// (`typeName(valueType.swiftName)`): each used several times per attribute, made once.
        var propertyName: String
        var swiftType: String
        /// The program's own Swift type of the attribute, when the model names one.
        var typed: SwiftTypedValue?
        /// Whether the property's Swift type is optional: an optional attribute, or a typed one
        /// without a value that stands for "unset" (a `Codable` type; a raw value without a default).
        var isSwiftOptional: Bool

        init(
            declaringEntity: Int, attribute: Attribute, member: Attribute?, valueType: SwiftValueType,
            swiftType: String, column: String,
            columnOffset: Int
        ) {
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
            renamingIdentifier = member == nil ? attribute.elementID.flatMap { $0 == attribute.name ? nil : $0 } : nil
            self.valueType = valueType
            self.column = column
            self.columnOffset = columnOffset
            propertyName = SwiftContextBuilder.propertyName(attribute.name)
            let typed = member == nil ? SwiftTypedValue(attribute) : nil
            self.typed = typed
            self.swiftType = typed?.typeName ?? swiftType
            isSwiftOptional =
                stored.isOptional || (typed.map { $0.kind != .rawValue || stored.defaultValue == nil } ?? false)
        }

        /// The key dynamic access uses (`name`, or `location.latitude` for a composite member).
        var key: String { memberName.map { name + "." + $0 } ?? name }
        /// Whether values can be compared in a predicate (a `Codable` type's cannot).
        var isComparable: Bool { valueType.isComparable && (typed.map { $0.kind == .rawValue } ?? true) }
        var isMember: Bool { memberName != nil }
    }

    init(model: ObjectModel, schema: RelationalSchema, options: SwiftGenerationOptions) {
        self.model = model
        self.schema = schema
        self.options = options
        classNames = Array(repeating: nil, count: model.entities.count)
        storedAttributes = Array(repeating: nil, count: model.entities.count)
        relationships = Array(repeating: nil, count: model.entities.count)
        let mappings = Dictionary(schema.entities.map { ($0.entity, $0) }, uniquingKeysWith: { first, _ in first })
        let tableIndices = Dictionary(
            schema.tables.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        entityMappings = model.entities.map { mappings[$0.name] }
        entityTables = entityMappings.map { $0.flatMap { tableIndices[$0.table] } }
        var joins: [RelationshipRef: Int] = [:]
        for (index, table) in schema.tables.enumerated() where table.kind == .join {
            for column in table.columns {
                if case .joinSource(let entity, let relationship)? = column.origin {
                    joins[RelationshipRef(entity: entity, index: relationship)] = index
                }
            }
        }
        joinTables = joins
        let version = model.versionName ?? model.modelName ?? "model"
        // The second line keeps swift-format (lint and format) off the file, for packages that
        // commit the generated code and check their style.
        header =
            "// Generated by modelgen \(ModelGenVersion.current) from \(options.sourceName.commentSafe) (\(version.commentSafe)). DO NOT EDIT.\n// swift-format-ignore-file"
        assignClassNames()
        takenNames = Set(classNames.compactMap { $0 })
        var modelType = SwiftNames.sanitized(model.modelName ?? model.versionName ?? "Generated") + "Model"
        while takenNames.contains(modelType) { modelType += "_" }
        modelTypeName = modelType
        valueTypesAreUnshadowed = !AttributeType.allCases.contains { type in
            SwiftValueType(type).map { takenNames.contains($0.swiftName) } ?? false
        }
        // Each entity is planned on its own (from the model, the schema and the class names), so
        // runs of entities are planned on all cores.
        let included = model.entities.indices.filter { entityMappings[$0] != nil }
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

    var access: String { options.access.modifier }

    // MARK: - Names

    private mutating func assignClassNames() {
        var taken: Set<String> = []
        let included = model.entities.indices.filter { entityMappings[$0] != nil }
        // Entity names are unique; a represented class name shared by two entities, or reserved,
        // falls back to the entity name.
        var wanted: [Int: String] = [:]
        var counts: [String: Int] = [:]
        for index in included {
            // Read in place: a copy of the entity would retain and release all its arrays.
            let name =
                SwiftNames.className(fromRepresented: model.entities[index].representedClassName)
                ?? SwiftNames.sanitized(model.entities[index].name)
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

    /// `typeName(valueType.swiftName)`.
    private func valueTypeName(_ valueType: SwiftValueType) -> String {
        valueTypesAreUnshadowed ? valueType.swiftName : typeName(valueType.swiftName)
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
        // An inheritance cycle (reported by validation) is cut where it comes round (hierarchies
        // are shallow: a scan, no set).
        while let parent = model.entities[chain[chain.count - 1]].parent, !chain.contains(parent) {
            chain.append(parent)
        }
        chain.reverse()
        return chain
    }

    // MARK: - Attributes

    /// The table of entity `index`.
    func table(of index: Int) -> Table? {
        entityTables[index].map { schema.tables[$0] }
    }

    private func planAttributes(_ index: Int) -> [StoredAttribute] {
        guard let tableIndex = entityTables[index] else { return [] }
        let columns = schema.tables[tableIndex].columns
        // The attribute columns, with their places among the data columns (all but `_pk`,
        // `_entity` and `_version`), in table order.
        var candidates: [(column: Int, offset: Int)] = []
        candidates.reserveCapacity(columns.count)
        var offset = 0
        // By index: enumerating copied each column (its strings retained) out.
        for position in columns.indices {
            let role = columns[position].role
            guard role != .primaryKey && role != .entity && role != .version else { continue }
            if role == .attribute, columns[position].origin != nil { candidates.append((position, offset)) }
            offset += 1
        }
        // The lowering writes an entity's attribute columns in the order of its lineage's
        // attributes, so the next candidate is nearly always the one: it is checked first, then
        // the others, by origin in a dictionary for a long table.
        var next = 0
        var byOrigin: [ColumnOrigin: Int]?
        func findColumn(_ origin: ColumnOrigin) -> (String, Int)? {
            var found: Int?
            if next < candidates.count, columns[candidates[next].column].origin == origin {
                found = next
            } else if candidates.count <= 64 {
                // A short table is searched (an attribute may have no column of its own).
                found = candidates.firstIndex { columns[$0.column].origin == origin }
            } else {
                if byOrigin == nil {
                    var origins: [ColumnOrigin: Int] = [:]
                    for (candidate, place) in candidates.enumerated() {
                        origins[columns[place.column].origin!] = candidate
                    }
                    byOrigin = origins
                }
                found = byOrigin![origin]
            }
            guard let found else { return nil }
            next = found + 1
            return (columns[candidates[found].column].name, candidates[found].offset)
        }
        var result: [StoredAttribute] = []
        result.reserveCapacity(candidates.count)
        for declaring in lineage(index) {
            // By index: a loop over the array would copy each (large) attribute out.
            for position in model.entities[declaring].attributes.indices
            where !model.entities[declaring].attributes[position].isTransient {
                let attribute = model.entities[declaring].attributes[position]
                if attribute.type == .composite {
                    guard let composite = model.composites.first(where: { $0.name == attribute.compositeName }) else {
                        continue
                    }
                    for (memberIndex, member) in composite.attributes.enumerated() where !member.isTransient {
                        guard let valueType = SwiftValueType(member.type),
                            let (column, offset) = findColumn(
                                .attribute(entity: declaring, attribute: position, member: memberIndex))
                        else { continue }
                        result.append(
                            StoredAttribute(
                                declaringEntity: declaring, attribute: attribute, member: member, valueType: valueType,
                                swiftType: valueTypeName(valueType), column: column, columnOffset: offset))
                    }
                    continue
                }
                guard let valueType = SwiftValueType(attribute.type),
                    let (column, offset) = findColumn(.attribute(entity: declaring, attribute: position, member: nil))
                else { continue }
                result.append(
                    StoredAttribute(
                        declaringEntity: declaring, attribute: attribute, member: nil, valueType: valueType,
                        swiftType: valueTypeName(valueType), column: column, columnOffset: offset))
            }
        }
        return result
    }

    /// The context of one stored attribute (slot `slot`).
    func attributeContext(
        _ stored: StoredAttribute, slot: Int, className: String, into context: inout MustacheTreeBuilder
    ) -> MustacheTree.Ref {
        let initial: String
        if let typed = stored.typed {
            // A raw value's default, which the program's type must have.
            initial =
                stored.isSwiftOptional
                ? "nil"
                : stored.defaultValue.map {
                    "rawValueDefault(\(typed.typeName).self, \(stored.valueType.literal($0)), \(SwiftNames.literal(className + "." + stored.key)))"
                } ?? "nil"
        } else if let value = stored.defaultValue {
            initial = stored.valueType.literal(value)
        } else {
            initial = stored.isOptional ? "nil" : stored.valueType.placeholder
        }
        let mark = context.beginObject()
        context.member(Key.name, stored.propertyName)
        context.member(Key.key, context.string { SwiftNames.appendLiteral(stored.key, to: &$0) })
        context.member(Key.storage, context.string("_", SwiftNames.sanitized(stored.key)))
        context.member(Key.type, context.string(stored.swiftType, stored.isSwiftOptional ? "?" : ""))
        context.member(Key.wrappedType, stored.swiftType)
        context.member(Key.isOptional, stored.isSwiftOptional)
        let converted = stored.typed == nil ? "" : "Converted"
        context.member(
            Key.checker, stored.isSwiftOptional ? "checkedOptional\(converted)Value" : "checked\(converted)Value")
        context.member(Key.isPlainValue, stored.typed == nil)
        context.member(Key.isRawValue, stored.typed?.kind == .rawValue)
        if let coding = stored.typed?.codingExpression {
            context.member(Key.isCoded, true)
            context.member(Key.coding, coding)
        }
        if let typed = stored.typed {
            context.member(Key.requirement, typed.requirement(rawType: stored.valueType.swiftName))
        }
        context.member(Key.initialValue, initial)
        context.member(Key.hasDefault, stored.defaultValue != nil)
        context.member(Key.slot, slot)
        context.member(
            Key.maskBit,
            context.string {
                $0.append("1 << ")
                $0.append(integer: Int64(min(slot, 63)))
            })
        context.member(Key.columnOffset, stored.columnOffset)
        context.member(Key.description, context.string { attributeMetadata(stored).appendSwiftExpression(to: &$0) })
        context.member(Key.className, className)
        return context.endObject(mark)
    }

    /// What the runtime reads about a stored attribute.
    func attributeMetadata(_ stored: StoredAttribute) -> RuntimeEntityMetadata.Attribute {
        let number = { (value: AttributeValue?) in
            value?.numericValue.flatMap { SwiftValueType.doubleLiteral($0) == nil ? nil : $0 }
        }
        let pattern = stored.regularExpression.flatMap { !$0.isEmpty && stored.type == .string ? $0 : nil }
        return RuntimeEntityMetadata.Attribute(
            key: stored.key, column: stored.column, type: stored.valueType.runtimeCase, isOptional: stored.isOptional,
            hasDefault: stored.defaultValue != nil, minimum: number(stored.minimum), maximum: number(stored.maximum),
            pattern: pattern,
            conversion: stored.typed?.conversionExpression, renamingIdentifier: stored.renamingIdentifier)
    }
}
