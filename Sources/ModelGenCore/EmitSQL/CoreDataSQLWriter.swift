/// Writes a schema of `CoreDataLayout` as the statements Core Data itself runs on SQLite, in
/// its text form (`CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, … )`): each table followed by
/// its indexes, then the bookkeeping tables. So the output can be compared with a store's
/// `sqlite_master` statement by statement.
public struct CoreDataSQLWriter: Sendable {
    /// Whether to write `Z_MODELCACHE` (Core Data makes it from framework version 754 on).
    public var writesModelCache: Bool

    public init(frameworkVersion: Int = CoreDataLayout.currentFrameworkVersion) {
        writesModelCache = frameworkVersion >= 754
    }

    public func emit(_ schema: RelationalSchema) -> String {
        var lines = ["-- \(schema.modelName)\(schema.versionName.map { " (\($0))" } ?? ""): Core Data's store layout"]
        for table in schema.tables {
            lines.append(createTable(table) + ";")
            for index in schema.indexes where index.table == table.name { lines.append(createIndex(index) + ";") }
        }
        lines += Self.bookkeepingTables(withModelCache: writesModelCache).map { $0 + ";" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The statement creating `table`, as Core Data words it.
    public func createTable(_ table: Table) -> String {
        var parts = table.columns.map { column in
            column.role == .primaryKey
                ? "\(column.name) INTEGER PRIMARY KEY" : "\(column.name) \(CoreDataDeclaredType(column.type).name)"
        }
        if table.kind == .join { parts.append("PRIMARY KEY (\(table.primaryKey.joined(separator: ", ")))") }
        return "CREATE TABLE \(table.name) ( \(parts.joined(separator: ", ")) )"
    }

    /// The statement creating `index`, as Core Data words it.
    public func createIndex(_ index: Index) -> String {
        let parts = index.parts.map { part in
            if let collation = part.collation {
                return "\(part.column) COLLATE \(collation) \(part.isDescending ? "DESC" : "ASC")"
            }
            return part.isDescending ? "\(part.column) DESC" : part.column
        }
        return
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(index.name) ON \(index.table) (\(parts.joined(separator: ", ")))"
    }

    /// `Z_PRIMARYKEY`, `Z_METADATA` and (from framework version 754) `Z_MODELCACHE`.
    public static func bookkeepingTables(withModelCache: Bool) -> [String] {
        [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        ] + (withModelCache ? ["CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"] : [])
    }
}
