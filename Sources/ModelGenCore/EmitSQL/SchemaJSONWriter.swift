import Mustache

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
        return writer.output.takeBytes()
    }

    private mutating func emit(_ text: StaticString) { output.append(text) }
    private mutating func emit(string text: String) { output.append(string: text) }

    /// `{"name":`, opening an object whose first key is only known at run time (other keys are
    /// written with their punctuation as one literal).
    private mutating func openObject(key name: StaticString) {
        emit("{\"")
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
    private mutating func integer(_ value: Int64) { output.append(integer: value) }
    private mutating func bool(_ value: Bool) { emit(value ? "true" : "false") }
    private mutating func double(_ value: Double) { emit(string: DumpValue.number(value)) }

    private mutating func list<T>(_ items: [T], _ body: (inout SchemaJSONWriter, T) -> Void) {
        emit("[")
        // By index: enumerating would copy each item (a column: its strings retained) out.
        for index in items.indices {
            if index > 0 { output.append(byte: UInt8(ascii: ",")) }
            body(&self, items[index])
        }
        emit("]")
    }

    private mutating func write(_ schema: RelationalSchema) {
        emit("{\"layout\":")
        string(schema.layout)
        emit(",\"modelName\":")
        string(schema.modelName)
        if let version = schema.versionName {
            emit(",\"versionName\":")
            string(version)
        }
        emit(",\"tables\":")
        list(schema.tables) { $0.write($1) }
        emit(",\"indexes\":")
        list(schema.indexes) { $0.write($1) }
        emit(",\"entities\":")
        list(schema.entities) { writer, mapping in
            writer.emit("{\"entity\":")
            writer.string(mapping.entity)
            writer.emit(",\"table\":")
            writer.string(mapping.table)
            writer.emit(",\"entityID\":")
            writer.integer(Int64(mapping.entityID))
            writer.emit(",\"isAbstract\":")
            writer.bool(mapping.isAbstract)
            writer.emit("}")
        }
        emit("}")
    }

    private mutating func write(_ table: Table) {
        emit("{\"name\":")
        string(table.name)
        emit(",\"kind\":")
        string(table.kind.rawValue)
        emit(",\"columns\":")
        list(table.columns) { $0.write($1) }
        emit(",\"primaryKey\":")
        list(table.primaryKey) { $0.string($1) }
        emit(",\"foreignKeys\":")
        list(table.foreignKeys) { writer, foreignKey in
            writer.emit("{\"columns\":")
            writer.list(foreignKey.columns) { $0.string($1) }
            writer.emit(",\"referencedTable\":")
            writer.string(foreignKey.referencedTable)
            writer.emit(",\"referencedColumns\":")
            writer.list(foreignKey.referencedColumns) { $0.string($1) }
            writer.emit(",\"onDelete\":")
            writer.string(foreignKey.onDelete.rawValue)
            writer.emit(",\"isDeferred\":")
            writer.bool(foreignKey.isDeferred)
            writer.emit("}")
        }
        emit(",\"checks\":")
        list(table.checks) { writer, check in
            writer.emit("{\"name\":")
            writer.string(check.name)
            writer.emit(",\"condition\":")
            writer.write(check.condition)
            writer.emit("}")
        }
        emit("}")
    }

    private mutating func write(_ column: Column) {
        emit("{\"name\":")
        string(column.name)
        emit(",\"type\":")
        string(column.type.rawValue)
        emit(",\"isNullable\":")
        bool(column.isNullable)
        if let value = column.defaultValue {
            emit(",\"defaultValue\":")
            write(value)
        }
        emit(",\"role\":")
        string(column.role.rawValue)
        if let source = column.source {
            emit(",\"source\":")
            string(source)
        }
        emit("}")
    }

    private mutating func write(_ value: SQLValue) {
        switch value {
        case .integer(let number):
            emit("{\"integer\":")
            integer(number)
        case .real(let number):
            emit("{\"real\":")
            double(number)
        case .decimal(let text):
            emit("{\"decimal\":")
            string(text)
        case .text(let text):
            emit("{\"text\":")
            string(text)
        case .bool(let flag):
            emit("{\"bool\":")
            bool(flag)
        case .date(let seconds):
            emit("{\"date\":")
            double(seconds)
        case .uuid(let text):
            emit("{\"uuid\":")
            string(text)
        }
        emit("}")
    }

    private mutating func write(_ condition: Check.Condition) {
        func column(_ writer: inout SchemaJSONWriter, _ kind: StaticString, _ name: String) {
            writer.openObject(key: kind)
            writer.emit("{\"column\":")
            writer.string(name)
        }
        switch condition {
        case .oneOf(let name, let values):
            column(&self, "oneOf", name)
            emit(",\"values\":")
            list(values) { $0.integer($1) }
        case .range(let name, let minimum, let maximum):
            column(&self, "range", name)
            if let minimum {
                emit(",\"minimum\":")
                write(minimum)
            }
            if let maximum {
                emit(",\"maximum\":")
                write(maximum)
            }
        case .length(let name, let minimum, let maximum):
            column(&self, "length", name)
            if let minimum {
                emit(",\"minimum\":")
                integer(minimum)
            }
            if let maximum {
                emit(",\"maximum\":")
                integer(maximum)
            }
        case .integerWidth(let name, let type):
            column(&self, "integerWidth", name)
            emit(",\"type\":")
            string(type.rawValue)
        case .requiredFor(let name, let entityIDs):
            column(&self, "requiredFor", name)
            emit(",\"entityIDs\":")
            list(entityIDs) { $0.integer($1) }
        case .matches(let name, let pattern):
            column(&self, "matches", name)
            emit(",\"pattern\":")
            string(pattern)
        case .isBoolean(let name):
            column(&self, "isBoolean", name)
        case .byteCount(let name, let bytes):
            column(&self, "byteCount", name)
            emit(",\"bytes\":")
            integer(bytes)
        }
        emit("}}")
    }

    private mutating func write(_ index: Index) {
        emit("{\"name\":")
        string(index.name)
        emit(",\"table\":")
        string(index.table)
        emit(",\"parts\":")
        list(index.parts) { writer, part in
            writer.emit("{\"column\":")
            writer.string(part.column)
            writer.emit(",\"isDescending\":")
            writer.bool(part.isDescending)
            writer.emit("}")
        }
        emit(",\"isUnique\":")
        bool(index.isUnique)
        if let entityIDs = index.entityIDs {
            emit(",\"entityIDs\":")
            list(entityIDs) { $0.integer($1) }
        }
        emit("}")
    }
}
