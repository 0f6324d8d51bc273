import Foundation
import PredicateSyntax

extension ObjectContext {
    // MARK: - Values, aggregates, groups

    /// The rows `request` asks for: selected attributes, aggregates or groups (see
    /// `ValuesRequest`). One SQL statement where the context has no unsaved changes and SQL can
    /// compute every column as the runtime does; otherwise computed from the objects a fetch with
    /// the request's predicate returns, unsaved changes included.
    public func fetchValues<T: ManagedObject>(_ request: ValuesRequest<T>) throws -> [ResultRow<T>] {
        let rows = try fetchRows(request)
        // A NULL where the column's Swift type takes none (a required attribute a row lacks) is
        // an error here, not a stop when the row is read.
        let columns = (request.returnsDistinctResults ? [] : request.groupBy) + request.columns
        for row in rows {
            for column in columns where !column.accepts(row.value(of: column.term)) {
                throw DatabaseError(
                    .conversion,
                    "a row has no value for \(column.term), whose type \(column.valueTypeName) takes no nil",
                    entity: T.entityDescription.name)
            }
        }
        return rows
    }

    private func fetchRows<T: ManagedObject>(_ request: ValuesRequest<T>) throws(DatabaseError) -> [ResultRow<T>] {
        let plan = try request.plan()
        if parent == nil, automaticallyMergesChangesFromStore { mergeChangesFromStore() }
        let entity = T.entityDescription
        let terms = plan.keys + plan.values
        if parent == nil, !hasChanges, let query = ValuesQuery(request, plan, store.dialect) {
            let rows = try store.withReadConnection { connection throws(DatabaseError) in
                try query.run(connection, entity)
            }
            return rows.map { ResultRow(terms: terms, values: $0) }
        }
        let stored: [[StoredValue]]
        if plan.grouped {
            let objects = try DatabaseError.rethrown { try fetch(FetchRequest<T>(predicate: request.predicate)) }
            let all = try ResultValues.grouped(objects, plan, having: request.having, entity: entity)
            let start = min(plan.offset, all.count)
            stored = Array(all[start..<(plan.limit.map { min(start + $0, all.count) } ?? all.count)])
        } else {
            let objects = try DatabaseError.rethrown {
                try fetch(
                    FetchRequest<T>(
                        predicate: request.predicate, sortDescriptors: request.sortDescriptors, fetchLimit: plan.limit,
                        fetchOffset: plan.offset))
            }
            stored = try objects.map { object throws(DatabaseError) in
                try plan.values.map { term throws(DatabaseError) in try ResultValues.stored(term, of: object) }
            }
        }
        return try stored.map { row throws(DatabaseError) in
            let values = try zip(terms, row).map { term, value throws(DatabaseError) in
                try ResultValues.swiftValue(value, for: term, entity)
            }
            return ResultRow(terms: terms, values: values)
        }
    }

    /// One aggregate over the objects `predicate` selects: `try context.aggregate(.sum(\Order.price))`.
    public func aggregate<T: ManagedObject, V>(_ aggregate: Aggregate<T, V>, where predicate: ObjectPredicate<T>? = nil)
        throws -> V
    {
        let rows = try fetchValues(ValuesRequest(predicate: predicate, columns: [aggregate]))
        return rows[0][aggregate]
    }

    /// The values of an attribute, one per object `request` selects, in its order and window.
    public func fetchValues<T: ManagedObject, V>(_ keyPath: KeyPath<T, V>, _ request: FetchRequest<T> = FetchRequest())
        throws -> [V]
    {
        let column = ValueColumn(keyPath)
        let values = ValuesRequest(
            predicate: request.predicate, columns: [column], sortDescriptors: request.sortDescriptors,
            fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset)
        return try fetchValues(values).map { $0[column] }
    }

    /// The distinct values of an attribute among the objects `predicate` selects, ascending
    /// (`nil` first, strings by their bytes).
    public func distinctValues<T: ManagedObject, V>(
        of keyPath: KeyPath<T, V>, where predicate: ObjectPredicate<T>? = nil
    ) throws -> [V] {
        let column = ValueColumn(keyPath)
        let request = ValuesRequest(predicate: predicate, columns: [column], returnsDistinctResults: true)
        return try fetchValues(request).map { $0[column] }
    }
}

