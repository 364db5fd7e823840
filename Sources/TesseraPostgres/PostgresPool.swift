public import TesseraLoop

/// The database connections of one event loop; use it only on that loop's thread.
///
/// Plain statements go to the ready connection with the fewest requests in flight, pipelined with other
/// requests. A transaction leases a connection for itself until it ends, because every statement sent on
/// that connection meanwhile would run inside it. When every ready connection is leased, statements and
/// transactions wait in arrival order for one to come back, at most as long as a statement may run
/// (``PostgresConfiguration/answerDeadline``). When no connection is ready a request fails at once with
/// ``PostgresError/Kind/unavailable`` rather than waiting for the database to come back. A connection whose server
/// leaves a request unanswered past that deadline is dropped, and the client's other connections that have heard
/// nothing from the server since go with it (``PostgresClient``).
public final class PostgresPool: @unchecked Sendable {
    /// The loop that owns the pool.
    public let loop: EventLoop
    private let connections: [PostgresConnection]
    private var leased: Set<ObjectIdentifier> = []
    /// Connections handed to waiting statements that have not sent them yet, with how many: a transaction must not
    /// lease one of them meanwhile, or its `BEGIN` could go out before them and take them in.
    private var promised: [ObjectIdentifier: Int] = [:]
    private var waiters: [Waiter] = []
    private let waitLimit: Duration
    private var waitTimer: LoopTimer?
    private let probeInterval: Duration
    private var probeTimer: LoopTimer?
    private let onReadinessChange: @Sendable (Int) -> Void
    /// Told when a connection was dropped because the server left a request unanswered: when it was sent, and why.
    private let onSilentServer: @Sendable (ContinuousClock.Instant, String) -> Void

    /// A request waiting for a connection that no transaction holds.
    private struct Waiter {
        /// Whether the request takes the connection for itself (a transaction) or shares it (a pipeline).
        let leases: Bool
        let since: ContinuousClock.Instant
        let continuation: CheckedContinuation<PostgresConnection, any Error>
    }

    init(
        loop: EventLoop, configuration: PostgresConfiguration,
        onSilentServer: @escaping @Sendable (ContinuousClock.Instant, String) -> Void = { _, _ in },
        onReadinessChange: @escaping @Sendable (Int) -> Void
    ) {
        self.loop = loop
        self.onReadinessChange = onReadinessChange
        self.onSilentServer = onSilentServer
        waitLimit = configuration.answerDeadline
        probeInterval = configuration.idleProbeInterval
        connections = (0..<max(1, configuration.connectionsPerLoop)).map { _ in
            PostgresConnection(loop: loop, configuration: configuration)
        }
    }

    /// Connects every connection (they keep reconnecting on their own).
    func start() {
        loop.preconditionInEventLoop()
        for connection in connections {
            connection.onPhaseChange = { [unowned self] connection in phaseChanged(connection) }
            connection.connect()
        }
        probeTimer = LoopTimer(loop: loop)
        armProbe()
    }

    /// Closes every connection; requests in flight fail as unavailable.
    func close() {
        loop.preconditionInEventLoop()
        for connection in connections { connection.close() }
        waitTimer?.close()
        waitTimer = nil
        probeTimer?.close()
        probeTimer = nil
        failWaiters(PostgresError(.unavailable, message: "the database client is shutting down"))
    }

    /// Why the pool could not connect at start: libpq's reason once every connection's first attempt has
    /// failed and none has ever been ready; nil otherwise.
    var startupFailure: String? {
        guard connections.allSatisfy(\.hasFailedSinceStart) else { return nil }
        return connections.first?.lastError
    }

    /// Connections ready for requests.
    public var readyCount: Int { connections.count { $0.phase == .ready } }
    /// Connections in the pool.
    public var size: Int { connections.count }

    /// Runs one statement.
    @discardableResult
    public func query(
        _ sql: String, _ parameters: [any PostgresEncodable] = []
    ) async throws(PostgresError)
        -> PostgresResult
    {
        try await pipeline([PostgresQuery(sql, parameters)])[0]
    }

    /// Runs statements as one pipelined request with one sync: one round trip, one implicit transaction
    /// (all of them take effect or none).
    public func pipeline(_ queries: [PostgresQuery]) async throws(PostgresError) -> [PostgresResult] {
        loop.preconditionInEventLoop()
        let connection: PostgresConnection
        let waited: Bool
        do {
            (connection, waited) = try await freeConnection(leasing: false)
        } catch {
            throw error as? PostgresError ?? unavailable()
        }
        // The statements go out now, with no suspension before `run` sends them: from here a transaction may take
        // the connection (its BEGIN follows them).
        if waited { keepPromise(connection) }
        return try await connection.run(queries)
    }

    /// Runs `body` in a transaction on a leased connection: committed when `body` returns, rolled back when
    /// it throws (the error is rethrown).
    public func transaction<T>(
        isolation: PostgresIsolation = .readCommitted, _ body: (PostgresTransaction) async throws -> T
    ) async throws -> T {
        loop.preconditionInEventLoop()
        let (connection, _) = try await freeConnection(leasing: true)
        defer { release(connection) }
        let transaction = PostgresTransaction(connection: connection, begin: isolation.beginStatement)
        let value: T
        do {
            value = try await body(transaction)
        } catch {
            if transaction.begun { _ = try? await connection.run([PostgresQuery("ROLLBACK")]) }
            throw error
        }
        if transaction.begun { _ = try await connection.run([PostgresQuery("COMMIT")]) }
        return value
    }

