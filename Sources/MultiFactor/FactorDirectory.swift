import FoundationEssentials
import Synchronization
public import TesseraCore

/// Where factors beyond the built-in ones come from: the factor services registered in the database
/// (`FactorServices`), read again whenever the directory's copy is older than its refresh interval.
public protocol FactorSource: Sendable {
    /// The factors registered now.
    func factors(_ db: any SQLRunner) async throws -> [any Factor]
}

/// The factors a server offers right now: the built-in ones (compiled in, registered at start-up) and those of a
/// ``FactorSource`` (factor services registered at run time by an admin on any server of the fleet).
///
/// Each server keeps a copy of the source's factors for at most ``refreshInterval``, so a registration, update or
/// removal made through any server applies everywhere within that bound, and at once on the server that made it
/// (``invalidate()``). A built-in factor always wins over a source's factor with the same id or member names
/// (registration refuses those anyway).
public final class FactorDirectory: Sendable {
    /// The factors compiled into the server.
    public let builtIn: FactorRegistry
    /// How long a copy of the source's factors is used before it is read again.
    public let refreshInterval: Duration
    private let source: (any FactorSource)?
    private let cache = Mutex<(registry: FactorRegistry, loadedAt: ContinuousClock.Instant)?>(nil)

    /// A directory of `builtIn` factors and, when given, those of `source`, re-read every `refreshInterval`.
    public init(builtIn: FactorRegistry, source: (any FactorSource)? = nil, refreshInterval: Duration = .seconds(5)) {
        self.builtIn = builtIn
        self.source = source
        self.refreshInterval = refreshInterval
    }

    /// The factors offered now, reading the source through `db` when the copy is missing or too old. Without a
    /// source, the built-in registry.
    public func registry(_ db: any SQLRunner) async throws -> FactorRegistry {
        guard let source else { return builtIn }
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0 }), now - cached.loadedAt < refreshInterval {
            return cached.registry
        }
        let registry = builtIn.adding(try await source.factors(db))
        cache.withLock { $0 = (registry, now) }
        return registry
    }

    /// The copy read last, or the built-in registry before the first read; never touches the database (for the
    /// token path, which only needs a factor's `amr`).
    public var latest: FactorRegistry {
        cache.withLock { $0?.registry } ?? builtIn
    }

    /// Forgets the copy, so the next call reads the source again (after a change made through this server).
    public func invalidate() {
        cache.withLock { $0 = nil }
    }
}
