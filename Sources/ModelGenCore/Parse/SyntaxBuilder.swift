/// Builds `ModelSyntax` from SAX events: one frame per open element, the element being built
/// kept in a slot until its end tag appends it to its parent.
///
/// Each element's XML vocabulary lives in the switch of the function that reads it
/// (`SyntaxBuilder+Elements.swift`); nothing else names XML attributes.
final class SyntaxBuilder: SAXHandler {
    enum Frame {
        case model, entity, attribute, relationship, fetchedProperty, fetchRequest, configuration
        case fetchIndex, compoundIndexes, compoundIndex, uniquenessConstraints, uniquenessConstraint
        case composite, userInfo
        /// An element with nothing inside (`memberEntity`, `fetchIndexElement`, `index`, `constraint`, `entry`).
        case leaf(String)
        /// `<elements>`: diagram layout, read only to count.
        case layout
        /// An unknown element (already reported) and everything inside it.
        case ignored
    }

    let source: SourceFile
    let diagnostics: DiagnosticEngine
    private(set) var model: ModelSyntax?
    private(set) var rejectedRoot = false

    var frames: [Frame] = []
    var entity = EntitySyntax(line: 0)
    var attribute = AttributeSyntax(line: 0)
    var relationship = RelationshipSyntax(line: 0)
    var fetchedProperty = FetchedPropertySyntax(line: 0)
    var fetchRequest = FetchRequestSyntax(line: 0)
    var configuration = ConfigurationSyntax(line: 0)
    var fetchIndex = FetchIndexSyntax(line: 0)
    var compoundIndex = CompoundIndexSyntax(line: 0)
    var constraint = UniquenessConstraintSyntax(line: 0)
    var composite = CompositeSyntax(line: 0)
    var userInfo = UserInfoSyntax(line: 0)
    /// How many attributes and relationships the last entity had: the next one's arrays start
    /// with that room, up to 32 (entities of one model are alike; grown from empty, an entity's
    /// attributes were reallocated and moved five or six times). The cap bounds what a small
    /// entity after a very large one holds unused.
    private var lastEntitySize = (attributes: 0, relationships: 0)
    /// Elements whose stray text was already reported (by depth), so it is reported once.
    private var textReportedDepth = -1

    /// Set when the bytes parsed are a later part of a file (`PartitionedParse`): their `<model>`
    /// tag is a copy of the file's, already read by the first part.
    let isLaterPart: Bool
    /// The offset of the `>` that ends the `<model>` start tag in the bytes parsed (-1 before
    /// it is read; libxml2 reports a start tag before it reads its `>`).
    private(set) var modelTagEnd = -1
    /// Whether text directly inside `<model>` was reported: the file reports that once, so the
    /// parts of a file cannot each report it.
    private(set) var reportedModelText = false

    init(source: SourceFile, diagnostics: DiagnosticEngine, isLaterPart: Bool = false) {
        self.source = source
        self.diagnostics = diagnostics
        self.isLaterPart = isLaterPart
    }

    // MARK: - Events

    override func startElement(_ name: String, _ attributes: SAXAttributes, line: Int) {
        if hasFailed { return abandon() }
        guard let parent = frames.last else {
            guard name == "model" else {
                rejectedRoot = true
                diagnostics.report(ModelParser.wrongRoot, at: source.location(line: line, element: name))
                return stop()
            }
            model = isLaterPart ? ModelSyntax(source: source, line: line) : readModel(attributes, line: line)
            modelTagEnd = currentOffset
            frames.append(.model)
            return
        }
        frames.append(open(name, in: parent, attributes, line: line))
    }

    override func endElement() {
        guard let frame = frames.popLast() else { return }
        if textReportedDepth > frames.count { textReportedDepth = -1 }
        close(frame)
    }

