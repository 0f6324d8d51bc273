extension ObjectModel {
    static func duplicateEntity(_ name: String, _ first: String, _ second: String) -> DiagnosticMessage {
        DiagnosticMessage(
            "merged-entity-twice", .error,
            "entity '\(name)' is in both \(first) and \(second); models merge only with distinct entity names")
    }

    /// One model of the entities of several, as Core Data's `NSManagedObjectModel(byMerging:)`
    /// makes one (an app whose store holds the entities of several bundles): entities, composites,
    /// fetch request templates and configurations side by side, each model's references kept
    /// within it. Each model was resolved and validated on its own; diagnostics of later stages
    /// point into the first model's file.
    /// - Returns: nil (with an error per entity name found twice) when names collide.
    public static func merging(_ models: [ObjectModel], name: String, diagnostics: DiagnosticEngine) -> ObjectModel? {
        guard let first = models.first else { return nil }
        var entities: [Entity] = []
        var index: [String: Int] = [:]
        var owner: [String: String] = [:]
        var fetchRequests: [FetchRequest] = []
        var composites: [Composite] = []
        var configurations: [Configuration] = []
        var clean = true
        for model in models {
            let offset = entities.count
            let label = model.versionName ?? model.modelName ?? model.source.path
            for var entity in model.entities {
                if let earlier = owner[entity.name] {
                    diagnostics.report(
                        duplicateEntity(entity.name, earlier, label),
                        at: model.source.location(line: entity.line, attributeValue: "name", offset: 0))
                    clean = false
                }
                owner[entity.name] = label
                entity.shiftEntityIndices(by: offset)
                index[entity.name] = index[entity.name] ?? entities.count
                entities.append(entity)
            }
            for var request in model.fetchRequests {
                request.entity = request.entity.map { $0 + offset }
                fetchRequests.append(request)
            }
            composites += model.composites.filter { composite in !composites.contains { $0.name == composite.name } }
            configurations += model.configurations
        }
        guard clean else { return nil }
        var merged = ObjectModel(
            source: first.source, info: first.info, entities: entities, composites: composites,
            fetchRequests: fetchRequests, configurations: configurations, entityIndex: index)
        merged.modelName = name
        merged.versionName = nil
        return merged
    }
}

extension Entity {
    /// Moves every entity index this entity holds by `offset` (its model's entities now start there).
    fileprivate mutating func shiftEntityIndices(by offset: Int) {
        parent = parent.map { $0 + offset }
        subentities = subentities.map { $0 + offset }
        root += offset
        for index in relationships.indices {
            relationships[index].destination = relationships[index].destination.map { $0 + offset }
            relationships[index].inverse?.entity += offset
        }
        for index in fetchedProperties.indices {
            fetchedProperties[index].request.entity = fetchedProperties[index].request.entity.map { $0 + offset }
        }
        propertyIndex = propertyIndex.mapValues { reference in
            switch reference {
            case .attribute(let entity, let index): .attribute(entity: entity + offset, index: index)
            case .relationship(let entity, let index): .relationship(entity: entity + offset, index: index)
            case .fetchedProperty(let entity, let index): .fetchedProperty(entity: entity + offset, index: index)
            }
        }
    }
}
