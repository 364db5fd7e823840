/// The decisions of one database connection as a value with no I/O: feed it what happened, perform the action it
/// returns. ``PostgresConnection`` owns one and keeps only the libpq and libuv calls.
///
/// Rules it keeps:
/// - A connect tries the hosts of the connection string one attempt at a time, in order (``PostgresHosts``); when the
///   last attempt fails, the connect fails with every attempt's reason, joined.
/// - A connect that fails, or a connection that is lost, reconnects after a delay that grows with the failures in a
///   row (``PostgresConfiguration/backoff(attempt:)``); becoming ready starts the count again.
/// - Requests are sent only while ready; otherwise they are refused with the last error. Those in flight are answered
///   in the order they were sent, one sync each; when the connection is lost or closed, every one of them fails,
///   once, and the names of the prepared statements are forgotten with the session that held them.
/// - A statement's name is used without a `Parse` only once the request that prepared it has been answered with its
///   `Parse` run: until then that `Parse` may yet not run (an earlier statement of its request failing), so a request
///   sent meanwhile parses the statement again, unnamed.
/// - While ready, a watchdog checks that the oldest request has not waited past the answer deadline; when it has, the
///   server is taken for hung and the connection is lost, remembering when that request was sent.
/// - Closing is final: every event after it is ignored.
///
/// `Request` is whatever the connection needs to answer a request (its continuation and results); the machine only
/// keeps requests in order and hands them back.
struct PostgresConnectionStateMachine<Request> {
    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Not connected; a reconnect may be scheduled.
        case disconnected
        /// Attempts to connect are in progress.
        case connecting
        /// Connected in pipeline mode and accepting requests.
        case ready
        /// Closed for good.
        case closed
    }

    /// What the connection must do after an event.
    enum Action {
        /// Nothing.
        case none
        /// Announce the phase (now ``Phase/connecting``), then start the first attempt (index 0 of
        /// ``PostgresHosts/attempts``); report its end with ``established()`` or ``attemptFailed(_:)``.
        case connect
        /// Abandon the attempt that failed (its connection, socket watch and timer), then start attempt `attempt`.
        case tryNextHost(attempt: Int)
        /// Announce the phase (now ``Phase/ready``) once the socket is watched and the watchdog armed to fire
        /// after `watchdogAfter` (report it with ``watchdogFired(now:)``).
        case becomeReady(watchdogAfter: Duration)
        /// Arm the watchdog again, to fire after the given delay.
        case armWatchdog(after: Duration)
        /// Tear the connection down, fail `failing` as unavailable because of `message` (``lastError``), schedule a
        /// reconnect (``connectRequested()``) after `reconnectAfter`, then announce the phase (now
        /// ``Phase/disconnected``).
        case disconnect(failing: [Request], message: String, reconnectAfter: Duration)
        /// Tear the connection down, fail `failing` as unavailable because of `message` (``lastError``), then announce
        /// the phase (now ``Phase/closed``).
        case close(failing: [Request], message: String)
    }

    /// The phase, with what a connect in progress has tried.
    private enum State {
        case disconnected
        /// Trying attempt `attempt`, after `failures` (the reasons of the attempts before it, in order).
        case connecting(attempt: Int, failures: [String])
        case ready
        case closed
    }

    /// A request on the wire and when it was sent.
    private struct InFlight {
        let request: Request
        let sentAt: ContinuousClock.Instant
    }

    /// Where a statement's named `Parse` stands on the current session.
    private enum Preparation {
        /// Sent in a request not yet answered: it may yet not run.
        case pending(String)
        /// Run: the name can be executed without a `Parse`.
        case confirmed(String)
    }

    private let configuration: PostgresConfiguration
    /// How many attempts a connect makes (``PostgresHosts/attempts``), at least one.
    private let attemptCount: Int
    private var state = State.disconnected
    /// Connects that failed, and connections lost, since the connection was last ready.
    private var failedAttempts = 0
    private var everReady = false
    /// Requests sent and not yet answered, oldest first from `inFlightHead`; the array is emptied (keeping its
    /// storage) whenever the last is answered, so that it is reused rather than shifted.
    private var inFlight: [InFlight] = []
    private var inFlightHead = 0
    /// The name each statement is prepared under on the current session, by SQL text: confirmed once the request
    /// that sent its `Parse` was answered with it run, pending until then.
    private var preparedNames: [StatementText: Preparation] = [:]
    private var nextStatementNumber = 0

    /// Why the last connect or connection failed (or why the connection closed).
    private(set) var lastError = "not connected yet"
    /// When the request the server left unanswered past the deadline was sent, when that is why the connection was
    /// lost; cleared by the next connect.
    private(set) var unansweredSince: ContinuousClock.Instant?

    /// A disconnected machine that will make `attemptCount` attempts per connect, with the deadline and backoff of
    /// `configuration`.
    init(configuration: PostgresConfiguration, attemptCount: Int) {
        self.configuration = configuration
        self.attemptCount = max(1, attemptCount)
    }

    /// Where the connection is.
    var phase: Phase {
        switch state {
        case .disconnected: .disconnected
        case .connecting: .connecting
        case .ready: .ready
        case .closed: .closed
        }
    }

    /// Whether the connection has never been ready and its last connect failed.
    var hasFailedSinceStart: Bool { phase == .disconnected && failedAttempts > 0 && !everReady }

    /// Requests sent and not yet answered.
    var inFlightCount: Int { inFlight.count - inFlightHead }

    /// The request whose results come next, if any is in flight.
    var oldestRequest: Request? { inFlightHead < inFlight.count ? inFlight[inFlightHead].request : nil }

    /// Why a request cannot be sent now: nil while ready, else ``lastError``.
    var unavailableReason: String? { phase == .ready ? nil : lastError }

    // MARK: Connecting

    /// Connect (at start, or when the reconnect delay has passed); ignored unless disconnected.
    mutating func connectRequested() -> Action {
        guard case .disconnected = state else { return .none }
        unansweredSince = nil
        state = .connecting(attempt: 0, failures: [])
        return .connect
    }

    /// The attempt in progress failed because of `message`: the next host is tried, or, after the last, the connect
    /// fails with the reasons of all its attempts. Ignored unless connecting.
    mutating func attemptFailed(_ message: String) -> Action {
        guard case .connecting(let attempt, var failures) = state else { return .none }
        failures.append(message)
        guard attempt + 1 < attemptCount else {
            return lose(failures.joined(separator: "; "))
        }
        state = .connecting(attempt: attempt + 1, failures: failures)
        return .tryNextHost(attempt: attempt + 1)
    }

    /// The attempt in progress connected and entered pipeline mode. Ignored unless connecting.
    mutating func established() -> Action {
        guard case .connecting = state else { return .none }
        state = .ready
        failedAttempts = 0
        everReady = true
        return .becomeReady(watchdogAfter: watchdogPeriod)
    }

    // MARK: Failure and closing

    /// The connection broke (or a connect failed) because of `message`: everything in flight fails and a reconnect
    /// follows the backoff. Ignored while disconnected or closed.
    mutating func connectionLost(_ message: String) -> Action {
        switch state {
        case .connecting, .ready: lose(message)
        case .disconnected, .closed: .none
        }
    }

    /// Someone outside judged the ready connection useless (see ``PostgresConnection/drop(_:)``); it is lost as if it
    /// broke. Ignored unless ready.
    mutating func dropRequested(_ reason: String) -> Action {
        guard case .ready = state else { return .none }
        return lose(reason)
    }

    /// Close for good: everything in flight fails. Ignored once closed.
    mutating func closeRequested() -> Action {
        if case .closed = state { return .none }
        state = .closed
        lastError = "the database client is shutting down"
        return .close(failing: takeInFlight(), message: lastError)
    }

    // MARK: The watchdog

    /// How often the watchdog checks the oldest request: a quarter of the answer deadline, at most a second.
    var watchdogPeriod: Duration { min(configuration.answerDeadline / 4, .seconds(1)) }

    /// The watchdog fired at `now`: the connection is lost when its oldest request has waited longer than the answer
    /// deadline (the server stopped answering without closing the socket, which `statement_timeout` cannot help
    /// with), else the watchdog is armed again. Ignored unless ready.
    mutating func watchdogFired(now: ContinuousClock.Instant) -> Action {
        guard case .ready = state else { return .none }
        if inFlightHead < inFlight.count, now - inFlight[inFlightHead].sentAt > configuration.answerDeadline {
            unansweredSince = inFlight[inFlightHead].sentAt
            return lose("the database did not answer within \(configuration.answerDeadline)")
        }
        return .armWatchdog(after: watchdogPeriod)
    }

    // MARK: The pipeline

    /// The name to run `sql` under on this session, and whether the caller must send its `Parse` first (in the same
    /// request): a confirmed name needs none; a new name does, and the request reports whether it ran with its
    /// ``syncReceived(prepared:unprepared:)``; while a new name's `Parse` is still on its way the name is the
    /// unnamed statement's, `""`, parsed again in this request (a pipelined request that used the pending name
    /// would fail with "prepared statement does not exist" when that `Parse` does not run).
    mutating func statementName(for sql: String) -> (name: String, isNew: Bool) {
        switch preparedNames[StatementText(sql)] {
        case .confirmed(let name): return (name, false)
        case .pending: return ("", true)
        case nil: break
        }
        let name = "t\(nextStatementNumber)"
        nextStatementNumber += 1
        preparedNames[StatementText(sql)] = .pending(name)
        return (name, true)
    }

    /// `request` went out whole at `sentAt`, ending in its sync; only while ready (``unavailableReason`` is nil).
    mutating func requestQueued(_ request: Request, sentAt: ContinuousClock.Instant) {
        assert(phase == .ready, "a request is sent only while ready")
        inFlight.append(InFlight(request: request, sentAt: sentAt))
    }

    /// The sync of the oldest request arrived, so it is answered and leaves the queue. `prepared` are the SQL texts
    /// whose named `Parse` in it ran, whose names later requests use without one; `unprepared` those whose named
    /// `Parse` failed or was not run (after an earlier failure), which are forgotten: a later request must send their
    /// `Parse` again, under a new name.
    mutating func syncReceived(prepared: [String], unprepared: [String]) {
        guard inFlightHead < inFlight.count else { return }
        inFlightHead += 1
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
        }
        for sql in prepared {
            if case .pending(let name) = preparedNames[StatementText(sql)] {
                preparedNames[StatementText(sql)] = .confirmed(name)
            }
        }
        for sql in unprepared {
            if case .pending = preparedNames[StatementText(sql)] { preparedNames[StatementText(sql)] = nil }
        }
    }

    // MARK: Helpers

    /// Loses the connection: the session and its prepared statements are gone, every request in flight fails, and a
    /// reconnect is due after the backoff for the failures in a row.
    private mutating func lose(_ message: String) -> Action {
        state = .disconnected
        lastError = message
        failedAttempts += 1
        return .disconnect(
            failing: takeInFlight(), message: message,
            reconnectAfter: configuration.backoff(attempt: failedAttempts - 1))
    }

    /// Empties the queue and the session's prepared names; returns the requests that were in flight.
    private mutating func takeInFlight() -> [Request] {
        let requests = inFlight[inFlightHead...].map(\.request)
        inFlight = []
        inFlightHead = 0
        preparedNames = [:]
        return requests
    }
}

/// A statement's SQL text as a key that hashes its length and at most 64 bytes from each end, not all of it: the texts
/// are the server's own, up to 2 KB (the token grant's), and are looked up for every statement sent. Equality still
/// compares the whole text, so two texts that hash alike stay two keys.
struct StatementText: Hashable {
    let sql: String

    init(_ sql: String) { self.sql = sql }

    static func == (lhs: StatementText, rhs: StatementText) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        let hashedEnds: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(64))))
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(64))))
        }
        if hashedEnds == nil {
            for byte in utf8.prefix(64) { hasher.combine(byte) }
            for byte in utf8.suffix(64) { hasher.combine(byte) }
        }
    }
}
