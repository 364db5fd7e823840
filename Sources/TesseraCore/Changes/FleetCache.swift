public import Synchronization
import TesseraLoop

/// Values read from the database, kept by key for at most a staleness bound and dropped early by the
/// ``ChangeFeed``'s notices; safe from any thread.
///
/// A read that started before a notice never stores its (possibly stale) result: every drop moves an epoch, and a
/// load stores only if the epoch it began in is still current.
///
/// A value is read again before it is too old, in the background: the first look-up to find it half as old as the
/// bound starts its ``reader`` and is served the cached value, as every look-up is until the new one is stored. No
/// request waits for that read, and under load the requests that need a value do not all read it together each time
/// it would expire (every one of them did, and waited for the database's slowest answer). Only a value not cached
/// (never read, dropped by a notice, or older than the bound because nothing looked it up) is read by the request
/// that needs it.
///
/// The reads and the store are inlinable so that other modules run them specialized for their `Value` (a cached
/// client is looked up on every authorization and token request; unspecialized, each look-up fetched the generic
/// metadata of its state and copied entries through value witnesses).
public final class FleetCache<Value: Sendable>: Sendable {
    /// Reads the current value of a key from the database on a session of its own (not inside a caller's
    /// transaction: it runs after the look-up that started it has returned).
    public typealias Reader = @Sendable (String) async throws -> Value

    @usableFromInline
    struct Entry {
        @usableFromInline let value: Value
        @usableFromInline let loadedAt: ContinuousClock.Instant

        @usableFromInline
        init(value: Value, loadedAt: ContinuousClock.Instant) {
            self.value = value
            self.loadedAt = loadedAt
        }
    }

    @usableFromInline
    struct State {
        @usableFromInline var entries: [String: Entry] = [:]
        @usableFromInline var epoch: UInt64 = 0
        /// Keys whose ``FleetCache/reader`` runs in the background, half as old as the bound.
        @usableFromInline var readingAhead: Set<String> = []
    }

    /// The longest a value is served.
    public let staleness: Duration
    /// The most keys held; the cache starts over when a new key would exceed it.
    public let capacity: Int
    @usableFromInline let state = Mutex(State())

    /// What reads a value again in the background, or when not cached for ``value(for:)``.
    @usableFromInline let reader: Reader

    init(staleness: Duration, capacity: Int, reader: @escaping Reader) {
        precondition(capacity > 0)
        self.staleness = staleness
        self.capacity = capacity
        self.reader = reader
    }

    /// The value of `key`: the cached one while younger than ``staleness`` (read again in the background from half
    /// of it), else what `load` returns (kept unless a notice came in meanwhile). `load` may read inside the
    /// caller's transaction; its errors are thrown and nothing is kept.
    @inlinable
    public func value(for key: String, load: () async throws -> Value) async throws -> Value {
        let loadedAt = ContinuousClock.now
        let (cached, epoch) = lookUp(key, at: loadedAt)
        if let cached { return cached }
        let value = try await load()
        store(value, for: key, loadedAt: loadedAt, epoch: epoch)
        return value
    }

    /// ``value(for:load:)`` read by ``reader`` when not cached.
    @inlinable
    public func value(for key: String) async throws -> Value {
        try await value(for: key) { try await reader(key) }
    }

    /// Reads `key` with ``reader`` now, however old its cached value, and keeps what it reads unless a notice came in
    /// meanwhile; for a caller that knows the cached value is out of date.
    public func reload(_ key: String) async throws -> Value {
        let (epoch, readAt) = (self.epoch, ContinuousClock.now)
        let value = try await reader(key)
        store(value, for: key, loadedAt: readAt, epoch: epoch)
        return value
    }

    /// The epoch to pass to ``store(_:for:loadedAt:epoch:)`` after a read that starts now.
    @inlinable
    public var epoch: UInt64 { state.withLock { $0.epoch } }

    /// Keeps `value`, read from the database at `loadedAt` (before the read began), for `key` unless a notice came in
    /// since `epoch`; for readers that fetch several things in one round trip.
    @inlinable
    public func store(_ value: Value, for key: String, loadedAt: ContinuousClock.Instant, epoch: UInt64) {
        state.withLock { state in
            guard state.epoch == epoch else { return }
            if state.entries[key] == nil, state.entries.count >= capacity { state.entries.removeAll() }
            state.entries[key] = Entry(value: value, loadedAt: loadedAt)
        }
    }

    /// The value of `key` if cached and younger than ``staleness`` (read again in the background from half of it),
    /// and the epoch to pass to ``store(_:for:loadedAt:epoch:)`` after reading it otherwise.
    @inlinable
    public func cached(_ key: String) -> (value: Value?, epoch: UInt64) {
        lookUp(key, at: ContinuousClock.now)
    }

    /// The cached value of `key` younger than ``staleness`` at `now`, and the current epoch; starts reading it
    /// again when it is half as old and no read of it runs yet.
    @inlinable
    func lookUp(_ key: String, at now: ContinuousClock.Instant) -> (value: Value?, epoch: UInt64) {
        let (value, epoch, readsAhead) = state.withLock { state -> (Value?, UInt64, Bool) in
            guard let entry = state.entries[key], now - entry.loadedAt < staleness else {
                return (nil, state.epoch, false)
            }
            let readsAhead = now - entry.loadedAt >= staleness / 2 && state.readingAhead.insert(key).inserted
            return (entry.value, state.epoch, readsAhead)
        }
        if readsAhead { readAhead(key, startedAt: now, epoch: epoch) }
        return (value, epoch)
    }

    /// Runs ``reader`` for `key` in a task of its own, on the calling loop when called on one, and keeps what it
    /// reads unless a notice came in since `epoch`. A failed read keeps nothing: the next look-up past half the
    /// bound starts another, and the cached value is served until the bound.
    @usableFromInline
    func readAhead(_ key: String, startedAt: ContinuousClock.Instant, epoch: UInt64) {
        Task(executorPreference: EventLoop.current) { [self] in
            defer { state.withLock { _ = $0.readingAhead.remove(key) } }
            guard let value = try? await reader(key) else { return }
            store(value, for: key, loadedAt: startedAt, epoch: epoch)
        }
    }

    /// Keys held now (fresh or not); for tests and metrics.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Whether a background read of `key` runs (until its value is stored or not); for tests.
    func isReadingAhead(_ key: String) -> Bool { state.withLock { $0.readingAhead.contains(key) } }

    func invalidate(key: String?) {
        state.withLock { state in
            state.epoch &+= 1
            if let key { state.entries[key] = nil } else { state.entries.removeAll() }
        }
    }
}
