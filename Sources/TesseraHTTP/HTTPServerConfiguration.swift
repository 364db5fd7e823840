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
    /// How long a connection may stay open with no request in progress before it is closed silently.
    public var idleTimeout: Duration
    /// How many received requests (and unfinished response writes) a connection holds before it stops reading;
    /// at least 1 (smaller values are raised to 1).
    public var maxQueuedRequests: Int

    /// Creates a configuration; every argument defaults to the contract's value.
    public init(
        maxHeaderBytes: Int = 16 * 1024,
        maxBodyBytes: Int = 1 << 20,
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maxQueuedRequests: Int = 16
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxQueuedRequests = max(1, maxQueuedRequests)
    }
}
