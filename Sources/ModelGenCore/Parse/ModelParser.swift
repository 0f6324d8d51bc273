import CLibXML2

/// Parse: the bytes of one `contents` file → `ModelSyntax`.
///
/// Input: a `SourceFile`. Output: the raw, located syntax of every element and attribute listed
/// in `corpus/FORMAT.md`, or `nil` when the file is not a readable model (malformed XML, a DTD,
/// too large, wrong root element), with a located error for why.
///
/// Invariants: never crashes, hangs or touches the network on any input (see `SecureXMLReader`);
/// unknown elements and attributes are warnings, never failures; values are not interpreted.
public struct ModelParser {
    public init() {}

    static let wrongRoot = DiagnosticMessage(
        "wrong-root-element", .error, "the root element is not <model>: this is not a Core Data model file")
    static let wrongModelType = DiagnosticMessage(
        "unknown-model-type", .warning, "model type is not 'com.apple.IDECoreDataModeler.DataModel'")
    static func unknownAttribute(_ name: String, _ element: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-attribute", .warning, "unknown attribute '\(name)' on <\(element)> is ignored")
    }
    static func unknownElement(_ name: String, _ parent: String) -> DiagnosticMessage {
        DiagnosticMessage("unknown-element", .warning, "unknown element <\(name)> in <\(parent)> is ignored")
    }
    static func unexpectedText(_ element: String) -> DiagnosticMessage {
        DiagnosticMessage("unexpected-text", .warning, "text inside <\(element)> is ignored")
    }

    /// Parses one `contents` file.
    /// - Returns: the syntax, or `nil` when the file could not be read as a model (an error was reported).
    public func parse(_ source: SourceFile, diagnostics: DiagnosticEngine) -> ModelSyntax? {
        guard let document = SecureXMLReader.read(source, diagnostics: diagnostics) else { return nil }
        defer { xmlFreeDoc(document) }
        guard let rootNode = xmlDocGetRootElement(document) else {
            diagnostics.report(Self.wrongRoot, at: source.location(line: 1))
            return nil
        }
        let root = XMLElement(node: rootNode)
        guard root.name == "model" else {
            diagnostics.report(Self.wrongRoot, at: source.location(line: root.line, element: root.name))
            return nil
        }
        var walker = SyntaxWalker(source: source, diagnostics: diagnostics)
        return walker.model(root)
    }
}

/// Walks a libxml2 tree element by element. Each `XML` vocabulary lives in the switch of the
/// function that reads that element; nothing else names XML attributes.
struct SyntaxWalker {
    let source: SourceFile
    let diagnostics: DiagnosticEngine

    // MARK: - Reporting

    func unknownAttribute(_ name: String, of element: XMLElement, named elementName: String) {
        diagnostics.report(
            ModelParser.unknownAttribute(name, elementName),
            at: source.location(line: element.line, attribute: name))
    }

    func unknownElement(_ child: XMLElement, in parent: String) {
        let name = child.name
        diagnostics.report(
            ModelParser.unknownElement(name, parent), at: source.location(line: child.line, element: name))
    }

    func checkNoText(_ element: XMLElement, named name: String) {
        if element.hasText {
            diagnostics.report(ModelParser.unexpectedText(name), at: source.location(line: element.line, element: name))
        }
    }

    // MARK: - <model>

