import Synchronization
import TesseraJSON
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraCore

/// The caches the change notices keep fresh, as values, and a configuration change crossing from one server to
/// another over the test database.
@Suite struct ChangeFeedTests {
    static let clients = ChangeTopic("test_clients")
    static let tenants = ChangeTopic("test_tenants")
    /// The reader of caches whose tests look up no value half as old as the bound (or do not mind it failing): a
    /// failed background read keeps nothing.
    @Sendable static func unread<Value>(_ key: String) async throws -> Value { throw Unread() }
    struct Unread: Error {}

    @Test func aCachedValueIsServedUntilItsKeyIsDroppedOrItIsTooOld() async throws {
        let feed = ChangeFeed(staleness: .milliseconds(200))
        let cache: FleetCache<Int> = feed.cache(Self.clients, reader: Self.unread)
        let loads = Counter()
        let load = { @Sendable () async throws -> Int in loads.next() }
        #expect(try await cache.value(for: "a", load: load) == 1)
        #expect(try await cache.value(for: "a", load: load) == 1)
        #expect(try await cache.value(for: "b", load: load) == 2)
        feed.drop(Self.clients, key: "a")
        #expect(try await cache.value(for: "a", load: load) == 3)
        #expect(try await cache.value(for: "b", load: load) == 2)
        feed.drop(Self.clients)
        #expect(try await cache.value(for: "b", load: load) == 4)
        try await Task.sleep(for: .milliseconds(250))
        #expect(try await cache.value(for: "b", load: load) == 5)
    }

    @Test func aLoadThatRacedADropKeepsNothing() async throws {
        let feed = ChangeFeed()
        let cache: FleetCache<String> = feed.cache(Self.clients, reader: Self.unread)
        // The read began before the change was announced: its answer may predate the change, so it is not kept.
        let value = try await cache.value(for: "a") {
            feed.drop(Self.clients, key: "a")
            return "before the change"
        }
        #expect(value == "before the change")
        #expect(cache.cached("a").value == nil)
        #expect(try await cache.value(for: "a") { "after" } == "after")
        #expect(cache.cached("a").value == "after")
    }

    @Test func errorsAreNotCachedAndAbsenceIs() async throws {
        struct Down: Error {}
        let feed = ChangeFeed()
        let cache: FleetCache<String?> = feed.cache(Self.clients, reader: Self.unread)
        await #expect(throws: Down.self) { try await cache.value(for: "a") { throw Down() } }
        #expect(cache.count == 0)
        #expect(try await cache.value(for: "a") { nil } == .some(nil))
        #expect(try await cache.value(for: "a") { "not read again" } == .some(nil))
    }

    @Test func aValueHalfAsOldAsTheBoundIsReadAgainInTheBackgroundWhileEveryCallerIsServedIt() async throws {
        let feed = ChangeFeed(staleness: .seconds(10))
        let reads = Counter()
        let gate = Gate()
        let cache: FleetCache<Int> = feed.cache(Self.clients) { _ in
            _ = reads.next()
            return await gate.wait(returning: 2)
        }
        // A value read 6 s ago: past half the bound, 4 s before it is too old.
        cache.store(1, for: "a", loadedAt: .now - .seconds(6), epoch: cache.epoch)
        // The first look-up past half the bound starts the reader, held by the test, and is served the cached value,
        // as are the others, by either entry point, while it runs; none reads.
        let loads = Counter()
        for _ in 0..<8 {
            #expect(try await cache.value(for: "a") { loads.next() + 100 } == 1)
            #expect(cache.cached("a").value == 1)
        }
        try await waitUntil { gate.isWaiting }
        gate.open()
        try await waitUntil { cache.cached("a").value == 2 }
        #expect(try await cache.value(for: "a") { loads.next() + 100 } == 2)
        #expect(reads.next() == 2, "one background read")
        #expect(loads.next() == 1, "no caller read")
    }

