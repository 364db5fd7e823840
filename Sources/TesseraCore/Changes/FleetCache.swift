public import Synchronization

/// Values read from the database, kept by key for at most a staleness bound and dropped early by the
/// ``ChangeFeed``'s notices; safe from any thread.
///
/// A read that started before a notice never stores its (possibly stale) result: every drop moves an epoch, and a
/// load stores only if the epoch it began in is still current.
///
/// A value is read again before it is too old: the first ``value(for:load:)`` to find it half as old as the bound
/// reads it, while the others are served what is cached. Under load, the requests that need a value then do not all
/// wait for the database together each time it would expire (every one of them read it then); one does.
///
/// The reads and the store are inlinable so that other modules run them specialized for their `Value` (a cached
/// client is looked up on every authorization and token request; unspecialized, each look-up fetched the generic
/// metadata of its state and copied entries through value witnesses).
public final class FleetCache<Value: Sendable>: Sendable {
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
        /// Keys a ``FleetCache/value(for:load:)`` is reading again before they are too old.
        @usableFromInline var refreshing: Set<String> = []
    }

    /// The longest a value is served.
    public let staleness: Duration
    /// The most keys held; the cache starts over when a new key would exceed it.
    public let capacity: Int
    @usableFromInline let state = Mutex(State())

    init(staleness: Duration, capacity: Int) {
        precondition(capacity > 0)
        self.staleness = staleness
        self.capacity = capacity
    }

    /// The value of `key`: the cached one while younger than ``staleness``, else what `load` returns (kept unless a
    /// notice came in meanwhile). The first call to find the cached value half as old as ``staleness`` loads it again
    /// while the others are served it. `load`'s errors are thrown and nothing is kept.
    @inlinable
    public func value(for key: String, load: () async throws -> Value) async throws -> Value {
        let loadedAt = ContinuousClock.now
        let (cached, epoch, refreshes) = state.withLock { state -> (Value?, UInt64, Bool) in
            guard let entry = state.entries[key], loadedAt - entry.loadedAt < staleness else {
                return (nil, state.epoch, false)
            }
            if loadedAt - entry.loadedAt >= staleness / 2, state.refreshing.insert(key).inserted {
                return (nil, state.epoch, true)
            }
            return (entry.value, state.epoch, false)
        }
        if let cached { return cached }
        defer { if refreshes { state.withLock { _ = $0.refreshing.remove(key) } } }
        let value = try await load()
        store(value, for: key, loadedAt: loadedAt, epoch: epoch)
        return value
    }

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

    /// The value of `key` if cached and younger than ``staleness``, and the epoch to pass to
    /// ``store(_:for:loadedAt:epoch:)`` after reading it otherwise.
    @inlinable
    public func cached(_ key: String) -> (value: Value?, epoch: UInt64) {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.entries[key], now - entry.loadedAt < staleness else { return (nil, state.epoch) }
            return (entry.value, state.epoch)
        }
    }

    /// Keys held now (fresh or not); for tests and metrics.
    public var count: Int { state.withLock { $0.entries.count } }

    func invalidate(key: String?) {
        state.withLock { state in
            state.epoch &+= 1
            if let key { state.entries[key] = nil } else { state.entries.removeAll() }
        }
    }
}