    /// The ready connection with the fewest requests in flight that no transaction holds, and, for a transaction
    /// (`leasing`), that no waiting statement was promised.
    private func leastBusyConnection(leasing: Bool) -> PostgresConnection? {
        connections
            .filter { connection in
                let id = ObjectIdentifier(connection)
                return connection.phase == .ready && !leased.contains(id) && !(leasing && promised[id] != nil)
            }
            .min { $0.pendingCount < $1.pendingCount }
    }

    /// A ready connection that no transaction holds, leased to the caller when `leasing`; waits in line
    /// while every ready connection is leased. Says whether the caller waited: a statement that did must
    /// ``keepPromise(_:)`` as it sends.
    private func freeConnection(leasing: Bool) async throws -> (PostgresConnection, waited: Bool) {
        if waiters.isEmpty, let free = leastBusyConnection(leasing: leasing) {
            if leasing { leased.insert(ObjectIdentifier(free)) }
            return (free, false)
        }
        guard readyCount > 0 else { throw unavailable() }
        let handed = try await withCheckedThrowingContinuation { continuation in
            waiters.append(Waiter(leases: leasing, since: .now, continuation: continuation))
            if waiters.count == 1 { armWaitTimer() }
        }
        return (handed, true)
    }

    private func release(_ connection: PostgresConnection) {
        leased.remove(ObjectIdentifier(connection))
        handOutToWaiters()
    }

    /// A statement that waited for `connection` is sending on it: transactions may take it again.
    private func keepPromise(_ connection: PostgresConnection) {
        let id = ObjectIdentifier(connection)
        let left = (promised[id] ?? 1) - 1
        promised[id] = left > 0 ? left : nil
        if left <= 0 { handOutToWaiters() }
    }

    /// Hands connections to the waiters in arrival order, stopping at the first that none fits.
    private func handOutToWaiters() {
        while let waiter = waiters.first, let free = leastBusyConnection(leasing: waiter.leases) {
            waiters.removeFirst()
            let id = ObjectIdentifier(free)
            if waiter.leases { leased.insert(id) } else { promised[id, default: 0] += 1 }
            waiter.continuation.resume(returning: free)
        }
        if readyCount == 0 { failWaiters(unavailable()) }
    }

    /// Fails the requests that have waited longer than a statement may run, and re-arms for the next one.
    private func armWaitTimer() {
        guard let oldest = waiters.first else { return }
        let timer = waitTimer ?? LoopTimer(loop: loop)
        waitTimer = timer
        timer.start(after: oldest.since + waitLimit - .now) { [unowned self] in
            let now = ContinuousClock.Instant.now
            while let first = waiters.first, now - first.since >= waitLimit {
                waiters.removeFirst().continuation.resume(
                    throwing: PostgresError(
                        .unavailable, message: "database unavailable: every connection is held by a transaction"))
            }
            armWaitTimer()
        }
    }

    private func failWaiters(_ error: PostgresError) {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.continuation.resume(throwing: error) }
    }

    private func phaseChanged(_ connection: PostgresConnection) {
        if connection.phase != .ready { leased.remove(ObjectIdentifier(connection)) }
        handOutToWaiters()
        onReadinessChange(readyCount)
        if connection.phase == .disconnected, let since = connection.unansweredSince {
            onSilentServer(since, connection.lastError)
        }
    }

    /// Idle connections hear nothing, so a server that stopped answering (hung, or gone from the network without
    /// closing the sockets) would go unnoticed, and the pool would count them ready, until requests came and each
    /// waited out its deadline. Every ``PostgresConfiguration/idleProbeInterval`` the idle connection that has heard
    /// from the server least recently, unless within the interval, runs `SELECT 1`: left unanswered, its deadline
    /// drops it, and the others with it (``dropConnections(silentSince:because:)``).
    private func armProbe() {
        probeTimer?.start(after: probeInterval) { [unowned self] in
            let quiet = connections.filter { connection in
                let id = ObjectIdentifier(connection)
                return connection.phase == .ready && connection.pendingCount == 0 && !leased.contains(id)
                    && promised[id] == nil
            }.min { $0.lastHeard < $1.lastHeard }
            if let quiet, ContinuousClock.now - quiet.lastHeard >= probeInterval {
                // A failure is the connection's to report (its deadline drops it).
                Task(executorPreference: loop) { _ = try? await quiet.run([PostgresQuery("SELECT 1")]) }
            }
            armProbe()
        }
    }

    /// The server left a request sent at `since` unanswered past its deadline (hung, or gone from the network
    /// without closing the sockets): every connection that has heard nothing from it since would hold up its
    /// requests for a whole deadline too, one after the other, while the pool counts it ready. Drops them (their
    /// requests fail as unavailable) so that they reconnect, to the promoted standby after a failover; connections
    /// that heard from the server since, or were made since, stay.
    func dropConnections(silentSince since: ContinuousClock.Instant, because reason: String) {
        loop.preconditionInEventLoop()
        for connection in connections where connection.phase == .ready && connection.lastHeard < since {
            connection.drop("another connection to the database got no answer (\(reason))")
        }
    }

    private func unavailable() -> PostgresError {
        let reason = connections.first { $0.phase != .ready }?.lastError ?? "no connection is ready"
        return PostgresError(.unavailable, message: "database unavailable: \(reason)")
    }
}

/// Transaction isolation levels.
public enum PostgresIsolation: Sendable {
    case readCommitted, repeatableRead, serializable

    var beginStatement: String {
        switch self {
        case .readCommitted: "BEGIN"
        case .repeatableRead: "BEGIN ISOLATION LEVEL REPEATABLE READ"
        case .serializable: "BEGIN ISOLATION LEVEL SERIALIZABLE"
        }
    }
}
