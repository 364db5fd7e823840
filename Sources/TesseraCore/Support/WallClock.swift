public import FoundationEssentials
import Synchronization

/// The current time as domain code sees it. Every expiry, lock-out window and token time is computed from this
/// clock and passed to the database as a parameter, so tests can move time with a ``ManualWallClock``.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    /// Creates the clock.
    public init() {}

    /// The system time.
    public func now() -> Date { Date() }
}

/// A clock that stands still until told to move: for tests of expiry and rate windows.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>

    /// A clock showing `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    /// The time the clock shows.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
