import Foundation
import GeneratedModels
import TestSupport
import Testing

@_spi(Database) @testable import ModelGenRuntime

/// What only a server database does: connections that drop, saves of other processes announced
/// with `NOTIFY`, values PostgreSQL stores in its own types.
@Suite struct PostgresStoreTests {
    /// A fresh schema and a connection string whose sessions carry `application` as their name
    /// (so a test can end exactly its own sessions).
    static func withSchema(application: String, _ body: (PostgresCluster, String, String) throws -> Void) throws {
        guard let cluster = PostgresCluster.shared() else { return }
        let (schema, connectionString) = try cluster.freshSchema("server")
        defer { _ = try? cluster.psql("DROP SCHEMA \"\(schema)\" CASCADE;") }
        try body(cluster, schema, connectionString + " application_name=\(application)")
    }

    static func count(_ cluster: PostgresCluster, _ schema: String, _ table: String) throws -> Int {
        Int(try cluster.rows("SELECT count(*) FROM \"\(table)\";", schema: schema).first?.first ?? "") ?? -1
    }

    @Test func aConnectionDroppedMidSaveFailsRetryablyStoresNothingAndTheNextSaveSucceeds() throws {
        let application = "drop_\(UUID().uuidString.prefix(8))"
        try Self.withSchema(application: application) { cluster, schema, connectionString in
            let store = try PersistentStore(postgres: connectionString, model: HelloCoreDataModel.model)
            let context = store.newContext()
            _ = ContextMergingTests.addUser("Ada", in: context)
            try context.save()
            // Inserting an item takes a second: the save is inside its transaction, users written,
            // when the session is ended.
            try #require(
                try cluster.psql(
                    """
                    CREATE FUNCTION "slow"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$;
                    CREATE TRIGGER "slow_item" BEFORE INSERT ON "item" FOR EACH ROW EXECUTE FUNCTION "slow"();
                    """, schema: schema
                ).status == 0)
            _ = ContextMergingTests.addUser("Grace", in: context)
            _ = ContextMergingTests.addUser("Edsger", in: context)
            context.insert(Item.self).timestamp = Date(timeIntervalSinceReferenceDate: 1)
            let killer = Thread {
                usleep(400_000)
                _ = try? cluster.psql(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(application)' AND state = 'active';"
                )
            }
            killer.start()
            let error = try #require(throws: DatabaseError.self) { try context.save() }
            #expect(error.code == .connectionLost, "\(error)")
            #expect(try Self.count(cluster, schema, "user") == 1, "nothing of the failed save is stored")
            #expect(try Self.count(cluster, schema, "item") == 0)
            #expect(context.hasChanges, "the context keeps its changes")
            try #require(try cluster.psql("DROP TRIGGER \"slow_item\" ON \"item\";", schema: schema).status == 0)
            try context.save()
            #expect(try Self.count(cluster, schema, "user") == 3)
            #expect(try Self.count(cluster, schema, "item") == 1)
            #expect(try User.count(in: store.newContext()) == 3)
        }
    }

    @Test func aSaveInAnotherProcessIsMergedWithinASecondWithoutReadingTheTables() throws {
        try Self.withSchema(application: "notify") { cluster, _, connectionString in
            let store = try PersistentStore(postgres: connectionString, model: GradeBookModel.model)
            let setup = store.newContext()
            let id = UUID()
            _ = Quiz(in: setup, id: id, name: "before")
            try setup.save()
            let context = store.newContext()
            let quiz = try #require(try Quiz.find(id: id, in: context))
            let result = try StressTool.start([
                "rename-quiz", "--store", "postgres:" + connectionString, "--id", id.uuidString, "--name", "after",
            ])
            .finish()
            try #require(result.status == 0, "the other process failed: \(result.stdout)")
            let saved = Date()
            // Merging reads again only the objects a notification names; the object is not fetched.
            while quiz.name != "after" && Date().timeIntervalSince(saved) < 1 {
                context.mergeChangesFromStore()
                if quiz.name != "after" { usleep(10_000) }
            }
            #expect(quiz.name == "after", "merged within a second of the other process's save")
        }
    }

    @Test func storesInOneProcessHearEachOthersSaves() throws {
        try Self.withSchema(application: "notify2") { _, _, connectionString in
            let first = try PersistentStore(postgres: connectionString, model: HelloCoreDataModel.model)
            let second = try PersistentStore(postgres: connectionString, model: HelloCoreDataModel.model)
            let writer = first.newContext()
            let user = ContextMergingTests.addUser("Ada", in: writer)
            try writer.save()
            let reader = second.newContext()
            reader.automaticallyMergesChangesFromStore = true
            let copy = try #require(try User.first(in: reader, where: \User.id == user.id))
            user.hobby = "go"
            try writer.save()
            let saved = Date()
            while copy.hobby != "go" && Date().timeIntervalSince(saved) < 1 {
                reader.mergeChangesFromStore()
                usleep(10_000)
            }
            #expect(copy.hobby == "go")
            writer.delete(user)
            try writer.save()
            let deleted = Date()
            while copy.context != nil && Date().timeIntervalSince(deleted) < 1 {
                reader.mergeChangesFromStore()
                usleep(10_000)
            }
            #expect(copy.context == nil, "a deleted object leaves the other store's context")
        }
    }

    @Test func contextsOnTwoThreadsWorkOnTheServerAtOnce() throws {
        try Self.withSchema(application: "pool") { _, _, connectionString in
            let store = try PersistentStore(
                postgres: connectionString, model: HelloCoreDataModel.model, options: .init(connections: 2))
            let setup = store.newContext()
            _ = ContextMergingTests.addUser("Ada", in: setup)
            try setup.save()
            let other = DispatchSemaphore(value: 0)
            let pids: [Int64] = try store.withConnection { connection in
                let statement = try connection.makeStatement("SELECT pg_backend_pid()")
                _ = try statement.step()
                let mine = statement.int64(0)
                // While this thread holds its connection, another thread fetches and saves.
                nonisolated(unsafe) var theirs: Int64 = 0
                nonisolated(unsafe) var fetched = -1
                Thread {
                    let context = store.newContext()
                    fetched = (try? User.count(in: context)) ?? -1
                    theirs =
                        (try? store.withConnection { connection in
                            let statement = try connection.makeStatement("SELECT pg_backend_pid()")
                            _ = try statement.step()
                            return statement.int64(0)
                        }) ?? 0
                    other.signal()
                }.start()
                #expect(other.wait(timeout: .now() + 5) == .success, "the other thread did not wait for this one")
                #expect(fetched == 1)
                return [mine, theirs]
            }
            #expect(pids[0] != pids[1] && pids[1] != 0, "two sessions: \(pids)")
        }
    }
}