/// A values request as one SQL statement; `nil` where SQL would not compute it exactly as the
/// runtime does in memory (decimals, stored as text on SQLite; a predicate or an order partly
/// evaluated in memory).
struct ValuesQuery {
    let sql: String
    let parameters: [SQLArgument]
    let terms: [ResultTerm]

    init?<T: ManagedObject>(_ request: ValuesRequest<T>, _ plan: ValuesPlan, _ dialect: StoreDialect) {
        let entity = T.entityDescription
        terms = plan.keys + plan.values
        let allTerms = terms + (request.having?.terms ?? [])
        if allTerms.contains(where: { $0.attribute(of: entity)?.type == .decimal }) { return nil }
        let rows = FetchPlan(
            FetchRequest(predicate: request.predicate, sortDescriptors: request.sortDescriptors), pending: false,
            dialect: dialect)
        guard rows.sqlCountsAll else { return nil }
        let compiled = rows.compiled
        var parameters = rows.parameters
        let columns = terms.map { Self.expression($0, entity, dialect) }
        var sql =
            "SELECT \(columns.joined(separator: ", ")) " + entity.fetchedRowsSQL(where: compiled?.sql, dialect)
        if plan.grouped {
            let keys = plan.keys.map { Self.expression($0, entity, dialect) }
            if !keys.isEmpty { sql += " GROUP BY " + keys.joined(separator: ", ") }
            if let having = request.having {
                guard let condition = Self.condition(having.node, entity, dialect, &parameters) else { return nil }
                sql += " HAVING " + condition
            }
            if !keys.isEmpty {
                sql +=
                    " ORDER BY "
                    + zip(plan.keys, keys).map { term, key in
                        dialect.orderTerm(Self.ordered(key, term, entity, dialect), ascending: true)
                    }.joined(separator: ", ")
            }
        } else {
            guard rows.sqlAnswersAll else { return nil }
            sql += " ORDER BY " + rows.order.sql
        }
        if plan.limit != nil || plan.offset > 0 { sql += dialect.window(limit: plan.limit, offset: plan.offset) }
        self.sql = sql
        self.parameters = parameters
    }

    /// The SQL that computes `term` for a row (or a group) of `entity`'s table; `qualifier`
    /// (`"_d".`) names the table of the attribute's column.
    static func expression(
        _ term: ResultTerm, _ entity: EntityDescription, _ dialect: StoreDialect, qualifier: String = ""
    ) -> String {
        guard let path = term.path, let attribute = term.attribute(of: entity) else { return "count(*)" }
        var column = qualifier + EntityDescription.quoted(attribute.column)
        if let index = path.relationship { column = related(column, entity.relationships[index], entity) }
        let text = attribute.type == .string || attribute.type == .url
        switch term.function {
        case .value: return column
        case .count: return "count(*)"
        case .countValues: return "count(\(column))"
        case .countDistinct: return "count(DISTINCT \(column))"
        case .sum:
            let real = attribute.type == .double || attribute.type == .float
            return real ? dialect.sumOfReals(column) : dialect.sumOfIntegers(column)
        case .average: return dialect.average(column)
        case .min, .max:
            let name = term.function == .min ? "min" : "max"
            return "\(name)(\(text ? dialect.byteOrderedText(column) : column))"
        }
    }

    /// A key as it orders: strings by their bytes.
    private static func ordered(
        _ expression: String, _ term: ResultTerm, _ entity: EntityDescription, _ dialect: StoreDialect
    ) -> String {
        let type = term.attribute(of: entity)?.type
        return type == .string || type == .url ? dialect.byteOrderedText(expression) : expression
    }

