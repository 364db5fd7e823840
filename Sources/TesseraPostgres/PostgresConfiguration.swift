import TesseraLoop

/// How the driver connects and how much it allows each statement.
public struct PostgresConfiguration: Sendable {
    /// libpq connection string or URI.
    public var url: String
    /// Connections per event loop.
    public var connectionsPerLoop: Int
    /// Server-side limit on any one statement (`statement_timeout`).
    public var statementTimeout: Duration
    /// How long establishing a connection to one host may take before it counts as failed (the connection
    /// string's `connect_timeout` wins when it sets one; each host of a multi-host string gets this much).
    public var connectTimeout: Duration
    /// The first reconnect delay; it doubles per failed attempt up to ``maximumBackoff``.
    public var initialBackoff: Duration
    /// The longest reconnect delay.
    public var maximumBackoff: Duration
    /// How long past ``statementTimeout`` a request may wait for its answer before the connection is judged
    /// hung (the server stopped answering without closing the socket) and dropped, failing its requests.
    public var answerGrace: Duration
    /// How often idle sessions check that the server still answers (a trivial query): the listening session
    /// (``PostgresListener``) always, and in each pool the idle connection that has heard from the server least
    /// recently, unless it heard within this. A server that stopped answering (hung, or gone from the network
    /// without closing the sockets) is then noticed within this plus ``answerDeadline``, even with no requests,
    /// and the sessions reconnect, to the new primary after a failover.
    public var idleProbeInterval: Duration

    /// Creates a configuration with production defaults.
    public init(
        url: String, connectionsPerLoop: Int = 4, statementTimeout: Duration = .seconds(5),
        connectTimeout: Duration = .seconds(5), initialBackoff: Duration = .milliseconds(100),
        maximumBackoff: Duration = .seconds(5), answerGrace: Duration = .seconds(2),
        idleProbeInterval: Duration = .seconds(5)
    ) {
        self.url = url
        self.connectionsPerLoop = connectionsPerLoop
        self.statementTimeout = statementTimeout
        self.connectTimeout = connectTimeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.answerGrace = answerGrace
        self.idleProbeInterval = idleProbeInterval
    }

    /// The longest a request may wait for its answer on a live connection.
    var answerDeadline: Duration { statementTimeout + answerGrace }

    /// The reconnect delay after `attempt` consecutive failures (0-based).
    func backoff(attempt: Int) -> Duration {
        var delay = initialBackoff
        for _ in 0..<min(attempt, 16) where delay < maximumBackoff { delay *= 2 }
        return min(delay, maximumBackoff)
    }

    /// Session settings every connection starts with: the statement timeout, and UTC ISO timestamps so
    /// that `timestamptz` text decodes without guessing.
    var sessionOptions: String {
        "-c statement_timeout=\(statementTimeout.roundedUpMilliseconds) -c TimeZone=UTC -c DateStyle=ISO"
    }
}