    mutating func model(_ element: XMLElement) -> ModelSyntax {
        var model = ModelSyntax(source: source, line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "type": model.type = value
            case "documentVersion": model.documentVersion = value
            case "lastSavedToolsVersion": model.lastSavedToolsVersion = value
            case "systemVersion": model.systemVersion = value
            case "minimumToolsVersion": model.minimumToolsVersion = value
            case "sourceLanguage": model.sourceLanguage = value
            case "userDefinedModelVersionIdentifier": model.userDefinedModelVersionIdentifier = value
            case "usedWithCloudKit": model.usedWithCloudKit = value
            case "usedWithSwiftData": model.usedWithSwiftData = value
            case "name", "macOSVersion", "iOSVersion": break  // Xcode 4–6 leftovers, meaningless
            default: unknownAttribute(name, of: element, named: "model")
            }
        }
        if let type = model.type, type != "com.apple.IDECoreDataModeler.DataModel" {
            diagnostics.report(ModelParser.wrongModelType, at: source.location(line: element.line, attribute: "type"))
        }
        checkNoText(element, named: "model")
        element.forEachChildElement { child in
            switch child.name {
            case "entity": model.entities.append(entity(child))
            case "composite": model.composites.append(composite(child))
            case "fetchRequest": model.fetchRequests.append(fetchRequest(child))
            case "configuration": model.configurations.append(configuration(child))
            case "elements": model.layoutElementCount += layoutElements(child)
            default: unknownElement(child, in: "model")
            }
        }
        return model
    }

    /// `<elements>`: diagram layout, ignored; unknown children are tolerated silently too.
    private func layoutElements(_ element: XMLElement) -> Int {
        var count = 0
        element.forEachChildElement { child in
            if child.name == "element" { count += 1 }
        }
        return count
    }

    // MARK: - <entity>

    mutating func entity(_ element: XMLElement) -> EntitySyntax {
        var entity = EntitySyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": entity.name = value
            case "representedClassName": entity.representedClassName = value
            case "parentEntity": entity.parentEntity = value
            case "isAbstract": entity.isAbstract = value
            case "elementID": entity.elementID = value
            case "renamingIdentifier": entity.renamingIdentifier = value
            case "versionHashModifier": entity.versionHashModifier = value
            case "syncable": entity.syncable = value
            case "codeGenerationType": entity.codeGenerationType = value
            default: unknownAttribute(name, of: element, named: "entity")
            }
        }
        checkNoText(element, named: "entity")
        element.forEachChildElement { child in
            switch child.name {
            case "attribute": entity.attributes.append(attribute(child))
            case "relationship": entity.relationships.append(relationship(child))
            case "fetchedProperty": entity.fetchedProperties.append(fetchedProperty(child))
            case "fetchIndex": entity.fetchIndexes.append(fetchIndex(child))
            case "compoundIndexes": entity.compoundIndexes.append(contentsOf: compoundIndexes(child))
            case "uniquenessConstraints": entity.uniquenessConstraints.append(contentsOf: uniquenessConstraints(child))
            case "userInfo": entity.userInfo = userInfo(child)
            default: unknownElement(child, in: "entity")
            }
        }
        return entity
    }

    // MARK: - <attribute>

    func attribute(_ element: XMLElement) -> AttributeSyntax {
        var attribute = AttributeSyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": attribute.name = value
            case "optional": attribute.optional = value
            case "transient": attribute.transient = value
            case "attributeType": attribute.attributeType = value
            case "valueTransformerName": attribute.valueTransformerName = value
            case "allowsExternalBinaryDataStorage": attribute.allowsExternalBinaryDataStorage = value
            case "minDateTimeInterval": attribute.minDateTimeInterval = value
            case "minValueString": attribute.minValueString = value
            case "maxDateTimeInterval": attribute.maxDateTimeInterval = value
            case "maxValueString": attribute.maxValueString = value
            case "defaultDateTimeInterval": attribute.defaultDateTimeInterval = value
            case "defaultValueString": attribute.defaultValueString = value
            case "regularExpressionString": attribute.regularExpressionString = value
            case "derived": attribute.derived = value
            case "derivationExpression": attribute.derivationExpression = value
            case "usesScalarValueType": attribute.usesScalarValueType = value
            case "indexed": attribute.indexed = value
            case "elementID": attribute.elementID = value
            case "renamingIdentifier": attribute.renamingIdentifier = value
            case "customClassName": attribute.customClassName = value
            case "versionHashModifier": attribute.versionHashModifier = value
            case "preserveAfterDeletion": attribute.preserveAfterDeletion = value
            case "spotlightIndexingEnabled": attribute.spotlightIndexingEnabled = value
            case "storedInTruthFile": attribute.storedInTruthFile = value
            case "allowsCloudEncryption": attribute.allowsCloudEncryption = value
            case "composite": attribute.composite = value
            case "syncable": attribute.syncable = value
            default: unknownAttribute(name, of: element, named: "attribute")
            }
        }
        element.forEachChildElement { child in
            switch child.name {
            case "userInfo": attribute.userInfo = userInfo(child)
            default: unknownElement(child, in: "attribute")
            }
        }
        return attribute
    }

    // MARK: - <relationship>

    func relationship(_ element: XMLElement) -> RelationshipSyntax {
        var relationship = RelationshipSyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": relationship.name = value
            case "optional": relationship.optional = value
            case "transient": relationship.transient = value
            case "toMany": relationship.toMany = value
            case "minCount": relationship.minCount = value
            case "maxCount": relationship.maxCount = value
            case "deletionRule": relationship.deletionRule = value
            case "ordered": relationship.ordered = value
            case "destinationEntity": relationship.destinationEntity = value
            case "inverseName": relationship.inverseName = value
            case "inverseEntity": relationship.inverseEntity = value
            case "indexed": relationship.indexed = value
            case "elementID": relationship.elementID = value
            case "renamingIdentifier": relationship.renamingIdentifier = value
            case "versionHashModifier": relationship.versionHashModifier = value
            case "syncable": relationship.syncable = value
            default: unknownAttribute(name, of: element, named: "relationship")
            }
        }
        element.forEachChildElement { child in
            switch child.name {
            case "userInfo": relationship.userInfo = userInfo(child)
            default: unknownElement(child, in: "relationship")
            }
        }
        return relationship
    }

    // MARK: - <fetchedProperty>, <fetchRequest>

    func fetchedProperty(_ element: XMLElement) -> FetchedPropertySyntax {
        var property = FetchedPropertySyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": property.name = value
            case "optional": property.optional = value
            case "syncable": property.syncable = value
            case "elementID": property.elementID = value
            case "versionHashModifier": property.versionHashModifier = value
            default: unknownAttribute(name, of: element, named: "fetchedProperty")
            }
        }
        element.forEachChildElement { child in
            switch child.name {
            case "fetchRequest": property.fetchRequest = fetchRequest(child)
            case "userInfo": property.userInfo = userInfo(child)
            default: unknownElement(child, in: "fetchedProperty")
            }
        }
        return property
    }

    func fetchRequest(_ element: XMLElement) -> FetchRequestSyntax {
        var request = FetchRequestSyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": request.name = value
            case "entity": request.entity = value
            case "predicateString": request.predicateString = value
            case "fetchLimit": request.fetchLimit = value
            case "fetchBatchSize": request.fetchBatchSize = value
            case "resultType": request.resultType = value
            case "includeSubentities": request.includeSubentities = value
            case "includePropertyValues": request.includePropertyValues = value
            case "includesPendingChanges": request.includesPendingChanges = value
            case "returnObjectsAsFaults": request.returnObjectsAsFaults = value
            case "returnDistinctResults": request.returnDistinctResults = value
            default: unknownAttribute(name, of: element, named: "fetchRequest")
            }
        }
        element.forEachChildElement { child in unknownElement(child, in: "fetchRequest") }
        return request
    }

    // MARK: - <configuration>

    func configuration(_ element: XMLElement) -> ConfigurationSyntax {
        var configuration = ConfigurationSyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": configuration.name = value
            case "usedWithCloudKit": configuration.usedWithCloudKit = value
            default: unknownAttribute(name, of: element, named: "configuration")
            }
        }
        element.forEachChildElement { child in
            guard child.name == "memberEntity" else { return unknownElement(child, in: "configuration") }
            var member = ConfigurationSyntax.Member(line: child.line)
            child.forEachAttribute { name, value in
                if name == "name" { member.name = value } else { unknownAttribute(name, of: child, named: "memberEntity") }
            }
            configuration.members.append(member)
        }
        return configuration
    }

    // MARK: - Indexes and constraints

    func fetchIndex(_ element: XMLElement) -> FetchIndexSyntax {
        var index = FetchIndexSyntax(line: element.line)
        element.forEachAttribute { name, value in
            if name == "name" { index.name = value } else { unknownAttribute(name, of: element, named: "fetchIndex") }
        }
        element.forEachChildElement { child in
            guard child.name == "fetchIndexElement" else { return unknownElement(child, in: "fetchIndex") }
            var item = FetchIndexSyntax.Element(line: child.line)
            child.forEachAttribute { name, value in
                switch name {
                case "property": item.property = value
                case "expression": item.expression = value
                case "expressionType": item.expressionType = value
                case "type": item.type = value
                case "order": item.order = value
                default: unknownAttribute(name, of: child, named: "fetchIndexElement")
                }
            }
            index.elements.append(item)
        }
        return index
    }

    func compoundIndexes(_ element: XMLElement) -> [CompoundIndexSyntax] {
        var indexes: [CompoundIndexSyntax] = []
        element.forEachChildElement { child in
            guard child.name == "compoundIndex" else { return unknownElement(child, in: "compoundIndexes") }
            indexes.append(CompoundIndexSyntax(line: child.line, properties: propertyNames(child, item: "index")))
        }
        return indexes
    }

    func uniquenessConstraints(_ element: XMLElement) -> [UniquenessConstraintSyntax] {
        var constraints: [UniquenessConstraintSyntax] = []
        element.forEachChildElement { child in
            guard child.name == "uniquenessConstraint" else {
                return unknownElement(child, in: "uniquenessConstraints")
            }
            constraints.append(
                UniquenessConstraintSyntax(line: child.line, properties: propertyNames(child, item: "constraint")))
        }
        return constraints
    }

    private func propertyNames(_ element: XMLElement, item: String) -> [PropertyNameSyntax] {
        var names: [PropertyNameSyntax] = []
        let parent = element.name
        element.forEachChildElement { child in
            guard child.name == item else { return unknownElement(child, in: parent) }
            var name = PropertyNameSyntax(line: child.line)
            child.forEachAttribute { key, value in
                if key == "value" { name.value = value } else { unknownAttribute(key, of: child, named: item) }
            }
            names.append(name)
        }
        return names
    }

    // MARK: - <composite>, <userInfo>

    func composite(_ element: XMLElement) -> CompositeSyntax {
        var composite = CompositeSyntax(line: element.line)
        element.forEachAttribute { name, value in
            switch name {
            case "name": composite.name = value
            case "elementID": composite.elementID = value
            default: unknownAttribute(name, of: element, named: "composite")
            }
        }
        element.forEachChildElement { child in
            switch child.name {
            case "attribute": composite.attributes.append(attribute(child))
            case "userInfo": composite.userInfo = userInfo(child)
            default: unknownElement(child, in: "composite")
            }
        }
        return composite
    }

    func userInfo(_ element: XMLElement) -> UserInfoSyntax {
        var info = UserInfoSyntax(line: element.line)
        element.forEachChildElement { child in
            guard child.name == "entry" else { return unknownElement(child, in: "userInfo") }
            var entry = UserInfoSyntax.Entry(line: child.line)
            child.forEachAttribute { name, value in
                switch name {
                case "key": entry.key = value
                case "value": entry.value = value
                default: unknownAttribute(name, of: child, named: "entry")
                }
            }
            info.entries.append(entry)
        }
        return info
    }
}
