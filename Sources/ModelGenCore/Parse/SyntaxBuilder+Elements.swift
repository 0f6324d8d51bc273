/// The XML vocabulary: one reader per element, each with the attributes Xcode writes for it.
extension SyntaxBuilder {
    func readModel(_ attributes: SAXAttributes, line: Int) -> ModelSyntax {
        var model = ModelSyntax(source: source, line: line)
        attributes.forEach { name, value in
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
            default: unknownAttribute(name, of: "model", line: line)
            }
        }
        if let type = model.type, type != "com.apple.IDECoreDataModeler.DataModel" {
            diagnostics.report(ModelParser.wrongModelType, at: source.location(line: line, attribute: "type"))
        }
        return model
    }

    func readEntity(_ attributes: SAXAttributes, line: Int) -> EntitySyntax {
        var entity = EntitySyntax(line: line)
        attributes.forEach { name, value in
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
            default: unknownAttribute(name, of: "entity", line: line)
            }
        }
        return entity
    }

    func readAttribute(_ attributes: SAXAttributes, line: Int) -> AttributeSyntax {
        var attribute = AttributeSyntax(line: line)
        attributes.forEach { name, value in
            switch name {
            case "name": attribute.name = value
            case "optional": attribute.optional = value
            case "attributeType": attribute.attributeType = value
            case "usesScalarValueType": attribute.usesScalarValueType = value
            case "defaultValueString": attribute.defaultValueString = value
            case "syncable": attribute.syncable = value
            case "transient": attribute.transient = value
            case "indexed": attribute.indexed = value
            case "valueTransformerName": attribute.valueTransformerName = value
            case "customClassName": attribute.customClassName = value
            case "allowsExternalBinaryDataStorage": attribute.allowsExternalBinaryDataStorage = value
            case "minDateTimeInterval": attribute.minDateTimeInterval = value
            case "minValueString": attribute.minValueString = value
            case "maxDateTimeInterval": attribute.maxDateTimeInterval = value
            case "maxValueString": attribute.maxValueString = value
            case "defaultDateTimeInterval": attribute.defaultDateTimeInterval = value
            case "regularExpressionString": attribute.regularExpressionString = value
            case "derived": attribute.derived = value
            case "derivationExpression": attribute.derivationExpression = value
            case "elementID": attribute.elementID = value
            case "renamingIdentifier": attribute.renamingIdentifier = value
            case "versionHashModifier": attribute.versionHashModifier = value
            case "preserveAfterDeletion": attribute.preserveAfterDeletion = value
            case "spotlightIndexingEnabled": attribute.spotlightIndexingEnabled = value
            case "storedInTruthFile": attribute.storedInTruthFile = value
            case "allowsCloudEncryption": attribute.allowsCloudEncryption = value
            case "composite": attribute.composite = value
            default: unknownAttribute(name, of: "attribute", line: line)
            }
        }
        return attribute
    }

    func readRelationship(_ attributes: SAXAttributes, line: Int) -> RelationshipSyntax {
        var relationship = RelationshipSyntax(line: line)
        attributes.forEach { name, value in
            switch name {
            case "name": relationship.name = value
            case "optional": relationship.optional = value
            case "toMany": relationship.toMany = value
            case "maxCount": relationship.maxCount = value
            case "deletionRule": relationship.deletionRule = value
            case "destinationEntity": relationship.destinationEntity = value
            case "inverseName": relationship.inverseName = value
            case "inverseEntity": relationship.inverseEntity = value
            case "minCount": relationship.minCount = value
            case "ordered": relationship.ordered = value
            case "transient": relationship.transient = value
            case "indexed": relationship.indexed = value
            case "elementID": relationship.elementID = value
            case "renamingIdentifier": relationship.renamingIdentifier = value
            case "versionHashModifier": relationship.versionHashModifier = value
            case "syncable": relationship.syncable = value
            default: unknownAttribute(name, of: "relationship", line: line)
            }
        }
        return relationship
    }

    func readFetchedProperty(_ attributes: SAXAttributes, line: Int) -> FetchedPropertySyntax {
        var property = FetchedPropertySyntax(line: line)
        attributes.forEach { name, value in
            switch name {
            case "name": property.name = value
            case "optional": property.optional = value
            case "syncable": property.syncable = value
            case "elementID": property.elementID = value
            case "versionHashModifier": property.versionHashModifier = value
            default: unknownAttribute(name, of: "fetchedProperty", line: line)
            }
        }
        return property
    }

    func readFetchRequest(_ attributes: SAXAttributes, line: Int) -> FetchRequestSyntax {
        var request = FetchRequestSyntax(line: line)
        attributes.forEach { name, value in
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
            default: unknownAttribute(name, of: "fetchRequest", line: line)
            }
        }
        return request
    }

    func readConfiguration(_ attributes: SAXAttributes, line: Int) -> ConfigurationSyntax {
        var configuration = ConfigurationSyntax(line: line)
        attributes.forEach { name, value in
            switch name {
            case "name": configuration.name = value
            case "usedWithCloudKit": configuration.usedWithCloudKit = value
            default: unknownAttribute(name, of: "configuration", line: line)
            }
        }
        return configuration
    }

    func readMember(_ attributes: SAXAttributes, line: Int) -> ConfigurationSyntax.Member {
        var member = ConfigurationSyntax.Member(line: line)
        attributes.forEach { name, value in
            if name == "name" { member.name = value } else { unknownAttribute(name, of: "memberEntity", line: line) }
        }
        return member
    }

    func readFetchIndex(_ attributes: SAXAttributes, line: Int) -> FetchIndexSyntax {
        var index = FetchIndexSyntax(line: line)
        attributes.forEach { name, value in
            if name == "name" { index.name = value } else { unknownAttribute(name, of: "fetchIndex", line: line) }
        }
        return index
    }

    func readFetchIndexElement(_ attributes: SAXAttributes, line: Int) -> FetchIndexSyntax.Element {
        var element = FetchIndexSyntax.Element(line: line)
        attributes.forEach { name, value in
            switch name {
            case "property": element.property = value
            case "expression": element.expression = value
            case "expressionType": element.expressionType = value
            case "type": element.type = value
            case "order": element.order = value
            default: unknownAttribute(name, of: "fetchIndexElement", line: line)
            }
        }
        return element
    }

    /// `<index value=…>` of a legacy compound index, or `<constraint value=…>`.
    func readPropertyName(_ attributes: SAXAttributes, of element: String, line: Int) -> PropertyNameSyntax {
        var property = PropertyNameSyntax(line: line)
        attributes.forEach { name, value in
            if name == "value" { property.value = value } else { unknownAttribute(name, of: element, line: line) }
        }
        return property
    }

    func readComposite(_ attributes: SAXAttributes, line: Int) -> CompositeSyntax {
        var composite = CompositeSyntax(line: line)
        attributes.forEach { name, value in
            switch name {
            case "name": composite.name = value
            case "elementID": composite.elementID = value
            default: unknownAttribute(name, of: "composite", line: line)
            }
        }
        return composite
    }

    func readEntry(_ attributes: SAXAttributes, line: Int) -> UserInfoSyntax.Entry {
        var entry = UserInfoSyntax.Entry(line: line)
        attributes.forEach { name, value in
            switch name {
            case "key": entry.key = value
            case "value": entry.value = value
            default: unknownAttribute(name, of: "entry", line: line)
            }
        }
        return entry
    }
}
