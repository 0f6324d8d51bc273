import ModelGenCore
import ModelGenRuntime

/// The runtime's description of a model version, made from the compiler's (what the generated
/// code of that version would say, without its classes): how the CLI asks the runtime's own
/// Core Data binder whether a store is of a version, so `inspect` and an open cannot disagree.
enum RuntimeModelBridge {
    /// - Parameters:
    ///   - model: The compiler's model of one version.
    ///   - name: The runtime model's name.
    ///   - migrations: The migrations it carries, for SQLite and for PostgreSQL.
    /// - Returns: The runtime model, or nil when the version does not lower to tables.
    static func model(
        of model: ObjectModel, name: String,
        migrations: (sqlite: [PersistentStore.Migration], postgres: [PersistentStore.Migration]) = ([], [])
    ) -> PersistentStore.Model? {
        guard let schema = SchemaLowering().lower(model, diagnostics: DiagnosticEngine()) else { return nil }
        let entities = SwiftGenerator.runtimeMetadata(model: model, schema: schema).map(description)
        return PersistentStore.Model(
            name: name, sqliteDDL: SQLEmitter(dialect: .sqlite).emit(schema),
            postgresDDL: SQLEmitter(dialect: .postgres).emit(schema), schemaHash: SchemaSnapshot.make(schema).hash,
            coreDataFingerprint: model.coreDataVersionFingerprint, entities: entities, migrations: migrations.sqlite,
            postgresMigrations: migrations.postgres)
    }

    private static func description(_ entity: RuntimeEntityMetadata) -> EntityDescription {
        EntityDescription(
            name: entity.name, table: entity.table, entityID: Int32(entity.entityID),
            fetchedEntityIDs: entity.fetchedEntityIDs.map(Int32.init),
            attributes: entity.attributes.map { attribute in
                AttributeDescription(
                    name: attribute.key, column: attribute.column, type: valueType(attribute.type),
                    isOptional: attribute.isOptional, hasDefault: attribute.hasDefault)
            },
            relationships: entity.relationships.map { relationship in
                RelationshipDescription(
                    name: relationship.name, destinationEntityID: Int32(relationship.destinationEntityID),
                    inverse: relationship.inverse, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                    isOptional: relationship.isOptional, storage: storage(relationship.storage))
            },
            columns: entity.columns, isAbstract: entity.isAbstract, renamingIdentifier: entity.renamingIdentifier)
    }

    private static func valueType(_ name: String) -> ValueType {
        switch name {
        case "int16": .int16
        case "int32": .int32
        case "int64": .int64
        case "bool": .bool
        case "double": .double
        case "float": .float
        case "decimal": .decimal
        case "string": .string
        case "date": .date
        case "data": .data
        case "uuid": .uuid
        default: .url
        }
    }

    private static func storage(_ storage: RuntimeEntityMetadata.Storage) -> RelationshipDescription.Storage {
        switch storage {
        case .foreignKey(let column): .foreignKey(column: column)
        case .inverseForeignKey(let column, let position): .inverseForeignKey(column: column, position: position)
        case .joinTable(let table, let source, let destination, let position):
            .joinTable(table: table, source: source, destination: destination, position: position)
        }
    }
}
