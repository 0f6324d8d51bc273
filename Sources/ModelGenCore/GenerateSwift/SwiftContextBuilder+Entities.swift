import Mustache

private typealias Key = ContextKey

extension SwiftContextBuilder {
    /// Entities that get Swift code, in model order.
    var generatedEntities: [Int] { model.entities.indices.filter { classNames[$0] != nil } }

    /// The context of entity `index`'s file.
    func entityContext(_ index: Int) -> MustacheTree {
        let entity = model.entities[index]
        let className = classNames[index]!
        let mapping = entityMappings[index]!
        let all = storedAttributes[index] ?? []
        let planned = relationships[index] ?? []
        var context = MustacheTreeBuilder()
        // About what the built-in templates' context of an entity holds per attribute and relationship.
        context.reserveCapacity(
            bytes: 1_024 + all.count * 400 + planned.count * 900, values: 64 + all.count * 15 + planned.count * 19)
        let inheritedCount = min(entity.parent.map { storedAttributes[$0]?.count ?? 0 } ?? 0, all.count)
        // By index: enumerating would copy each attribute's record out.
        let attributeContexts = all.indices.map {
            attributeContext(all[$0], slot: $0, className: className, into: &context)
        }
        let inheritedRelationships = min(entity.parent.map { relationships[$0]?.count ?? 0 } ?? 0, planned.count)
        let relationshipContexts = planned.enumerated().map {
            relationshipContext($1, index: $0, entity: index, into: &context)
        }
        let isCategory = entity.codeGeneration == .category
        let hasSubentities = entity.subentities.contains { classNames[$0] != nil }
        let superclass = entity.parent.flatMap { classNames[$0] } ?? "ManagedObject"
        let overrideAccess = options.access.runtimeFacingModifier + "override "
        let uniquenessSets = uniquenessSlots(index)
        let composites = compositeContexts(index, inheritedCount: inheritedCount, into: &context)
        let transients = transientContexts(index, into: &context)
        let assignments = initializerAssignments(all, into: &context)
        let finds = findContexts(index, className: className, into: &context)
        let fetchRequests = fetchRequestContexts(index, className: className, into: &context)
        let fetchedProperties = fetchedPropertyContexts(index, into: &context)
        let mark = context.beginObject()
        context.member(Key.header, header)
        context.member(Key.observable, options.observable)
        context.member(Key.access, access)
        context.member(Key.partOfFile, options.singleFile != nil)
        context.member(Key.overrideAccess, overrideAccess)
        context.member(Key.spiAccess, options.access.runtimeFacingModifier)
        context.member(Key.className, className)
        context.member(Key.entityName, entity.name)
        context.member(Key.entityNameLiteral, SwiftNames.literal(entity.name))
        context.member(Key.superclass, superclass)
        context.member(Key.classKeyword, hasSubentities ? "class" : "final class")
        context.member(Key.isClass, !isCategory)
        context.member(Key.isCategory, isCategory)
        context.member(Key.isAbstract, entity.isAbstract)
        if let renamed = entity.elementID, renamed != entity.name {
            context.member(Key.renamingIdentifier, SwiftNames.literal(renamed))
        }
        let isRoot = entity.parent.flatMap { classNames[$0] } == nil
        context.member(Key.isRoot, isRoot)
        if isRoot {
            let identity = identity(ofHierarchy: index)
            context.member(Key.isIdentifiable, identity != .none)
            context.member(Key.identifiedByObject, identity == .object)
        }
        // A `category` entity below has no class of its own from the generator: its objects reach
        // this class's overrides, which hand them on to the runtime's (entity, slots, storage).
        let below = entity.subentities.isEmpty ? [] : descendants(of: index).filter { $0 != index }
        let categoryBelow = below.contains { model.entities[$0].codeGeneration == .category }
        context.member(Key.categoryBelow, categoryBelow)
        // Observation: classes of lineages without a `category` entity (whose class is the
        // program's); the root declares the registrar and the conformance.
        let observes =
            options.observable && lineage(index).allSatisfy { model.entities[$0].codeGeneration != .category }
        context.member(Key.observes, observes)
        context.member(Key.declaresObservation, observes && isRoot)
        if isCategory { categoryMembers(index, below: below, into: &context) }
        // `read`/`bind` call the base class's when there is a generated parent, or when a
        // `category` entity below keeps its values in the runtime's storage (which the base reads).
        context.member(Key.callsBase, !isRoot || categoryBelow)
        context.member(Key.entityID, mapping.entityID)
        // Lists of numbers and names are written straight into the tree (no arrays of strings).
        let fetchedIDs = fetchedEntityIDs(index)
        context.member(
            Key.fetchedEntityIDs,
            context.string { Self.appendList(fetchedIDs, to: &$0) { $1.append(integer: Int64($0)) } })
        context.member(Key.table, SwiftNames.literal(mapping.table))
        context.member(Key.columns, context.string { text in appendDataColumnLiterals(index, to: &text) })
        context.member(
            Key.uniquenessConstraints,
            context.string { text in
                Self.appendList(uniquenessSets, to: &text) { constraint, text in
                    // Attributes only: a list of slots (the runtime's type reads an array literal).
                    guard !constraint.relationships.isEmpty else {
                        return Self.appendList(constraint.attributes, to: &text) { $1.append(integer: Int64($0)) }
                    }
                    text.append("UniquenessConstraint(attributes: ")
                    Self.appendList(constraint.attributes, to: &text) { $1.append(integer: Int64($0)) }
                    text.append(", relationships: ")
                    Self.appendList(constraint.relationships, to: &text) { $1.append(integer: Int64($0)) }
                    text.append(")")
                }
            })
        context.member(Key.attributes, context.list(attributeContexts))
        let transientDefaults = transientDefaultsLiteral(index)
        context.member(Key.hasTransients, transientDefaults != nil)
        context.member(Key.transientDefaults, transientDefaults ?? "[:]")
        let keyPathAttributes = context.beginList()
        for slot in all.indices where !all[slot].isMember { context.item(attributeContexts[slot]) }
        context.member(Key.keyPathAttributes, context.endList(keyPathAttributes))
        context.member(Key.ownAttributes, context.list(attributeContexts[inheritedCount...]))
        let ownPlainAttributes = context.beginList()
        for slot in inheritedCount..<all.count where !all[slot].isMember { context.item(attributeContexts[slot]) }
        context.member(Key.ownPlainAttributes, context.endList(ownPlainAttributes))
        let ownTypedAttributes = context.beginList()
        for slot in inheritedCount..<all.count where all[slot].typed != nil { context.item(attributeContexts[slot]) }
        context.member(Key.ownTypedAttributes, context.endList(ownTypedAttributes))
        context.member(Key.hasOwnTypedAttributes, all[inheritedCount...].contains { $0.typed != nil })
        context.member(Key.hasOwnAttributes, inheritedCount < all.count)
        context.member(Key.composites, composites)
        context.member(Key.transients, transients)
        context.member(Key.relationships, context.list(relationshipContexts))
        context.member(Key.ownRelationships, context.list(relationshipContexts[inheritedRelationships...]))
        context.member(Key.hasRelationships, !relationshipContexts.isEmpty)
        context.member(Key.initializerParameters, context.string { Self.appendInitializerParameters(all, to: &$0) })
        context.member(Key.initializerAssignments, assignments)
        context.member(Key.finds, finds)
        context.member(Key.fetchRequests, fetchRequests)
        context.member(Key.fetchedProperties, fetchedProperties)
        context.member(Key.modelTypeName, modelTypeName)
        return context.finish(root: context.endObject(mark))
    }

