import Foundation
import GeneratedModels
import Testing

@_spi(Database) @testable import ModelGenRuntime

/// The SQLite layer on real database files.
@Suite struct ConnectionTests {
    func withDatabaseFile(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("store.sqlite").path)
    }

    @Test func fileDatabasesUseWALAndEnforceForeignKeys() throws {
        try withDatabaseFile { path in
            let connection = try Connection(path: path)
            let mode = try connection.cachedStatement("PRAGMA journal_mode")
            #expect(try mode.step())
            #expect(mode.string(0) == "wal")
            let keys = try connection.cachedStatement("PRAGMA foreign_keys")
            #expect(try keys.step())
            #expect(keys.int64(0) == 1)
        }
    }

    /// SQLite's last row id is an error, not a crash, where there is none to ask.
    @Test(arguments: Backend.allCases)
    func lastInsertedRowIDIsRefusedWhereThereIsNone(_ backend: Backend) throws {
        guard let (location, cleanup) = try TemporaryStore.make(backend) else { return }
        defer { cleanup() }
        let connection = try location.connect()
        if backend == .postgres {
            #expect(throws: DatabaseError.self) { try connection.lastInsertedRowID }
            return
        }
        try connection.execute(#"CREATE TABLE "t" ("i" INTEGER)"#)
        try connection.execute(#"INSERT INTO "t" VALUES (7)"#)
        #expect(try connection.lastInsertedRowID == 1)
        connection.close()
        let error = #expect(throws: DatabaseError.self) { try connection.lastInsertedRowID }
        #expect(error?.code == .misuse)
    }

    @Test func valuesRoundTripAsBoundParameters() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute(#"CREATE TABLE "t" ("i" INTEGER, "d" REAL, "s" TEXT, "b" BLOB, "n" TEXT)"#)
        let hostile = "Robert'); DROP TABLE \"t\";-- \u{0}nul é 🚀"
        let insert = try connection.cachedStatement(#"INSERT INTO "t" VALUES (?, ?, ?, ?, ?)"#)
        insert.bind(Int64.min, at: 1)
        insert.bind(3.25, at: 2)
        insert.bind(hostile, at: 3)
        insert.bind([0, 1, 255], at: 4)
        insert.bindNull(5)
        try insert.run()
        #expect(connection.changes == 1)
        #expect(try connection.lastInsertedRowID == 1)
        let select = try connection.cachedStatement(#"SELECT "i", "d", "s", "b", "n" FROM "t""#)
        #expect(try select.step())
        #expect(select.int64(0) == Int64.min)
        #expect(select.double(1) == 3.25)
        #expect(select.string(2) == hostile)
        #expect(select.bytes(3) == [0, 1, 255])
        #expect(select.isNull(4))
        #expect(try !select.step())
    }

    @Test func statementsAreCachedAndReset() throws {
        let connection = try Connection(path: ":memory:")
        let first = try connection.cachedStatement("SELECT ?")
        first.bind(Int64(7), at: 1)
        #expect(try first.step())
        let second = try connection.cachedStatement("SELECT ?")
        #expect(first === second)
        #expect(try second.step())
        #expect(second.isNull(0), "bindings are cleared when a cached statement is handed out again")
    }

    @Test func transactionsCommitOrRollBackWhole() throws {
        try withDatabaseFile { path in
            let connection = try Connection(path: path)
            try connection.execute(#"CREATE TABLE "t" ("v" INTEGER NOT NULL)"#)
            try connection.transaction { try connection.execute(#"INSERT INTO "t" VALUES (1)"#) }
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try connection.transaction {
                    try connection.execute(#"INSERT INTO "t" VALUES (2)"#)
                    throw Stop()
                }
            }
            #expect(throws: DatabaseError.self) {
                try connection.transaction {
                    try connection.execute(#"INSERT INTO "t" VALUES (3)"#)
                    try connection.execute(#"INSERT INTO "t" VALUES (NULL)"#)
                }
            }
            let reopened = try Connection(path: path)
            let count = try reopened.cachedStatement(#"SELECT group_concat("v") FROM "t""#)
            #expect(try count.step())
            #expect(count.string(0) == "1")
        }
    }

    @Test func errorsCarryCodeSQLAndSQLiteCode() throws {
        let connection = try Connection(path: ":memory:")
        do {
            try connection.execute("SELEKT 1")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .sqlite)
            #expect(error.sql == "SELEKT 1")
            #expect(error.sqliteCode == 1)
            #expect(error.message.contains("syntax error"))
        }
        #expect(throws: DatabaseError.self) { try connection.cachedStatement("SELECT * FROM nowhere") }
        #expect(throws: DatabaseError.self) { try Connection(path: "/nonexistent/dir/store.sqlite") }
    }
}
