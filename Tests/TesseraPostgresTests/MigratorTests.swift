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
