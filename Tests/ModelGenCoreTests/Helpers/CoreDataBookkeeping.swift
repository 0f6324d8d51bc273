import Foundation

/// The bookkeeping tables of a hand-built Core Data store: `Z_PRIMARYKEY` with one row per
/// entity (`number`, `name`, `Z_MAX`; all roots) and `Z_METADATA` with a binary property list as
/// Core Data writes it (store type, UUID, framework version).
enum CoreDataBookkeeping {
    static func sql(uuid: String, entities: [(number: Int, name: String, max: Int)]) throws -> String {
        let plist = try PropertyListSerialization.data(
            fromPropertyList: [
                "NSStoreType": "SQLite", "NSStoreUUID": uuid, "NSPersistenceFrameworkVersion": 1344,
                "NSStoreModelVersionIdentifiers": [""],
            ] as [String: Any], format: .binary, options: 0)
        let rows = entities.map { "INSERT INTO Z_PRIMARYKEY VALUES (\($0.number), '\($0.name)', 0, \($0.max));" }
        return """
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            \(rows.joined(separator: "\n"))
            INSERT INTO Z_METADATA VALUES (1, '\(uuid)', X'\(plist.map { String(format: "%02X", $0) }.joined())');
            """
    }
}
