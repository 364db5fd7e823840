/// Whether calls to one factor service go through (a value state machine, no I/O: the caller feeds it the time and
/// each call's outcome). After ``failureThreshold`` consecutive failures it opens: calls fail at once for
/// ``openDuration``; then one trial call goes through, and its outcome closes the breaker or opens it again.
public struct CircuitBreaker: Sendable, Equatable {
    /// Where the breaker stands.
    public enum State: Sendable, Equatable {
        /// Calls go through; `failures` in a row so far.
        case closed(failures: Int)
        /// Calls fail at once until `until`.
        case open(until: ContinuousClock.Instant)
        /// One trial call is under way; others fail at once until it ends.
        case trial
    }

    /// Consecutive failures that open the breaker.
    public static let failureThreshold = 5
    /// How long an open breaker refuses calls.
    public static let openDuration: Duration = .seconds(10)

    /// The current state.
    public private(set) var state: State = .closed(failures: 0)

    /// A closed breaker.
    public init() {}

    /// Whether a call may go out at `now`; an open breaker whose time is up lets one trial call through.
    public mutating func permit(now: ContinuousClock.Instant) -> Bool {
        switch state {
        case .closed: return true
        case .trial: return false
        case .open(let until):
            guard now >= until else { return false }
            state = .trial
            return true
        }
    }

    /// A call that was let through was answered as the protocol says.
    public mutating func succeeded() {
        state = .closed(failures: 0)
    }

    /// A call that was let through failed at `now` (transport, timeout, size, signature or garbage).
    public mutating func failed(now: ContinuousClock.Instant) {
        switch state {
        case .closed(let failures) where failures + 1 < Self.failureThreshold:
            state = .closed(failures: failures + 1)
        case .closed, .trial, .open:
            state = .open(until: now + Self.openDuration)
        }
    }

    /// Whether calls go through now (for `/readyz` and the `up` gauge): closed, or open with its time up.
    public func isUp(now: ContinuousClock.Instant) -> Bool {
        switch state {
        case .closed: true
        case .trial: false
        case .open(let until): now >= until
        }
    }
}
