import Synchronization
import TesseraLoop
import Testing

@testable import TesseraPostgres

@Suite(.serialized) struct MigratorTests {
    private func migrations(_ module: String, table: String) -> [Migration] {
        [
            Migration(module: module, version: 1, name: "create", sql: "CREATE TABLE \(table) (id int PRIMARY KEY);"),
            Migration(
                module: module, version: 2, name: "seed",
                sql: "INSERT INTO \(table) VALUES (1); INSERT INTO \(table) VALUES (2);"),
        ]
    }

    @Test func threeMigratorsAtOnceMigrateOnce() async throws {
        let module = TestDatabase.uniqueName("m")
        let table = TestDatabase.uniqueName("t_mig")
        let set = migrations(module, table: table)
        let url = try TestDatabase.url()
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let applied = try await withThrowingTaskGroup(of: Int.self) { tasks in
            for _ in 0..<3 {
                tasks.addTask {
                    try await group.loops[0].offload { try Migrator.migrate(url: url, migrations: set).count }
                }
            }
            return try await tasks.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(applied.sorted() == [0, 0, 2])
        #expect(try Migrator.migrate(url: url, migrations: set).isEmpty)
        let more = set + [Migration(module: module, version: 3, name: "more", sql: "INSERT INTO \(table) VALUES (3)")]
        #expect(try Migrator.migrate(url: url, migrations: more).map(\.version) == [3])
    }

    @Test func aFailingMigrationRollsBackWholeAndNamesItself() throws {
        let module = TestDatabase.uniqueName("m")
        let table = TestDatabase.uniqueName("t_bad")
        let broken = [
            Migration(module: module, version: 1, name: "create", sql: "CREATE TABLE \(table) (id int);"),
            Migration(
                module: module, version: 2, name: "broken",
                sql: "INSERT INTO \(table) VALUES (1); INSERT INTO nowhere VALUES (2);"),
        ]
        let url = try TestDatabase.url()
        #expect {
            try Migrator.migrate(url: url, migrations: broken)
        } throws: { error in
            let text = (error as? Migrator.Failure)?.description ?? ""
            return text.contains("\(module)/0002_broken") && text.contains("nowhere") && !text.contains("\n")
        }
        let fixed = [
            broken[0], Migration(module: module, version: 2, name: "fixed", sql: "INSERT INTO \(table) VALUES (1)"),
        ]
        #expect(try Migrator.migrate(url: url, migrations: fixed).map(\.version) == [2])
    }

    /// Runs `body` while another session holds a transaction open that has read `table` (its lock conflicts with
    /// any change of the table's definition); the transaction ends when `body` returns.
    private func whileATransactionHolds<T: Sendable>(
        _ table: String, _ body: @escaping @Sendable (PostgresClient, EventLoopGroup) async throws -> T
    ) async throws -> T {
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 2) { client, group in
            let holding = Mutex(false)
            let released = Mutex(false)
            let blocker = Task {
                try await client.withPool { pool in
                    try await pool.transaction { transaction in
                        _ = try await transaction.query("SELECT count(*) FROM \(table)", [])
                        holding.withLock { $0 = true }
                        while !released.withLock({ $0 }) { try await pool.loop.sleep(for: .milliseconds(5)) }
                    }
                }
            }
            while !holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            let value: T
            do {
                value = try await body(client, group)
            } catch {
                released.withLock { $0 = true }
                _ = try? await blocker.value
                throw error
            }
            released.withLock { $0 = true }
            try await blocker.value
            return value
        }
    }

    @Test func aMigrationBehindALongTransactionLetsTheTableServeWhileItWaits() async throws {
        let module = TestDatabase.uniqueName("m")
        let table = TestDatabase.uniqueName("t_busy")
        let create = Migration(module: module, version: 1, name: "create", sql: "CREATE TABLE \(table) (id int);")
        let alter = Migration(module: module, version: 2, name: "alter", sql: "ALTER TABLE \(table) ADD COLUMN x int;")
        let url = try TestDatabase.url()
        try Migrator.migrate(url: url, migrations: [create])
        // On a loop of its own: the client's loops end with the transaction, before the migration does.
        let migrator = try EventLoopGroup(loopCount: 1)
        defer { migrator.shutdown() }
        let migrating = try await whileATransactionHolds(table) { client, _ in
            let migrating = Task {
                try await migrator.loops[0].offload {
                    try Migrator.migrate(
                        url: url, migrations: [create, alter], lockTimeout: .milliseconds(50), attempts: 1_000
                    ).map(\.version)
                }
            }
            // While the migration waits for the table, a read of it still gets through, between its attempts,
            // long before the transaction ends (the client's statement timeout is 5 s; it would wait for the
            // transaction, which ends only after this read, if the migration's lock request stayed queued).
            try await Task.sleep(for: .milliseconds(120))
            for _ in 0..<3 {
                let rows = try await client.withPool { pool in try await pool.query("SELECT count(*) FROM \(table)") }
                #expect(try rows[0].decode(Int64.self, at: 0) == 0)
            }
            return migrating
        }
        #expect(try await migrating.value == [2])
    }

    @Test func aMigrationThatNeverGetsItsLocksFailsInOneLineAndAppliesNothing() async throws {
        let module = TestDatabase.uniqueName("m")
        let table = TestDatabase.uniqueName("t_held")
        let create = Migration(module: module, version: 1, name: "create", sql: "CREATE TABLE \(table) (id int);")
        let alter = Migration(
            module: module, version: 2, name: "alter",
            sql: "INSERT INTO \(table) VALUES (1); ALTER TABLE \(table) ADD COLUMN x int;")
        let url = try TestDatabase.url()
        try Migrator.migrate(url: url, migrations: [create])
        let failure = try await whileATransactionHolds(table) { _, group in
            try await group.loops[0].offload { () -> String? in
                do {
                    try Migrator.migrate(
                        url: url, migrations: [create, alter], lockTimeout: .milliseconds(20), attempts: 3)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
        }
        let text = try #require(failure)
        #expect(text.contains("\(module)/0002_alter") && text.contains("lock timeout"))
        #expect(text.contains("3 attempts of 20 ms") && !text.contains("\n"))
        // Nothing of it was applied, and once the table is free it applies as a whole.
        let rows = try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            try await client.withPool { pool in try await pool.query("SELECT count(*) FROM \(table)") }
        }
        #expect(try rows[0].decode(Int64.self, at: 0) == 0)
        #expect(try Migrator.migrate(url: url, migrations: [create, alter]).map(\.version) == [2])
    }

    @Test func outOfOrderOrRepeatedVersionsAreRefused() {
        let a = Migration(module: "x", version: 2, name: "a", sql: "")
        let b = Migration(module: "x", version: 1, name: "b", sql: "")
        #expect(throws: Migrator.Failure.self) { try Migrator.validate([a, b]) }
        #expect(throws: Migrator.Failure.self) { try Migrator.validate([b, b]) }
        #expect(throws: Migrator.Failure.self) {
            try Migrator.validate([Migration(module: "x", version: 0, name: "zero", sql: "")])
        }
        #expect(throws: Never.self) {
            try Migrator.validate([b, a, Migration(module: "y", version: 1, name: "c", sql: "")])
        }
    }

    @Test func anUnreachableDatabaseIsOneLine() {
        #expect {
            try Migrator.migrate(url: "postgresql:///x?host=/nonexistent-dir", migrations: [])
        } throws: { error in
            let text = (error as? Migrator.Failure)?.description ?? ""
            return text.hasPrefix("database unreachable") && !text.contains("\n")
        }
    }
}
