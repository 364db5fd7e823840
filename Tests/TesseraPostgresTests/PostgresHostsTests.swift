import Foundation
import Synchronization
import TesseraLoop
import Testing

@testable import TesseraPostgres

#if canImport(Glibc)
import Glibc
#endif

/// A multi-host connection string (a primary and its standby) tried one host at a time, and a listening session
/// that notices a server that stopped answering: what lets a server follow a failover (docs/operations.md,
/// "PostgreSQL high availability").
@Suite struct PostgresHostsTests {
    private typealias Setting = PostgresHosts.Setting

    @Test func eachHostOfAMultiHostStringIsAnAttemptOfItsOwn() {
        let url = PostgresHosts(
            conninfo: "postgresql:///db?host=/run/a,/run/b&port=5501,5502&user=postgres&target_session_attrs=read-write"
        )
        #expect(
            url.attempts == [
                [Setting(keyword: "host", value: "/run/a"), Setting(keyword: "port", value: "5501")],
                [Setting(keyword: "host", value: "/run/b"), Setting(keyword: "port", value: "5502")],
            ])
        #expect(url.connectTimeout == nil)
        #expect(url.attemptTimeout(.seconds(5)) == .seconds(5))
        // The URI form with host:port pairs, and the keyword form with one port for every host.
        #expect(
            PostgresHosts(conninfo: "postgresql://db1:5432,db2:5433/tessera").attempts == [
                [Setting(keyword: "host", value: "db1"), Setting(keyword: "port", value: "5432")],
                [Setting(keyword: "host", value: "db2"), Setting(keyword: "port", value: "5433")],
            ])
        #expect(
            PostgresHosts(conninfo: "host=db1,db2 port=5432 dbname=tessera connect_timeout=3").attempts == [
                [Setting(keyword: "host", value: "db1")], [Setting(keyword: "host", value: "db2")],
            ])
        #expect(
            PostgresHosts(conninfo: "host=db1,db2 hostaddr=10.0.0.1,10.0.0.2").attempts == [
                [Setting(keyword: "host", value: "db1"), Setting(keyword: "hostaddr", value: "10.0.0.1")],
                [Setting(keyword: "host", value: "db2"), Setting(keyword: "hostaddr", value: "10.0.0.2")],
            ])
    }

    @Test func connectTimeoutIsPerHostAndAtLeastTwoSecondsAsLibpqCountsIt() {
        #expect(PostgresHosts(conninfo: "host=a,b connect_timeout=3").attemptTimeout(.seconds(5)) == .seconds(3))
        #expect(PostgresHosts(conninfo: "host=a,b connect_timeout=1").connectTimeout == .seconds(2))
        // Zero means "forever" to libpq; a pool never waits forever: the configuration's limit applies.
        #expect(PostgresHosts(conninfo: "host=a connect_timeout=0").connectTimeout == nil)
        #expect(PostgresHosts(conninfo: "postgresql:///x?connect_timeout=4").connectTimeout == .seconds(4))
    }

    @Test func preferStandbyLooksForAStandbyFirstThenTakesAnyServer() {
        let hosts = PostgresHosts(conninfo: "host=a,b target_session_attrs=prefer-standby")
        #expect(
            hosts.attempts.map { $0.map(\.value) } == [
                ["a", "standby"], ["b", "standby"], ["a", "any"], ["b", "any"],
            ])
    }

    @Test func oneHostOrAStringLibpqWillRefuseIsTriedAsItIs() {
        for conninfo in [
            "postgresql:///tessera?host=/run/a&user=postgres", "host=db1 port=5432", "dbname=tessera",
            "host=a,b,c port=1,2",  // libpq: "could not match 2 port numbers to 3 hosts"
            "host=a,,b",  // an empty entry is libpq's default host
            "postgresql://[broken", "not a connection string",
        ] {
            #expect(PostgresHosts(conninfo: conninfo).attempts == [[]], "\(conninfo)")
        }
    }

    @Test func aFirstHostThatNeverAnswersIsLeftForTheNextOne() async throws {
        let url = try databaseURL()
        let hole = try SilentListener()
        defer { hole.close() }
        // The test database listed second, after a host that accepts connections and answers nothing (a hung
        // primary); each host gets 300 ms.
        let conninfo = try withFirstHost("127.0.0.1", port: hole.port, before: url)
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = PostgresClient(
            configuration: PostgresConfiguration(
                url: conninfo, connectionsPerLoop: 2, connectTimeout: .milliseconds(300),
                initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(100)),
            group: group)
        let clock = ContinuousClock()
        let start = clock.now
        try await client.start(timeout: .seconds(5))
        let took = clock.now - start
        #expect(took >= .milliseconds(250), "the silent host was tried first, for its time limit")
        // Staying on the silent host would fail start's 5 s. Each of the two connections tries it once, then the next
        // host: counted, not timed (a bound of 4 s on the start failed in 5 of 17 runs of the whole suite on a loaded
        // machine, 4.1-4.6 s; connects it accepts late are counted late, never twice).
        #expect(hole.accepted <= 2, "one try of the silent host for each connection, then the next host")
        let answer = try await client.withPool { try await $0.query("SELECT 41 + 1") }
        #expect(try answer[0].decode(Int.self, at: 0) == 42)
        await client.shutdown()
    }

    @Test func aServerThatStopsAnsweringOneConnectionTakesTheOthersOfEveryLoopDownWithIt() async throws {
        let name = "tessera_silent_\(UInt32.random(in: 0 ... .max))"
        let url = try databaseURL()
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let configuration = PostgresConfiguration(
            url: url + (url.contains("?") ? "&" : "?") + "application_name=\(name)", connectionsPerLoop: 2,
            statementTimeout: .milliseconds(500), initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(100),
            answerGrace: .milliseconds(500))
        let client = PostgresClient(configuration: configuration, group: group)
        try await client.start()
        func query(on loop: EventLoop) async throws {
            let pool = client.pool(on: loop)
            _ = try await Task(executorPreference: loop) { try await pool.query("SELECT 1") }.value
        }
        // Every backend of the client stopped: a hung server.
        var backends: [Int] = []
        for _ in 0..<100 where backends.count < 4 {
            backends = try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { other, _ in
                try await other.withPool { pool in
                    let rows = try await pool.query(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = $1", [name])
                    return try (0..<rows.rowCount).map { try rows[$0].decode(Int.self, at: 0) }
                }
            }
            if backends.count < 4 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(backends.count == 4)
        let hung = StoppedBackends(backends)
        defer { hung.resume() }
        /// Whether `error` is a request's that waited its whole answer deadline on a stopped backend.
        func waitedOnAStoppedBackend(_ error: any Error) -> Bool {
            (error as? PostgresError)?.message.hasPrefix("the database did not answer within") == true
        }
        await #expect { try await query(on: group.loops[0]) } throws: { waitedOnAStoppedBackend($0) }
        // The first request waited for the deadline. None after it waits on another stopped backend, on either
        // loop: the connections that heard nothing since went with the first (their requests fail at once, as
        // unavailable), and new ones answer. Judged by how each request failed, not by a clock, so that a slow,
        // busy machine cannot fail it.
        for loop in group.loops.reversed() {
            var answered = false
            for _ in 0..<50 where !answered {
                do {
                    try await query(on: loop)
                    answered = true
                } catch {
                    #expect(!waitedOnAStoppedBackend(error), "no request waits on a stopped backend: \(error)")
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(answered, "new connections replace the silent ones")
        }
        await client.shutdown()
    }

    @Test func anIdlePoolWhoseServerStopsAnsweringReconnectsWithoutWaitingForARequest() async throws {
        let name = "tessera_idle_\(UInt32.random(in: 0 ... .max))"
        let url = try databaseURL()
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let configuration = PostgresConfiguration(
            url: url + (url.contains("?") ? "&" : "?") + "application_name=\(name)", connectionsPerLoop: 2,
            statementTimeout: .milliseconds(200), initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(100),
            answerGrace: .milliseconds(200), idleProbeInterval: .milliseconds(100))
        let client = PostgresClient(configuration: configuration, group: group)
        try await client.start()
        func backends() async throws -> Set<Int> {
            try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { other, _ in
                try await other.withPool { pool in
                    let rows = try await pool.query(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = $1", [name])
                    return Set(try (0..<rows.rowCount).map { try rows[$0].decode(Int.self, at: 0) })
                }
            }
        }
        var stopped: Set<Int> = []
        for _ in 0..<100 where stopped.count < 2 {
            stopped = try await backends()
            if stopped.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(stopped.count == 2)
        let hung = StoppedBackends(Array(stopped))
        defer { hung.resume() }
        // No request is sent: the probe finds the silent server, and both connections are made again.
        var fresh: Set<Int> = []
        for _ in 0..<100 where fresh.count < 2 {
            try await Task.sleep(for: .milliseconds(50))
            fresh = try await backends().subtracting(stopped)
        }
        #expect(fresh.count == 2, "both idle connections replaced")
        #expect(try await client.withPool { try await $0.query("SELECT 1") }.rowCount == 1)
        await client.shutdown()
    }

    @Test func aListenerWhoseServerStopsAnsweringListensAgainOnANewSession() async throws {
        let name = "tessera_probe_\(UInt32.random(in: 0 ... .max))"
        let url = try databaseURL()
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let configuration = PostgresConfiguration(
            url: url + (url.contains("?") ? "&" : "?") + "application_name=\(name)", connectionsPerLoop: 1,
            statementTimeout: .milliseconds(200), initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(100),
            answerGrace: .milliseconds(200), idleProbeInterval: .milliseconds(100))
        let client = PostgresClient(configuration: configuration, group: group)
        try await client.start()
        let events = Mutex<[PostgresListener.Event]>([])
        _ = client.listen(channel: name) { event in events.withLock { $0.append(event) } }
        try await eventually { events.withLock { $0 } == [.listening] }
        let backend = try await client.withPool { pool in
            try await pool.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()", [name]
            )[0].decode(Int.self, at: 0)
        }
        // A stopped backend keeps its socket open and answers nothing: a hung server. The listener sends nothing
        // of its own accord; only its probe can find out.
        let hung = StoppedBackends([backend])
        defer { hung.resume() }
        try await eventually { events.withLock { $0 } == [.listening, .lost, .listening] }
        // The new session hears what is committed now.
        _ = try await client.withPool { try await $0.query("SELECT pg_notify($1, 'after')", [name]) }
        try await eventually { events.withLock { $0.last } == .notification("after") }
        await client.shutdown()
    }
}

/// The test database's URL; cancels the test when none is configured (`make test` sets it).
private func databaseURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"], !url.isEmpty else {
        try Test.cancel("TESSERA_TEST_DATABASE_URL is not set: run the tests with `make test`")
    }
    return url
}

/// `url` (which names one host) as a keyword string that lists `host:port` before its own host.
private func withFirstHost(_ host: String, port: Int, before url: String) throws -> String {
    var options = try #require(PostgresHosts.options(url))
    options["host"] = "\(host),\(options["host"] ?? "/var/run/postgresql")"
    options["port"] = "\(port),\(options["port"] ?? "5432")"
    return options.map { keyword, value in
        "\(keyword)='\(value.replacing("\\", with: "\\\\").replacing("'", with: "\\'"))'"
    }.joined(separator: " ")
}

/// Polls `condition` every 20 ms for up to 5 s.
private func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<250 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("not within 5 s")
}

/// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes each handshake and queues the
/// connection, whose startup message then waits for an answer that never comes (a hung server).
private final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32
    /// The connections accepted (on a thread of its own) and held open, never answered.
    private let held = Mutex<[Int32]>([])

    /// How many connects reached the listener so far.
    var accepted: Int { held.withLock { $0.count } }

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = descriptor
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 64) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw PostgresError(.unavailable, message: "cannot listen: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            while case let connection = accept(descriptor, nil, nil), connection >= 0 {
                held.withLock { $0.append(connection) }
            }
            // Shut down by close(): this thread made the last use of the socket, so it closes it (no other thread can
            // have been given its number yet) and the connections it holds.
            _ = Glibc.close(descriptor)
            held.withLock { connections in
                for connection in connections { _ = Glibc.close(connection) }
            }
        }
        thread.start()
    }

    /// Stops accepting: the accepting thread's `accept` fails, and it closes the socket and its connections.
    func close() { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
}
