/// Writes a `RelationalSchema` as compact JSON directly, byte for byte what encoding it through
/// `DumpEncoder` and `DumpValue.compactJSON` gives (keys in declaration order, absent optionals
/// left out), without building an intermediate tree: the snapshot of a large model is megabytes.
struct SchemaJSONWriter {
    /// UTF-8, appended to in small pieces (cheaper on bytes than on a `String`).
    private(set) var output = TextBuffer()

    static func json(_ schema: RelationalSchema) -> String { String(decoding: jsonBytes(schema), as: UTF8.self) }

    static func jsonBytes(_ schema: RelationalSchema) -> [UInt8] {
        var writer = SchemaJSONWriter()
        writer.output = TextBuffer(capacity: schema.tables.count * 4_096)
        writer.write(schema)
        return writer.output.bytes
    }

    private mutating func emit(_ text: StaticString) { output.append(text) }
    private mutating func emit(string text: String) { output.append(string: text) }

    private mutating func key(_ name: StaticString, first: Bool = false) {
        emit(first ? "{\"" : ",\"")
        emit(name)
        emit("\":")
    }

    private mutating func string(_ text: String) {
        if text.hasByteNeedingEscape() {
            emit(string: DumpValue.quoted(text))
        } else {
            output.append(byte: UInt8(ascii: "\""))
            emit(string: text)
            output.append(byte: UInt8(ascii: "\""))
        }
    }
    private mutating func integer(_ value: Int64) { emit(string: String(value)) }
    private mutating func bool(_ value: Bool) { emit(value ? "true" : "false") }
    private mutating func double(_ value: Double) { emit(string: DumpValue.number(value)) }

    private mutating func list<T>(_ items: [T], _ body: (inout SchemaJSONWriter, T) -> Void) {
        emit("[")
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(byte: UInt8(ascii: ",")) }
            body(&self, item)
        }
        emit("]")
    }

    private mutating func write(_ schema: RelationalSchema) {
        key("layout", first: true)
        string(schema.layout)
        key("modelName")
        string(schema.modelName)
        if let version = schema.versionName {
            key("versionName")
            string(version)
        }
        key("tables")
        list(schema.tables) { $0.write($1) }
        key("indexes")
        list(schema.indexes) { $0.write($1) }
        key("entities")
        list(schema.entities) { writer, mapping in
            writer.key("entity", first: true)
            writer.string(mapping.entity)
            writer.key("table")
            writer.string(mapping.table)
            writer.key("entityID")
            writer.integer(Int64(mapping.entityID))
            writer.key("isAbstract")
            writer.bool(mapping.isAbstract)
            writer.emit("}")
        }
        emit("}")
    }

    private mutating func write(_ table: Table) {
        key("name", first: true)
        string(table.name)
        key("kind")
        string(table.kind.rawValue)
        key("columns")
        list(table.columns) { $0.write($1) }
        key("primaryKey")
        list(table.primaryKey) { $0.string($1) }
        key("foreignKeys")
        list(table.foreignKeys) { writer, foreignKey in
            writer.key("columns", first: true)
            writer.list(foreignKey.columns) { $0.string($1) }
            writer.key("referencedTable")
            writer.string(foreignKey.referencedTable)
            writer.key("referencedColumns")
            writer.list(foreignKey.referencedColumns) { $0.string($1) }
            writer.key("onDelete")
            writer.string(foreignKey.onDelete.rawValue)
            writer.key("isDeferred")
            writer.bool(foreignKey.isDeferred)
            writer.emit("}")
        }
        key("checks")
        list(table.checks) { writer, check in
            writer.key("name", first: true)
            writer.string(check.name)
            writer.key("condition")
            writer.write(check.condition)
            writer.emit("}")
        }
        emit("}")
    }

    private mutating func write(_ column: Column) {
        key("name", first: true)
        string(column.name)
        key("type")
        string(column.type.rawValue)
        key("isNullable")
        bool(column.isNullable)
        if let value = column.defaultValue {
            key("defaultValue")
            write(value)
        }
        key("role")
        string(column.role.rawValue)
        if let source = column.source {
            key("source")
            string(source)
        }
        emit("}")
    }

    private mutating func write(_ value: SQLValue) {
        switch value {
        case .integer(let number):
            key("integer", first: true)
            integer(number)
        case .real(let number):
            key("real", first: true)
            double(number)
        case .decimal(let text):
            key("decimal", first: true)
            string(text)
        case .text(let text):
            key("text", first: true)
            string(text)
        case .bool(let flag):
            key("bool", first: true)
            bool(flag)
        case .date(let seconds):
            key("date", first: true)
            double(seconds)
        case .uuid(let text):
            key("uuid", first: true)
            string(text)
        }
        emit("}")
    }

    private mutating func write(_ condition: Check.Condition) {
        func column(_ writer: inout SchemaJSONWriter, _ kind: StaticString, _ name: String) {
            writer.key(kind, first: true)
            writer.key("column", first: true)
            writer.string(name)
        }
        switch condition {
        case .oneOf(let name, let values):
            column(&self, "oneOf", name)
            key("values")
            list(values) { $0.integer($1) }
        case .range(let name, let minimum, let maximum):
            column(&self, "range", name)
            if let minimum {
                key("minimum")
                write(minimum)
            }
            if let maximum {
                key("maximum")
                write(maximum)
            }
        case .length(let name, let minimum, let maximum):
            column(&self, "length", name)
            if let minimum {
                key("minimum")
                integer(minimum)
            }
            if let maximum {
                key("maximum")
                integer(maximum)
            }
        case .integerWidth(let name, let type):
            column(&self, "integerWidth", name)
            key("type")
            string(type.rawValue)
        case .requiredFor(let name, let entityIDs):
            column(&self, "requiredFor", name)
            key("entityIDs")
            list(entityIDs) { $0.integer($1) }
        case .matches(let name, let pattern):
            column(&self, "matches", name)
            key("pattern")
            string(pattern)
        case .isBoolean(let name):
            column(&self, "isBoolean", name)
        case .byteCount(let name, let bytes):
            column(&self, "byteCount", name)
            key("bytes")
            integer(bytes)
        }
        emit("}}")
    }

    private mutating func write(_ index: Index) {
        key("name", first: true)
        string(index.name)
        key("table")
        string(index.table)
        key("parts")
        list(index.parts) { writer, part in
            writer.key("column", first: true)
            writer.string(part.column)
            writer.key("isDescending")
            writer.bool(part.isDescending)
            writer.emit("}")
        }
        key("isUnique")
        bool(index.isUnique)
        if let entityIDs = index.entityIDs {
            key("entityIDs")
            list(entityIDs) { $0.integer($1) }
        }
        emit("}")
    }
}