    override func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        if hasFailed { return abandon() }
        guard let frame = frames.last, textReportedDepth != frames.count else { return }
        switch frame {
        case .ignored, .layout: return
        default: break
        }
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }) else { return }
        textReportedDepth = frames.count
        if case .model = frame { reportedModelText = true }
        // libxml2 is at the end of the text; count back to the line of its first non-blank byte
        // and find that byte's column by searching the line for the text.
        let newlinesAfter = bytes[first...].count { $0 == 0x0A }
        let line = currentLine - newlinesAfter
        let word = bytes[first...].prefix { !isBlank($0) && $0 != 0x3C }.prefix(32)
        diagnostics.report(
            ModelParser.unexpectedText(elementName(of: frame)),
            at: source.location(line: line, text: Array(word)))
    }

    // MARK: - Reporting

    func unknownAttribute(_ name: String, of element: String, line: Int) {
        diagnostics.report(
            ModelParser.unknownAttribute(name, element), at: source.location(line: line, attribute: name))
    }

    func unknownElement(_ name: String, in parent: String, line: Int) -> Frame {
        diagnostics.report(ModelParser.unknownElement(name, parent), at: source.location(line: line, element: name))
        return .ignored
    }

    func elementName(of frame: Frame) -> String {
        switch frame {
        case .model: "model"
        case .entity: "entity"
        case .attribute: "attribute"
        case .relationship: "relationship"
        case .fetchedProperty: "fetchedProperty"
        case .fetchRequest: "fetchRequest"
        case .configuration: "configuration"
        case .fetchIndex: "fetchIndex"
        case .compoundIndexes: "compoundIndexes"
        case .compoundIndex: "compoundIndex"
        case .uniquenessConstraints: "uniquenessConstraints"
        case .uniquenessConstraint: "uniquenessConstraint"
        case .composite: "composite"
        case .userInfo: "userInfo"
        case .leaf(let name): name
        case .layout: "elements"
        case .ignored: "?"
        }
    }

    // MARK: - Structure

    /// Opens a child element of `parent`: reads its attributes and says which frame it is.
    private func open(_ name: String, in parent: Frame, _ attributes: SAXAttributes, line: Int) -> Frame {
        switch (parent, name) {
        case (.ignored, _): return .ignored
        case (.layout, _): return .ignored
        case (.model, "entity"):
            entity = readEntity(attributes, line: line)
            entity.attributes.reserveCapacity(min(lastEntitySize.attributes, 32))
            entity.relationships.reserveCapacity(min(lastEntitySize.relationships, 32))
            return .entity
        case (.model, "composite"):
            composite = readComposite(attributes, line: line)
            return .composite
        case (.model, "fetchRequest"), (.fetchedProperty, "fetchRequest"):
            fetchRequest = readFetchRequest(attributes, line: line)
            return .fetchRequest
        case (.model, "configuration"):
            configuration = readConfiguration(attributes, line: line)
            return .configuration
        case (.model, "elements"):
            return .layout
        case (.entity, "attribute"), (.composite, "attribute"):
            attribute = readAttribute(attributes, line: line)
            return .attribute
        case (.entity, "relationship"):
            relationship = readRelationship(attributes, line: line)
            return .relationship
        case (.entity, "fetchedProperty"):
            fetchedProperty = readFetchedProperty(attributes, line: line)
            return .fetchedProperty
        case (.entity, "fetchIndex"):
            fetchIndex = readFetchIndex(attributes, line: line)
            return .fetchIndex
        case (.entity, "compoundIndexes"):
            expectNoAttributes(attributes, of: name, line: line)
            return .compoundIndexes
        case (.entity, "uniquenessConstraints"):
            expectNoAttributes(attributes, of: name, line: line)
            return .uniquenessConstraints
        case (.compoundIndexes, "compoundIndex"):
            expectNoAttributes(attributes, of: name, line: line)
            compoundIndex = CompoundIndexSyntax(line: line)
            return .compoundIndex
        case (.uniquenessConstraints, "uniquenessConstraint"):
            expectNoAttributes(attributes, of: name, line: line)
            constraint = UniquenessConstraintSyntax(line: line)
            return .uniquenessConstraint
        case (.entity, "userInfo"), (.attribute, "userInfo"), (.relationship, "userInfo"),
            (.fetchedProperty, "userInfo"), (.composite, "userInfo"):
            expectNoAttributes(attributes, of: name, line: line)
            userInfo = UserInfoSyntax(line: line)
            return .userInfo
        case (.userInfo, "entry"):
            userInfo.entries.append(readEntry(attributes, line: line))
            return .leaf(name)
        case (.configuration, "memberEntity"):
            configuration.members.append(readMember(attributes, line: line))
            return .leaf(name)
        case (.fetchIndex, "fetchIndexElement"):
            fetchIndex.elements.append(readFetchIndexElement(attributes, line: line))
            return .leaf(name)
        case (.compoundIndex, "index"):
            compoundIndex.properties.append(readPropertyName(attributes, of: name, line: line))
            return .leaf(name)
        case (.uniquenessConstraint, "constraint"):
            constraint.properties.append(readPropertyName(attributes, of: name, line: line))
            return .leaf(name)
        default:
            return unknownElement(name, in: elementName(of: parent), line: line)
        }
    }

    /// Closes an element: appends what it built to its parent (the frame now on top).
    private func close(_ frame: Frame) {
        let parent = frames.last
        switch frame {
        case .entity:
            lastEntitySize = (entity.attributes.count, entity.relationships.count)
            model?.entities.append(Self.take(&entity, EntitySyntax(line: 0)))
        case .composite:
            model?.composites.append(Self.take(&composite, CompositeSyntax(line: 0)))
        case .fetchRequest:
            if case .fetchedProperty? = parent {
                fetchedProperty.fetchRequest = fetchRequest
            } else {
                model?.fetchRequests.append(fetchRequest)
            }
        case .configuration:
            model?.configurations.append(configuration)
        case .attribute:
            let taken = Self.take(&attribute, AttributeSyntax(line: 0))
            if case .composite? = parent { composite.attributes.append(taken) } else { entity.attributes.append(taken) }
        case .relationship:
            entity.relationships.append(Self.take(&relationship, RelationshipSyntax(line: 0)))
        case .fetchedProperty:
            entity.fetchedProperties.append(fetchedProperty)
        case .fetchIndex:
            entity.fetchIndexes.append(fetchIndex)
        case .compoundIndex:
            entity.compoundIndexes.append(compoundIndex)
        case .uniquenessConstraint:
            entity.uniquenessConstraints.append(constraint)
        case .userInfo:
            switch parent {
            case .entity?: entity.userInfo = userInfo
            case .attribute?: attribute.userInfo = userInfo
            case .relationship?: relationship.userInfo = userInfo
            case .fetchedProperty?: fetchedProperty.userInfo = userInfo
            case .composite?: composite.userInfo = userInfo
            default: break
            }
        case .layout, .model, .compoundIndexes, .uniquenessConstraints, .leaf, .ignored:
            break
        }
        if case .layout? = parent, case .ignored = frame { model?.layoutElementCount += 1 }
    }

    /// Moves a finished element out of its slot without copying it.
    private static func take<T>(_ slot: inout T, _ empty: T) -> T {
        var value = empty
        swap(&value, &slot)
        return value
    }

    private func expectNoAttributes(_ attributes: SAXAttributes, of element: String, line: Int) {
        attributes.forEach { name, _ in unknownAttribute(name, of: element, line: line) }
    }
}