    @Test func aFailedReadAheadKeepsTheValueAndIsTriedAgainByTheNextLookUp() async throws {
        struct Down: Error {}
        let feed = ChangeFeed(staleness: .seconds(10))
        let reads = Counter()
        let cache: FleetCache<Int> = feed.cache(Self.clients) { _ in
            if reads.next() == 1 { throw Down() }
            return 3
        }
        cache.store(1, for: "a", loadedAt: .now - .seconds(6), epoch: cache.epoch)
        #expect(cache.cached("a").value == 1)
        try await waitUntil { !cache.isReadingAhead("a") }
        #expect(reads.count == 1)
        #expect(cache.cached("a").value == 1, "a failed read keeps the value")
        try await waitUntil { cache.cached("a").value == 3 }
        #expect(reads.count == 2)
    }

    @Test func aReadAheadThatRacedADropKeepsNothing() async throws {
        let feed = ChangeFeed(staleness: .seconds(10))
        let gate = Gate()
        let cache: FleetCache<Int> = feed.cache(Self.clients) { _ in await gate.wait(returning: 2) }
        cache.store(1, for: "a", loadedAt: .now - .seconds(6), epoch: cache.epoch)
        #expect(cache.cached("a").value == 1)
        try await waitUntil { gate.isWaiting }
        feed.drop(Self.clients, key: "a")
        gate.open()
        try await waitUntil { !cache.isReadingAhead("a") }
        #expect(cache.cached("a").value == nil, "read before the change: not kept")
        #expect(try await cache.value(for: "a") { 3 } == 3)
    }

    @Test func aValueNotCachedIsReadByTheReaderForValueForKey() async throws {
        let feed = ChangeFeed()
        let cache: FleetCache<String> = feed.cache(Self.clients) { key in "read \(key)" }
        #expect(try await cache.value(for: "a") == "read a")
        #expect(cache.cached("a").value == "read a")
    }

    @Test func aReloadReadsAFreshValueAgainAndKeepsItUnlessADropCameMeanwhile() async throws {
        let feed = ChangeFeed(staleness: .seconds(10))
        let reads = Counter()
        let dropsWhileReading = Mutex(false)
        let cache: FleetCache<Int> = feed.cache(Self.clients) { _ in
            if dropsWhileReading.withLock({ $0 }) { feed.drop(Self.clients, key: "a") }
            return reads.next()
        }
        #expect(try await cache.value(for: "a") == 1)
        #expect(try await cache.reload("a") == 2, "read although fresh")
        #expect(cache.cached("a").value == 2)
        dropsWhileReading.withLock { $0 = true }
        #expect(try await cache.reload("a") == 3)
        #expect(cache.cached("a").value == nil, "read before the change: not kept")
    }

    @Test func aFullCacheStartsOverAndAnotherTopicCanDropItWhole() async throws {
        let feed = ChangeFeed()
        let cache: FleetCache<Int> = feed.cache(
            Self.clients, droppedWholeBy: [Self.tenants], capacity: 3, reader: Self.unread)
        for (index, key) in ["a", "b", "c"].enumerated() { _ = try await cache.value(for: key) { index } }
        #expect(cache.count == 3)
        _ = try await cache.value(for: "d") { 4 }
        #expect(cache.count == 1)
        feed.drop(ChangeTopic("unrelated"), key: "d")
        #expect(cache.count == 1)
        feed.drop(Self.tenants, key: "t-1")
        #expect(cache.count == 0)
    }

    @Test func aTenantChangedOnOneServerIsSeenOnAnotherAtOnce() async throws {
        try await CoreHarness.run { a in
            let actor = AuditLog.Actor(
                principal: AdminPrincipal(keyID: "feed-test", scope: .project), method: "tenants.update",
                requestID: "req-feed")
            let created = try await a.services.configAdmin.createTenant(["displayName": "Before"], actor: actor)
            let tenantID = try #require(created["tenantId"]?.stringValue)
            // B caches for a minute: only the notice can make it see the change in time.
            try await a.withSecondServer(staleness: .seconds(60)) { b in
                try await waitUntil { b.changes.isListening }
                let before = try await b.database.withPool { pool in
                    try await b.configs.effective(pool, tenantID: tenantID)
                }
                #expect(before.issuerName == "Before")
                _ = try await a.services.configAdmin.updateTenant(
                    tenantID, ["displayName": "After"], updateMask: "displayName", actor: actor)
                try await waitUntil {
                    let now = try await b.database.withPool { pool in
                        try await b.configs.effective(pool, tenantID: tenantID)
                    }
                    return now.issuerName == "After"
                }
            }
        }
    }