    /// `column` of the destination of the to-one `relationship`, for a row of `entity`'s table:
    /// NULL where it leads nowhere.
    private static func related(_ column: String, _ relationship: RelationshipDescription, _ entity: EntityDescription)
        -> String
    {
        let quoted = EntityDescription.quoted
        let destination = quoted(relationship.destination?.entityDescription.table ?? "")
        let outer = quoted(entity.table)
        switch relationship.storage {
        case .foreignKey(let key):
            return
                "(SELECT \"_d\".\(column) FROM \(destination) AS \"_d\" WHERE \"_d\".\"_pk\" = \(outer).\(quoted(key)))"
        case .inverseForeignKey(let key, _):
            return
                "(SELECT \"_d\".\(column) FROM \(destination) AS \"_d\" WHERE \"_d\".\(quoted(key)) = \(outer).\"_pk\" LIMIT 1)"
        case .joinTable(let join, let source, let target, _):
            return
                "(SELECT \"_d\".\(column) FROM \(destination) AS \"_d\" JOIN \(quoted(join)) AS \"_j\" ON \"_j\".\(quoted(target)) = \"_d\".\"_pk\" WHERE \"_j\".\(quoted(source)) = \(outer).\"_pk\" LIMIT 1)"
        }
    }

    /// The HAVING condition, two-valued as the runtime evaluates it (`nil` equals `nil`).
    private static func condition<T: ManagedObject>(
        _ node: AggregateCondition<T>.Node, _ entity: EntityDescription, _ dialect: StoreDialect,
        _ parameters: inout [SQLArgument]
    ) -> String? {
        switch node {
        case .compare(let term, let op, let operand):
            guard let stored = try? ResultValues.stored(operand, for: term, entity), dialect.canBind(stored) else {
                return nil
            }
            let symbol: String
            switch op {
            case .equal: symbol = dialect.isNotDistinct
            case .notEqual: symbol = dialect.isDistinct
            case .less: symbol = "<"
            case .lessOrEqual: symbol = "<="
            case .greater: symbol = ">"
            case .greaterOrEqual: symbol = ">="
            default: return nil
            }
            let type = term.function == .min || term.function == .max ? term.attribute(of: entity)?.type : nil
            parameters.append(SQLArgument(stored, type))
            return dialect.nullAsFalse("\(expression(term, entity, dialect)) \(symbol) ?")
        case .and(let nodes), .or(let nodes):
            var parts: [String] = []
            for node in nodes {
                guard let part = condition(node, entity, dialect, &parameters) else { return nil }
                parts.append("(\(part))")
            }
            if case .and = node { return parts.joined(separator: " AND ") }
            return parts.joined(separator: " OR ")
        case .not(let inner):
            return condition(inner, entity, dialect, &parameters).map { "NOT (\($0))" }
        }
    }

    /// Runs the statement; each row's values as the Swift values of its terms.
    func run(_ connection: Connection, _ entity: EntityDescription) throws(DatabaseError) -> [[Any?]] {
        let statement = try connection.cachedStatement(sql)
        defer { statement.resetForRebinding() }
        for (index, value) in parameters.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
        var rows: [[Any?]] = []
        while try statement.step() {
            var row: [Any?] = []
            row.reserveCapacity(terms.count)
            for (index, term) in terms.enumerated() {
                row.append(try Self.read(statement, Int32(index), term, entity))
            }
            rows.append(row)
        }
        return rows
    }

    private static func read(_ statement: Statement, _ column: Int32, _ term: ResultTerm, _ entity: EntityDescription)
        throws(DatabaseError) -> Any?
    {
        let attribute = term.attribute(of: entity)
        switch term.function {
        case .count, .countValues, .countDistinct: return Int(statement.int64(column))
        case .average: return statement.isNull(column) ? nil : statement.double(column)
        case .sum:
            if attribute?.type == .double || attribute?.type == .float { return statement.double(column) }
            return Int(statement.int64(column))
        case .value, .min, .max:
            guard let attribute, !statement.isNull(column) else { return nil }
            let plain = ManagedObject.read(attribute.type, statement, column)
            guard let conversion = attribute.conversion else { return plain }
            return try conversion.typed(plain)
        }
    }
}