    /// What the runtime reads about entity `index` (the generated `EntityDescription`).
    func runtimeMetadata(_ index: Int) -> RuntimeEntityMetadata {
        let entity = model.entities[index]
        let mapping = entityMappings[index]!
        return RuntimeEntityMetadata(
            name: entity.name, parent: entity.parent.map { model.entities[$0].name }, isAbstract: entity.isAbstract,
            table: mapping.table,
            entityID: Int64(mapping.entityID), fetchedEntityIDs: fetchedEntityIDs(index).map(Int64.init),
            attributes: (storedAttributes[index] ?? []).map(attributeMetadata),
            relationships: (relationships[index] ?? []).map(relationshipMetadata),
            columns: dataColumns(index), uniquenessConstraints: uniquenessSlots(index),
            renamingIdentifier: entity.elementID.flatMap { $0 == entity.name ? nil : $0 })
    }

    /// The `_entity` numbers of entity `index` and its sub-entities, ascending.
    private func fetchedEntityIDs(_ index: Int) -> [Int] {
        descendants(of: index).compactMap { entityMappings[$0] }.map(\.entityID).sorted()
    }

    /// The data columns of entity `index`'s table: all but `_pk`, `_entity`, `_version`.
    private func dataColumns(_ index: Int) -> [String] {
        let table = table(of: index)
        return (table?.columns ?? []).filter { Self.isDataColumn($0.role) }.map(\.name)
    }

