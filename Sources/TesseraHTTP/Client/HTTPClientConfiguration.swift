/// Limits and trust settings of an ``HTTPClient``; the defaults suit webhooks and the admin CLI.
public struct HTTPClientConfiguration: Sendable {
    /// The largest response body accepted, after de-chunking; a larger one fails with
    /// ``HTTPClientError/responseTooLarge(limit:)``.
    public var maxResponseBodyBytes: Int
    /// The largest response header section accepted (status line and fields).
    public var maxResponseHeaderBytes: Int
    /// The certificates trusted for https.
    public var trustRoots: TLSTrustRoots
    /// The `User-Agent` sent when the request does not carry one.
    public var userAgent: String

    /// Creates a configuration: a 1 MiB body limit, a 64 KiB header limit and the system trust store by default.
    public init(
        maxResponseBodyBytes: Int = 1 << 20,
        maxResponseHeaderBytes: Int = 64 * 1024,
        trustRoots: TLSTrustRoots = .system,
        userAgent: String = "Tessera"
    ) {
        self.maxResponseBodyBytes = max(0, maxResponseBodyBytes)
        self.maxResponseHeaderBytes = max(1, maxResponseHeaderBytes)
        self.trustRoots = trustRoots
        self.userAgent = userAgent
    }
}