    @Test func aChangeMissedWhileTheListenerWasAwayIsReadAfterItListensAgain() async throws {
        try await CoreHarness.run { a in
            let tenantID = "t-feed\(UInt64.random(in: 0...UInt64.max))"
            try await a.insertTenant(tenantID, ["displayName": "Before"])
            let name = "tessera_feed_\(UInt32.random(in: 0...UInt32.max))"
            try await a.withSecondServer(staleness: .seconds(60), applicationName: name) { b in
                try await waitUntil { b.changes.isListening }
                let read = { @Sendable in
                    try await b.database.withPool { pool in try await b.configs.effective(pool, tenantID: tenantID) }
                }
                #expect(try await read().issuerName == "Before")
                let sessions = b.changes.timesListening
                // B's listening session is cut; it reconnects, and a change made straight in the table (no notice
                // at all) meanwhile must not stay hidden behind B's minute-long cache.
                try await a.sql(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE application_name = $1 AND query = 'LISTEN \(ChangeFeed.channel)'
                    """, [name])
                try await a.sql(
                    "UPDATE tenants SET config = jsonb_set(config, '{displayName}', '\"After\"') WHERE tenant_id = $1",
                    [tenantID])
                try await waitUntil { b.changes.timesListening > sessions }
                #expect(try await read().issuerName == "After")
            }
        }
    }

    @Test func withoutNoticesAChangeIsSeenOnceTheCachedValueIsTooOld() async throws {
        try await CoreHarness.run { a in
            let tenantID = "t-feed\(UInt64.random(in: 0...UInt64.max))"
            try await a.insertTenant(tenantID, ["displayName": "Before"])
            try await a.withSecondServer(staleness: .seconds(3)) { b in
                try await waitUntil { b.changes.isListening }
                let read = { @Sendable in
                    try await b.database.withPool { pool in try await b.configs.effective(pool, tenantID: tenantID) }
                }
                let cached = ContinuousClock.now
                let (heard, listening) = (b.changes.noticesHeard, b.changes.timesListening)
                #expect(try await read().issuerName == "Before")
                try await a.sql(
                    "UPDATE tenants SET config = jsonb_set(config, '{displayName}', '\"After\"') WHERE tenant_id = $1",
                    [tenantID])
                let second = try await read().issuerName
                // Still the cached value while it is young enough, unless something legitimately dropped it: a
                // machine stalled for 3 s, or a notice of other tests on the shared database (a project-level
                // config change drops every tenant's), or a re-listen.
                if ContinuousClock.now - cached < .milliseconds(2500), b.changes.noticesHeard == heard,
                    b.changes.timesListening == listening
                {
                    #expect(second == "Before")
                }
                try await Task.sleep(for: .milliseconds(3100))
                #expect(try await read().issuerName == "After")
            }
        }
    }

    @Test(
        arguments: [("config", "config", nil), ("config:t-1", "config", "t-1"), ("a:b:c", "a", "b:c")]
            as [(String, String, String?)])
    func payloadsNameATopicAndMaybeAKey(_ payload: String, _ topic: String, _ key: String?) {
        let parsed = ChangeFeed.parse(payload)
        #expect(parsed.topic == topic && parsed.key == key)
    }
}

/// Counts calls, from any thread.
private final class Counter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}

/// A read that waits until the test opens it.
private final class Gate: Sendable {
    private let state = Mutex<(waiting: CheckedContinuation<Void, Never>?, open: Bool)>((nil, false))

    var isWaiting: Bool { state.withLock { $0.waiting != nil } }

    func wait(returning value: Int) async -> Int {
        await withCheckedContinuation { continuation in
            let openAlready = state.withLock { state in
                if !state.open { state.waiting = continuation }
                return state.open
            }
            if openAlready { continuation.resume() }
        }
        return value
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}