    private static func isDataColumn(_ role: Column.Role) -> Bool {
        role != .primaryKey && role != .entity && role != .version
    }

    /// `["title", "quantity", …]`: `dataColumns(index)` as a Swift array literal, the columns read
    /// in place (by position).
    private func appendDataColumnLiterals(_ index: Int, to text: inout TextBuffer) {
        let columns = entityTables[index].map { schema.tables[$0].columns } ?? []
        text.append("[")
        var first = true
        // Roles compared in place: a whole column passed to a function would be a copy (its
        // strings retained and released), as long as the rest of this list.
        for position in columns.indices where Self.isDataColumn(columns[position].role) {
            if !first { text.append(", ") }
            first = false
            SwiftNames.appendLiteral(columns[position].name, to: &text)
        }
        text.append("]")
    }

    /// `[a, b, …]` of `items`, each written by `write`.
    static func appendList<T>(_ items: [T], to text: inout TextBuffer, _ write: (T, inout TextBuffer) -> Void) {
        text.append("[")
        for (position, item) in items.enumerated() {
            if position > 0 { text.append(", ") }
            write(item, &text)
        }
        text.append("]")
    }

    /// What a `category` entity's extension names: the topmost `category` entity of a lineage
    /// declares the conformance to `GeneratedEntity` (a subclass cannot declare it again) and its
    /// members hand each `category` class below to that class's own members, which are named
    /// after it (static members of an extension cannot be overridden or redeclared).
    /// `below`: the entity's descendants.
    private func categoryMembers(_ index: Int, below descendants: [Int], into context: inout MustacheTreeBuilder) {
        var root = index
        var ancestor = model.entities[index].parent
        while let current = ancestor {
            if model.entities[current].codeGeneration == .category && classNames[current] != nil { root = current }
            ancestor = model.entities[current].parent
        }
        let conformsHere = root == index
        let prefix = conformsHere ? "modelGen" : "modelGen" + classNames[index]!
        let below =
            conformsHere
            ? descendants.filter { model.entities[$0].codeGeneration == .category && classNames[$0] != nil }.sorted()
            : []
        context.member(Key.conformsHere, conformsHere)
        context.member(Key.conformanceRoot, classNames[root]!)
        context.member(Key.metadataPrefix, prefix)
        context.member(
            Key.entityMember,
            conformsHere ? (below.isEmpty ? "modelGenEntity" : "modelGenOwnEntity") : prefix + "Entity")
        context.member(Key.hasCategoryDescendants, !below.isEmpty)
        let list = context.beginList()
        for descendant in below {
            let item = context.beginObject()
            context.member(Key.className, classNames[descendant]!)
            context.member(Key.metadataPrefix, "modelGen" + classNames[descendant]!)
            context.item(context.endObject(item))
        }
        context.member(Key.categoryDescendants, context.endList(list))
    }

