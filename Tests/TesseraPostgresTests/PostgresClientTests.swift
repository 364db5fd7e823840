import FoundationEssentials
import Synchronization
import TesseraLoop
import Testing

@testable import TesseraPostgres

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct PostgresClientTests {
    @Test func typedParametersAndRowsRoundTrip() async throws {
        try await TestDatabase.withClient { client, _ in
            try await client.withPool { pool in
                let id = UUID()
                let when = Date(timeIntervalSince1970: 1_795_000_000.123456)
                let result = try await pool.query(
                    "SELECT $1::text, $2::int8, $3::bool, $4::bytea, $5::uuid, $6::timestamptz, $7::jsonb, $8::text",
                    [
                        "héllo ✓", 42, true, [0, 1, 254, 255] as [UInt8], id, when, PostgresJSONB(#"{"a": [1, 2]}"#),
                        String?.none,
                    ])
                #expect(result.rowCount == 1)
                let row = result[0]
                #expect(try row.decode(String.self, at: 0) == "héllo ✓")
                #expect(try row.decode(Int.self, at: 1) == 42)
                #expect(try row.decode(Bool.self, at: 2))
                #expect(try row.decode([UInt8].self, at: 3) == [0, 1, 254, 255])
                #expect(try row.decode(UUID.self, at: 4) == id)
                let decoded = try row.decode(Date.self, at: 5)
                #expect(abs(decoded.timeIntervalSince1970 - when.timeIntervalSince1970) < 0.000_001)
                #expect(try row.decode(PostgresJSONB.self, at: 6) == PostgresJSONB(#"{"a": [1, 2]}"#))
                #expect(try row.decode(String?.self, at: 7) == nil)
                #expect(throws: PostgresError.self) { try row.decode(String.self, at: 7) }
                #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 0) }
                #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 99) }
            }
        }
    }

    @Test func theConnectionStringsOwnOptionsApplyAndTheDriversWin() async throws {
        // options=-c tessera.probe=on -c statement_timeout=1: its own setting reaches every session; the driver's
        // statement timeout (5 s here) wins over the string's.
        try await TestDatabase.withClient(
            urlParameter: "options=-c%20tessera.probe%3Don%20-c%20statement_timeout%3D1"
        ) { client, _ in
            try await client.withPool { pool in
                let result = try await pool.query(
                    "SELECT current_setting('tessera.probe'), current_setting('statement_timeout')", [])
                #expect(try result[0].decode(String.self, at: 0) == "on")
                #expect(try result[0].decode(String.self, at: 1) == "5s")
            }
        }
    }

    @Test func aThousandConcurrentQueriesSpreadOverTheLoops() async throws {
        try await TestDatabase.withClient(loops: 2, connectionsPerLoop: 2) { client, group in
            try await withThrowingTaskGroup(of: (Int, Int?).self) { tasks in
                for index in 0..<1000 {
                    let loop = group.loops[index % 2]
                    tasks.addTask(executorPreference: loop) {
                        let pool = client.pool(on: loop)
                        let result = try await pool.query("SELECT $1::int8 * 2", [index])
                        return (try result[0].decode(Int.self, at: 0) - index * 2, EventLoop.current?.index)
                    }
                }
                var mismatches = 0
                var loopsUsed: Set<Int?> = []
                for try await (difference, loop) in tasks {
                    if difference != 0 { mismatches += 1 }
                    loopsUsed.insert(loop)
                }
                #expect(mismatches == 0)
                #expect(loopsUsed == [0, 1])
            }
        }
    }

    @Test func aFailingStatementDoesNotDisturbItsNeighbours() async throws {
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            try await client.withPool { pool in
                // Four requests on the wire at once on one connection, answered in order.
                let before = Task(executorPreference: pool.loop) { try await pool.query("SELECT 1") }
                let failing = Task(executorPreference: pool.loop) { try await pool.query("SELECT 1/0") }
                let syntax = Task(executorPreference: pool.loop) { try await pool.query("SELEKT nonsense") }
                let after = Task(executorPreference: pool.loop) { try await pool.query("SELECT 2") }
                let first = try await before.value
                #expect(try first[0].decode(Int.self, at: 0) == 1)
                await #expect { try await failing.value } throws: { ($0 as? PostgresError)?.sqlState == "22012" }
                await #expect { try await syntax.value } throws: { ($0 as? PostgresError)?.sqlState == "42601" }
                let last = try await after.value
                #expect(try last[0].decode(Int.self, at: 0) == 2)
                // The statement that failed to prepare is prepared again, and fails again, cleanly.
                await #expect(throws: PostgresError.self) { try await pool.query("SELEKT nonsense") }
                let third = try await pool.query("SELECT 3")
                #expect(try third[0].decode(Int.self, at: 0) == 3)
            }
        }
    }

    @Test func pipelinesAreAtomicAndTransactionsRollBackOnErrors() async throws {
        let table = TestDatabase.uniqueName("t_tx")
        try await TestDatabase.withClient(loops: 1) { client, _ in
            try await client.withPool { pool in
                try await pool.query("CREATE TABLE \(table) (id int PRIMARY KEY, note text)")
                defer { Task { try? await client.withPool { try await $0.query("DROP TABLE \(table)") } } }
                await #expect {
                    try await pool.pipeline([
                        PostgresQuery("INSERT INTO \(table) VALUES (1, 'a')"),
                        PostgresQuery("INSERT INTO \(table) VALUES (1, 'again')"),
                    ])
                } throws: { ($0 as? PostgresError)?.kind == .uniqueViolation }
                let count = try await pool.query("SELECT count(*) FROM \(table)")
                #expect(try count[0].decode(Int.self, at: 0) == 0)

                struct Abort: Error {}
                await #expect(throws: Abort.self) {
                    try await pool.transaction { transaction in
                        try await transaction.query("INSERT INTO \(table) VALUES (2, 'b')")
                        throw Abort()
                    }
                }
                let inserted = try await pool.transaction { transaction in
                    try await transaction.query("INSERT INTO \(table) VALUES (3, 'c')")
                    return try await transaction.query("SELECT count(*) FROM \(table)")[0].decode(Int.self, at: 0)
                }
                #expect(inserted == 1)
                let rows = try await pool.query("SELECT id FROM \(table) ORDER BY id")
                #expect(try rows.rows.map { try $0.decode(Int.self, at: 0) } == [3])
            }
        }
    }

    @Test func aStatementNotRunAfterAFailureInItsPipelineIsPreparedAgainNextTime() async throws {
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            try await client.withPool { pool in
                // Never sent before on this connection: its Parse rides in the pipeline behind the failure.
                let fresh = "SELECT \(UInt32.random(in: 0 ... .max))::int8 + 1"
                await #expect {
                    try await pool.pipeline([PostgresQuery("SELECT 1 / 0"), PostgresQuery(fresh)])
                } throws: { ($0 as? PostgresError)?.kind == .server }
                let answer = try await pool.query(fresh)
                #expect(answer.rowCount == 1)
            }
        }
    }

    @Test func statementsWaitForAConnectionThatTransactionsHold() async throws {
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            try await client.withPool { pool in
                // The only connection is held by a transaction; statements and a second transaction issued
                // meanwhile wait for it rather than failing as unavailable, and run once it is given back.
                let order = EventOrder()
                let holding = Task(executorPreference: pool.loop) {
                    try await pool.transaction { transaction in
                        try await transaction.query("SELECT 1")
                        try await pool.loop.sleep(for: .milliseconds(150))
                        order.record("transaction")
                    }
                }
                try await pool.loop.sleep(for: .milliseconds(30))
                let statement = Task(executorPreference: pool.loop) {
                    let result = try await pool.query("SELECT 2")
                    order.record("statement")
                    return try result[0].decode(Int.self, at: 0)
                }
                let second = Task(executorPreference: pool.loop) {
                    try await pool.transaction { transaction in
                        order.record("second transaction")
                        return try await transaction.query("SELECT 3")[0].decode(Int.self, at: 0)
                    }
                }
                try await holding.value
                #expect(try await statement.value == 2)
                #expect(try await second.value == 3)
                #expect(order.events.first == "transaction")
                #expect(Set(order.events) == ["transaction", "statement", "second transaction"])
            }
        }
    }

    @Test func aStatementHandedAConnectionGoesOutBeforeATransactionCanTakeIt() async throws {
        let table = TestDatabase.uniqueName("t_promise")
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            try await client.withPool { pool in
                try await pool.query("CREATE TABLE \(table) (id int)")
                defer { Task { try? await client.withPool { try await $0.query("DROP TABLE \(table)") } } }
                struct Abort: Error {}
                let waiting = Task(executorPreference: pool.loop) {
                    try await pool.query("INSERT INTO \(table) VALUES (1)")
                }
                try await pool.transaction { transaction in
                    try await transaction.query("SELECT 1")
                    // The statement queues behind this transaction.
                    try await pool.loop.sleep(for: .milliseconds(50))
                }
                // Right away, before the waiting statement's task has run: a transaction that rolls back. Had it
                // taken the connection first, its BEGIN would have gone out before the statement, taking the
                // statement into the transaction and its rollback.
                var aborted = false
                do {
                    try await pool.transaction { transaction in
                        try await transaction.query("INSERT INTO \(table) VALUES (2)")
                        throw Abort()
                    }
                } catch is Abort {
                    aborted = true
                }
                #expect(aborted)
                _ = try await waiting.value
                let rows = try await pool.query("SELECT id FROM \(table) ORDER BY id")
                #expect(try rows.rows.map { try $0.decode(Int.self, at: 0) } == [1])
            }
        }
    }

    @Test func aWaitForAHeldConnectionEndsAsUnavailableAfterTheAnswerDeadline() async throws {
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1, statementTimeout: .milliseconds(100)) {
            client, _ in
            try await client.withPool { pool in
                let holding = Task(executorPreference: pool.loop) {
                    try await pool.transaction { transaction in
                        try await transaction.query("SELECT 1")
                        try await pool.loop.sleep(for: .seconds(3))
                    }
                }
                try await pool.loop.sleep(for: .milliseconds(30))
                let started = ContinuousClock.now
                await #expect {
                    try await pool.query("SELECT 2")
                } throws: {
                    ($0 as? PostgresError)?.kind == .unavailable
                        && "\($0)".contains("every connection is held by a transaction")
                }
                // The answer deadline is the statement timeout plus the two-second grace.
                let waited = ContinuousClock.now - started
                #expect(waited >= .milliseconds(2000) && waited < .seconds(3))
                try await holding.value
                let after = try await pool.query("SELECT 4")
                #expect(try after[0].decode(Int.self, at: 0) == 4)
            }
        }
    }

    @Test func aTextParameterWithANULIsRefusedNotCutShort() async throws {
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            try await client.withPool { pool in
                // Sent as it was, libpq would pass "a" and drop the rest.
                await #expect {
                    try await pool.query("SELECT $1::text", ["a\u{0}b"])
                } throws: { ($0 as? PostgresError)?.sqlState == "22021" }
                let after = try await pool.query("SELECT $1::text", ["ab"])
                #expect(try after[0].decode(String.self, at: 0) == "ab")
            }
        }
    }

    @Test func serializationFailuresAndTimeoutsAreTyped() async throws {
        try await TestDatabase.withClient(loops: 1, statementTimeout: .milliseconds(100)) { client, _ in
            try await client.withPool { pool in
                await #expect {
                    try await pool.query("SELECT pg_sleep(1)")
                } throws: { ($0 as? PostgresError)?.kind == .timeout }
                await #expect {
                    try await pool.query(
                        "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'serialization_failure', MESSAGE = 'lost'; END $$")
                } throws: { ($0 as? PostgresError)?.kind == .serializationFailure }
                let one = try await pool.query("SELECT 1")
                #expect(try one[0].decode(Int.self, at: 0) == 1)
            }
        }
    }

    @Test func connectionsKilledMidLoadFailFastAndRecover() async throws {
        let name = TestDatabase.uniqueName("tessera_kill")
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 2, applicationName: name) { client, group in
            let loop = group.loops[0]
            let outcomes = try await Task(executorPreference: loop) { () async throws -> (Int, [String]) in
                let pool = client.pool(on: loop)
                var succeeded = 0
                var unavailable: [String] = []
                try await withThrowingTaskGroup(of: String?.self) { tasks in
                    for _ in 0..<20 {
                        tasks.addTask(executorPreference: loop) {
                            do {
                                try await pool.query("SELECT pg_sleep(2)")
                                return nil
                            } catch let error as PostgresError where error.kind == .unavailable {
                                return error.message
                            }
                        }
                    }
                    try await loop.sleep(for: .milliseconds(100))
                    try await Task.detached { try await killConnections(applicationName: name) }.value
                    for try await failure in tasks {
                        if let failure { unavailable.append(failure) } else { succeeded += 1 }
                    }
                }
                return (succeeded, unavailable)
            }.value
            #expect(outcomes.1.count == 20, "every request in flight fails as unavailable")
            // They fail when the connection is lost, not when the answer deadline passes: judged by the reason, not by
            // a clock (a bound of 2 s failed at 2.2 s on a loaded machine, the kill itself a new connection's work).
            #expect(
                outcomes.1.allSatisfy { !$0.hasPrefix("the database did not answer within") },
                "they fail at once, not when the answer deadline passes: \(outcomes.1)")
            var recovered = false
            for _ in 0..<100 where !recovered {
                recovered = (try? await client.withPool { try await $0.query("SELECT 1") }) != nil
                if !recovered { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(recovered, "later requests succeed once the pool has reconnected")
        }
    }

    @Test func anUnreachableDatabaseFailsStartQuickly() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = PostgresClient(
            configuration: PostgresConfiguration(url: "postgresql:///x?host=/nonexistent-socket-dir"), group: group)
        await #expect { try await client.start(timeout: .milliseconds(300)) } throws: {
            ($0 as? PostgresError)?.kind == .unavailable
        }
        #expect(!client.isReady)
        await #expect { try await client.withPool { try await $0.query("SELECT 1") } } throws: {
            ($0 as? PostgresError)?.kind == .unavailable
        }
        await client.shutdown()
    }
}

