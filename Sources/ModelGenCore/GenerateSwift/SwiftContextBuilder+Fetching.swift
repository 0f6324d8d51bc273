import Mustache
import PredicateSyntax

private typealias Key = ContextKey

extension SwiftContextBuilder {
    /// One `find(…)` per uniqueness constraint of the entity itself made of comparable stored
    /// attributes and to-one relationships kept in its table (an object is passed for each of
    /// those, compared by identity); signatures that repeat are written once; sub-entities
    /// inherit their parent's.
    func findContexts(_ index: Int, className: String, into context: inout MustacheTreeBuilder) -> MustacheTree.Ref {
        let attributes = storedAttributes[index] ?? []
        let planned = relationships[index] ?? []
        var seen: Set<String> = []
        let list = context.beginList()
        do {
            for constraint in model.entities[index].uniquenessConstraints {
                var parameters: [String] = []
                var terms: [String] = []
                var signature: [String] = []
                for property in constraint.properties {
                    if let toOne = planned.first(where: { $0.relationship.name == property }) {
                        guard case .foreignKey = toOne.storage, let destination = classNames[toOne.destination] else {
                            parameters = []
                            break
                        }
                        let name = Self.propertyName(property)
                        parameters.append("\(name): \(destination)")
                        terms.append("ObjectPredicate<\(className)>.identity(\\\(className).\(name), \(name))")
                        signature.append("\(property):\(destination)")
                        continue
                    }
                    guard let stored = attributes.first(where: { !$0.isMember && $0.name == property }),
                        stored.isComparable
                    else {
                        parameters = []
                        break
                    }
                    let name = stored.propertyName
                    let type = stored.swiftType + (stored.isSwiftOptional ? "?" : "")
                    parameters.append("\(name): \(type)")
                    terms.append("\\\(className).\(name) == \(name)")
                    signature.append("\(property):\(type)")
                }
                guard !parameters.isEmpty, seen.insert(signature.joined(separator: ",")).inserted else { continue }
                let object = context.beginObject()
                context.member(Key.parameters, parameters.joined(separator: ", "))
                context.member(Key.predicate, terms.joined(separator: " && "))
                context.item(context.endObject(object))
            }
        }
        return context.endList(list)
    }

    /// The typed static functions of the fetch request templates that fetch entity `index`.
    func fetchRequestContexts(_ index: Int, className: String, into context: inout MustacheTreeBuilder)
        -> MustacheTree.Ref
    {
        var names: Set<String> = []
        let list = context.beginList()
        for request in model.fetchRequests where request.entity == index && runs(request, on: index) {
            var function = "fetch" + SwiftNames.capitalized(SwiftNames.sanitized(request.name))
            while !names.insert(function).inserted { function += "_" }
            let types = request.predicate.map { variableTypes($0.node, entity: index) } ?? [:]
            let parameters = request.variables.map { "\(SwiftNames.identifier($0)): \(types[$0] ?? "Any?")" }
            let variables = request.variables.map { "\(SwiftNames.literal($0)): \(SwiftNames.identifier($0))" }
            let object = context.beginObject()
            context.member(Key.functionName, SwiftNames.identifier(function))
            context.member(Key.parameters, parameters.map { $0 + ", " }.joined())
            context.member(Key.hasPredicate, request.predicate != nil)
            context.member(Key.format, SwiftNames.literal(request.predicateString ?? ""))
            context.member(Key.variables, variables.isEmpty ? "[:]" : "[" + variables.joined(separator: ", ") + "]")
            context.member(Key.limit, request.fetchLimit.map { $0 > 0 ? ", fetchLimit: \($0)" : "" } ?? "")
            context.member(Key.isCount, request.resultType == .count)
            context.member(Key.isObjects, request.resultType == .managedObject)
            context.member(Key.isObjectIDs, request.resultType == .managedObjectID)
            context.member(Key.isDictionary, request.resultType == .dictionary)
            context.member(Key.distinct, request.returnDistinctResults == true ? "true" : "false")
            context.member(Key.name, request.name)
            context.item(context.endObject(object))
        }
        return context.endList(list)
    }