    /// Entity `index` and its sub-entities, recursively.
    /// How the root class of a hierarchy is `Identifiable`.
    enum Identity {
        /// By its own property `id` (an attribute or relationship of the root entity).
        case property
        /// By the object (`id` is the object's `ObjectIdentifier`, as Core Data's objects are).
        case object
        /// Not: an entity below the root has an `id`, or the root's is of a kind whose Swift
        /// type may not be `Hashable` (a composite, a transient).
        case none
    }

    /// Whether, and by what, the root entity `index`'s class is `Identifiable`.
    func identity(ofHierarchy index: Int) -> Identity {
        func hasID(_ entity: Entity) -> Bool {
            entity.attributes.contains { Self.propertyName($0.name) == "id" }
                || entity.relationships.contains { Self.propertyName($0.name) == "id" }
                || entity.fetchedProperties.contains { Self.propertyName($0.name) == "id" }
        }
        let root = model.entities[index]
        if hasID(root) {
            let stored =
                root.attributes.contains {
                    Self.propertyName($0.name) == "id" && !$0.isTransient && $0.type != .composite
                }
                || root.relationships.contains { Self.propertyName($0.name) == "id" }
            return stored ? .property : .none
        }
        return descendants(of: index).contains { hasID(model.entities[$0]) } ? .none : .object
    }

