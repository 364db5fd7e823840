/// Limits and timeouts of an HTTP server (API §9). Every connection of a server shares one configuration.
///
/// The defaults are the contract's limits; tests shrink the timeouts so they run fast.
public struct HTTPServerConfiguration: Sendable {
    /// The largest header section (request line, header fields and the blank line) accepted; larger is a 431.
    public var maxHeaderBytes: Int
    /// The largest request body accepted after de-chunking; larger is a 413.
    public var maxBodyBytes: Int
    /// How long a request may take from its first byte until its headers are complete; slower is a 408.
    public var headerTimeout: Duration
    /// How long a request's body may take to arrive after its headers (or after the 100 Continue); slower is a 408.
    public var bodyTimeout: Duration
    /// How long queued response bytes may make no progress (a peer that stops reading) before the connection is
    /// dropped; also bounds how long a closing connection waits to flush.
    public var writeTimeout: Duration
    /// How long a connection may stay open with no request in progress before it is closed silently.
    public var idleTimeout: Duration
    /// How many received requests (and unfinished response writes) a connection holds before it stops reading;
    /// at least 1 (smaller values are raised to 1).
    public var maxQueuedRequests: Int
    /// How many body bytes of received, not yet handled requests a connection holds before it stops reading.
    public var maxQueuedBodyBytes: Int
    /// The most connections the server keeps open at once, over all its loops; more are answered 503 and closed.
    public var maxConnections: Int
    /// The most connections one client address keeps open at once; more are answered 503 and closed. Addresses in
    /// ``connectionLimitExemptions`` (a load balancer's) are limited by ``maxConnections`` only.
    public var maxConnectionsPerClient: Int
    /// Peers the per-client limit does not apply to: the trusted proxies, which carry many clients' connections.
    public var connectionLimitExemptions: [IPNetwork]

    /// Creates a configuration; every argument defaults to the contract's value.
    public init(
        maxHeaderBytes: Int = 16 * 1024,
        maxBodyBytes: Int = 1 << 20,
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(10),
        writeTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60),
        maxQueuedRequests: Int = 16,
        maxQueuedBodyBytes: Int = 2 << 20,
        maxConnections: Int = 10_000,
        maxConnectionsPerClient: Int = 256,
        connectionLimitExemptions: [IPNetwork] = []
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.writeTimeout = writeTimeout
        self.idleTimeout = idleTimeout
        self.maxQueuedRequests = max(1, maxQueuedRequests)
        self.maxQueuedBodyBytes = max(1, maxQueuedBodyBytes)
        self.maxConnections = max(1, maxConnections)
        self.maxConnectionsPerClient = max(1, maxConnectionsPerClient)
        self.connectionLimitExemptions = connectionLimitExemptions
    }
}