    /// An instance method per fetched property of the entity itself whose destination is
    /// generated (sub-entities inherit their parent's).
    func fetchedPropertyContexts(_ index: Int, into context: inout MustacheTreeBuilder) -> MustacheTree.Ref {
        let list = context.beginList()
        for property in model.entities[index].fetchedProperties {
            guard let destination = property.request.entity, let destinationClass = classNames[destination],
                runs(property.request, on: destination)
            else {
                continue
            }
            // `$FETCH_SOURCE` is this object; any other variable is a parameter.
            let own = property.request.variables.filter { $0 != "FETCH_SOURCE" && $0 != "FETCHED_PROPERTY" }
            let types = property.request.predicate.map { variableTypes($0.node, entity: destination) } ?? [:]
            let object = context.beginObject()
            context.member(Key.name, Self.propertyName(property.name))
            context.member(Key.destinationClass, destinationClass)
            context.member(Key.format, SwiftNames.literal(property.request.predicateString ?? "TRUEPREDICATE"))
            context.member(
                Key.parameters,
                own.map { "\(SwiftNames.identifier($0)): \(types[$0] ?? "Any?")" }.joined(separator: ", "))
            context.member(
                Key.variables,
                "["
                    + (["\"FETCH_SOURCE\": self"]
                    + own.map { "\(SwiftNames.literal($0)): \(SwiftNames.identifier($0))" }).joined(separator: ", ")
                    + "]")
            context.item(context.endObject(object))
        }
        return context.endList(list)
    }

    /// Whether ModelGenRuntime can run `request`'s predicate (else no function is generated;
    /// validation warned).
    private func runs(_ request: FetchRequest, on entity: Int) -> Bool {
        guard let predicate = request.predicate?.node else { return true }
        return RuntimePredicateSupport.refusal(predicate, entity: entity, in: model) == nil
    }

    /// The Swift type of each `$VARIABLE` from what it is compared with; `Any?` when unknown or
    /// when two uses disagree.
    func variableTypes(_ node: PredicateNode, entity: Int) -> [String: String] {
        var types: [String: String] = [:]
        var conflicting: Set<String> = []
        func record(_ name: String, _ type: String?) {
            guard let type else {
                conflicting.insert(name)
                return
            }
            if let known = types[name], known != type { conflicting.insert(name) }
            types[name] = type
        }
        func visit(_ node: PredicateNode) {
            switch node {
            case .constant: break
            case .not(let inner): visit(inner)
            case .and(let terms), .or(let terms): terms.forEach(visit)
            case .comparison(let comparison):
                let pairs = [(comparison.lhs, comparison.rhs), (comparison.rhs, comparison.lhs)]
                for (key, value) in pairs {
                    guard case .variable(let name, _) = value else { continue }
                    guard case .keyPath(.implicit, let components, _) = key else {
                        record(name, nil)
                        continue
                    }
                    // `$TAG IN tags`: an object of the to-many's destination.
                    if comparison.op == .in, case .variable = comparison.lhs {
                        record(name, keyPathType(components, from: entity, throughToMany: true, member: true))
                        continue
                    }
                    // `ANY tags.name == $NAME`: the type at the end of the path through the to-many.
                    var type = keyPathType(components, from: entity, throughToMany: comparison.quantifier != .none)
                    if comparison.op == .in, let element = type { type = "[\(element)]" }
                    if comparison.op == .between { type = nil }
                    if comparison.op.isStringOperator, type != typeName("String") { type = nil }
                    record(name, type)
                }
            }
        }
        visit(node)
        for name in conflicting { types[name] = nil }
        return types
    }

    /// The Swift type of the value at a key path: an attribute's (non-optional) type, or a to-one
    /// destination's class; `nil` for unknown keys, and through to-many relationships unless
    /// `throughToMany` (a quantified comparison: the type of each element's value). `member`: the
    /// path ends in a to-many whose destination's class is the type (`$TAG IN tags`).
    private func keyPathType(
        _ components: [String], from entity: Int, throughToMany: Bool = false, member: Bool = false
    ) -> String? {
        var current = entity
        for (position, component) in components.enumerated() {
            let isLast = position == components.count - 1
            if isLast, let stored = storedAttributes[current]?.first(where: { !$0.isMember && $0.name == component }),
                stored.isComparable
            {
                return stored.swiftType
            }
            guard let planned = relationships[current]?.first(where: { $0.relationship.name == component }),
                !planned.relationship.isToMany || throughToMany || (member && isLast)
            else { return nil }
            if isLast { return classNames[planned.destination] }
            current = planned.destination
        }
        return nil
    }
}