    private func descendants(of index: Int) -> [Int] {
        var result: [Int] = []
        var pending = [index]
        var seen: Set<Int> = []
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            result.append(next)
            pending += model.entities[next].subentities
        }
        return result
    }

    /// The uniqueness constraints of entity `index` and its ancestors, as attribute slots and
    /// to-one relationship indices; a constraint naming anything else (a to-many, a to-one whose
    /// key is in the other table) is left to the schema's unique index, if any.
    private func uniquenessSlots(_ index: Int) -> [RuntimeEntityMetadata.Uniqueness] {
        let attributes = storedAttributes[index] ?? []
        let planned = relationships[index] ?? []
        var sets: [RuntimeEntityMetadata.Uniqueness] = []
        for declaring in lineage(index) {
            for constraint in model.entities[declaring].uniquenessConstraints {
                var unique = RuntimeEntityMetadata.Uniqueness(attributes: [])
                for name in constraint.properties {
                    if let slot = attributes.firstIndex(where: { !$0.isMember && $0.name == name }) {
                        unique.attributes.append(slot)
                    } else if let position = planned.firstIndex(where: { relationship in
                        guard relationship.relationship.name == name, case .foreignKey = relationship.storage else {
                            return false
                        }
                        return true
                    }) {
                        unique.relationships.append(position)
                    }
                }
                let count = unique.attributes.count + unique.relationships.count
                if count == constraint.properties.count, count > 0 { sets.append(unique) }
            }
        }
        return sets
    }

    /// The composite attributes declared on entity `index`: a struct-typed property over the
    /// members' slots.
    private func compositeContexts(_ index: Int, inheritedCount: Int, into context: inout MustacheTreeBuilder)
        -> MustacheTree.Ref
    {
        let all = storedAttributes[index] ?? []
        var order: [String] = []
        var members: [String: [(Int, StoredAttribute)]] = [:]
        for (slot, stored) in all.enumerated() where slot >= inheritedCount && stored.isMember {
            if members[stored.name] == nil { order.append(stored.name) }
            members[stored.name, default: []].append((slot, stored))
        }
        let list = context.beginList()
        for name in order {
            let parts = members[name]!
            let memberList = context.beginList()
            for (slot, stored) in parts {
                let member = context.beginObject()
                context.member(Key.member, SwiftNames.identifier(stored.memberName!))
                context.member(Key.storage, "_" + SwiftNames.sanitized(stored.key))
                context.member(Key.slot, slot)
                context.item(context.endObject(member))
            }
            let memberContexts = context.endList(memberList)
            let object = context.beginObject()
            context.member(Key.name, Self.propertyName(name))
            context.member(Key.typeName, SwiftNames.sanitized(parts[0].1.compositeName ?? name))
            context.member(
                Key.arguments,
                parts.map { "\(SwiftNames.identifier($1.memberName!)): _\(SwiftNames.sanitized($1.key))" }.joined(
                    separator: ", "))
            context.member(Key.members, memberContexts)
            context.item(context.endObject(object))
        }
        return context.endList(list)
    }

    /// The entity's transient attributes (inherited ones too) and their defaults, as the Swift
    /// dictionary literal `EntityDescription(transients:)` takes; nil when it has none.
    func transientDefaultsLiteral(_ index: Int) -> String? {
        var entries: [String] = []
        for entity in lineage(index) {
            for attribute in model.entities[entity].attributes where attribute.isTransient {
                var value = "nil"
                if let type = SwiftValueType(attribute.type), let given = attribute.defaultValue {
                    // Typed, so that the property's `as?` finds the attribute's own type.
                    value = "\(typeName(type.swiftName))(\(type.literal(given))) as (any Sendable)?"
                }
                entries.append("\(SwiftNames.literal(attribute.name)): \(value)")
            }
        }
        return entries.isEmpty ? nil : "[" + entries.joined(separator: ", ") + "]"
    }

    /// Transient attributes of entity `index`: plain stored properties, never saved.
    private func transientContexts(_ index: Int, into context: inout MustacheTreeBuilder) -> MustacheTree.Ref {
        let list = context.beginList()
        for attribute in model.entities[index].attributes where attribute.isTransient {
            let valueType = SwiftValueType(attribute.type)
            let wrapped = valueType.map { typeName($0.swiftName) }
            let key = SwiftNames.literal(attribute.name)
            let object = context.beginObject()
            context.member(Key.name, Self.propertyName(attribute.name))
            context.member(Key.key, key)
            // A required transient of a value type is not optional (Core Data's scalar): it reads
            // its default (or the type's zero) until set. The default itself is in the entity's
            // description, where dynamic access finds it too.
            if let valueType, let wrapped, !attribute.isOptional {
                let fallback = attribute.defaultValue.map { valueType.literal($0) } ?? valueType.placeholder
                context.member(Key.type, wrapped)
                context.member(Key.getter, "(transientValue(forKey: \(key)) as? \(wrapped)) ?? \(fallback)")
            } else {
                context.member(Key.type, wrapped.map { $0 + "?" } ?? "Any?")
                context.member(Key.getter, "transientValue(forKey: \(key))" + (wrapped.map { " as? " + $0 } ?? ""))
            }
            context.item(context.endObject(object))
        }
        return context.endList(list)
    }

    /// Whether the convenience initializer takes the attribute: required, without a default, not
    /// a member of a composite.
    private static func isInitialized(_ stored: StoredAttribute) -> Bool {
        !stored.isMember && !stored.isOptional && stored.defaultValue == nil
    }

    /// `, name: String, …` for the required attributes without a default (those a save needs).
    private static func appendInitializerParameters(_ all: [StoredAttribute], to text: inout TextBuffer) {
        for slot in all.indices where isInitialized(all[slot]) {
            text.append(", ")
            text.append(string: all[slot].propertyName)
            text.append(": ")
            text.append(string: all[slot].swiftType)
        }
    }

    private func initializerAssignments(_ all: [StoredAttribute], into context: inout MustacheTreeBuilder)
        -> MustacheTree.Ref
    {
        let list = context.beginList()
        for slot in all.indices where Self.isInitialized(all[slot]) {
            let object = context.beginObject()
            context.member(Key.name, all[slot].propertyName)
            context.item(context.endObject(object))
        }
        return context.endList(list)
    }

    /// The context of the model file: metadata, the DDL, composite types.
    func modelContext(sqliteDDL: [UInt8], postgresDDL: [UInt8], schemaHash: String, migrations: [StoreMigration] = [])
        -> MustacheTree
    {
        func list(_ statements: [String]?) -> String {
            statements.map {
                "[\n" + $0.map { "                " + SwiftNames.literal($0) + ",\n" }.joined() + "            ]"
            } ?? "nil"
        }
        var context = MustacheTreeBuilder()
        let migrationList = context.beginList()
        for migration in migrations {
            let object = context.beginObject()
            context.member(Key.fromLiteral, SwiftNames.literal(migration.fromHash))
            context.member(Key.versionLiteral, SwiftNames.literal(migration.version))
            context.member(Key.statementsLiteral, list(migration.statements))
            context.member(Key.postgresStatementsLiteral, list(migration.postgresStatements))
            context.member(
                Key.blockingStepsLiteral,
                "[" + migration.blockingSteps.map(SwiftNames.literal).joined(separator: ", ") + "]")
            context.member(Key.hasLossyStatements, migration.lossyStatements != nil)
            context.member(Key.lossyStatementsLiteral, list(migration.lossyStatements))
            context.member(Key.postgresLossyStatementsLiteral, list(migration.postgresLossyStatements))
            context.item(context.endObject(object))
        }
        let migrationContexts = context.endList(migrationList)
        let entityList = context.beginList()
        for index in generatedEntities {
            let object = context.beginObject()
            context.member(Key.className, classNames[index]!)
            context.item(context.endObject(object))
        }
        let entityContexts = context.endList(entityList)
        let compositeTypes = compositeTypeContexts(into: &context)
        let mark = context.beginObject()
        context.member(Key.migrations, migrationContexts)
        context.member(Key.hasMigrations, !migrations.isEmpty)
        context.member(Key.header, header)
        context.member(Key.observable, options.observable)
        context.member(Key.access, access)
        context.member(Key.modelTypeName, modelTypeName)
        context.member(Key.modelNameLiteral, SwiftNames.literal(model.modelName ?? model.versionName ?? ""))
        context.member(Key.schemaHashLiteral, SwiftNames.literal(schemaHash))
        context.member(Key.coreDataFingerprintLiteral, SwiftNames.literal(model.coreDataVersionFingerprint))
        context.member(Key.ddlLiteral, context.string { SwiftNames.appendRawMultilineLiteral(sqliteDDL, to: &$0) })
        context.member(
            Key.postgresDDLLiteral, context.string { SwiftNames.appendRawMultilineLiteral(postgresDDL, to: &$0) })
        context.member(Key.entities, entityContexts)
        context.member(Key.compositeTypes, compositeTypes)
        return context.finish(root: context.endObject(mark))
    }

    private func compositeTypeContexts(into context: inout MustacheTreeBuilder) -> MustacheTree.Ref {
        let list = context.beginList()
        for composite in model.composites {
            let members = composite.attributes.filter { !$0.isTransient }.compactMap { member -> (String, String)? in
                guard let type = SwiftValueType(member.type) else { return nil }
                return (SwiftNames.identifier(member.name), typeName(type.swiftName) + (member.isOptional ? "?" : ""))
            }
            let memberList = context.beginList()
            for (name, type) in members {
                let object = context.beginObject()
                context.member(Key.name, name)
                context.member(Key.type, type)
                context.item(context.endObject(object))
            }
            let memberContexts = context.endList(memberList)
            let object = context.beginObject()
            context.member(Key.typeName, SwiftNames.sanitized(composite.name))
            context.member(Key.members, memberContexts)
            context.member(Key.parameters, members.map { "\($0.0): \($0.1)" }.joined(separator: ", "))
            context.item(context.endObject(object))
        }
        return context.endList(list)
    }
}