/// Terminates every backend with this application name, from a separate connection.
private func killConnections(applicationName: String) async throws {
    try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
        try await client.withPool { pool in
            _ = try await pool.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [applicationName])
        }
    }
}

@Suite(.serialized) struct PostgresWatchdogTests {
    @Test func aServerThatStopsAnsweringFailsRequestsInsteadOfHangingThem() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let configuration = PostgresConfiguration(
            url: try TestDatabase.url(), connectionsPerLoop: 1, statementTimeout: .milliseconds(200),
            initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(100), answerGrace: .milliseconds(200))
        let client = PostgresClient(configuration: configuration, group: group)
        try await client.start()
        let backend = try await client.withPool { pool in
            try await pool.query("SELECT pg_backend_pid()")[0].decode(Int.self, at: 0)
        }
        // A stopped backend keeps its socket open and answers nothing: exactly a hung server.
        let hung = StoppedBackends([backend], terminate: false)
        defer { hung.resume() }
        // Failed by the watchdog (statement_timeout cannot fire in a stopped backend), after about 400 ms: judged by
        // its reason, not by a clock.
        await #expect {
            try await client.withPool { try await $0.query("SELECT 1") }
        } throws: {
            ($0 as? PostgresError)?.kind == .unavailable
                && ($0 as? PostgresError)?.message.hasPrefix("the database did not answer within") == true
        }
        hung.resume()
        var recovered = false
        for _ in 0..<100 where !recovered {
            recovered = (try? await client.withPool { try await $0.query("SELECT 1") }) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(recovered, "a new connection replaces the hung one")
        await client.shutdown()
    }
}

/// The order in which concurrent tasks reached their marks.
private final class EventOrder: Sendable {
    private let recorded = Mutex<[String]>([])
    func record(_ event: String) { recorded.withLock { $0.append(event) } }
    var events: [String] { recorded.withLock { $0 } }
}
