public import TesseraLoop

/// An HTTP/1.1 client for outgoing calls: delivery webhooks and the admin CLI.
///
/// Each request opens its own connection (`Connection: close`), on a loop of the group: the caller's loop when the
/// caller runs on one of them, otherwise the next loop in turn. Everything (DNS on libuv's thread pool, connect,
/// TLS over memory BIOs, write, read) is driven by that loop and never blocks it. https verifies the server's
/// certificate against the configured ``TLSTrustRoots`` and its host name, with SNI, TLS 1.2 or newer.
///
/// The group must keep running while requests are in flight: a loop that is shutting down drops queued work.
public final class HTTPClient: Sendable {
    /// The loops requests run on.
    public let group: EventLoopGroup
    /// Limits and trust settings.
    public let configuration: HTTPClientConfiguration
    private let tlsContext: TLSClientContext

    /// Creates a client on `group`. Throws ``HTTPClientError/tlsSetupFailed(reason:)`` when the TLS context cannot
    /// be set up, for example when the CA file of ``TLSTrustRoots/certificateFile(path:)`` cannot be loaded.
    public init(
        group: EventLoopGroup, configuration: HTTPClientConfiguration = HTTPClientConfiguration()
    )
        throws(HTTPClientError)
    {
        self.group = group
        self.configuration = configuration
        tlsContext = try TLSClientContext(trustRoots: configuration.trustRoots)
    }

    /// Sends `request` and returns the complete response, whatever its status. The whole exchange must finish
    /// within `timeout`, otherwise it fails with ``HTTPClientError/timeout(_:)`` and the connection is closed. A
    /// cancelled task fails with ``HTTPClientError/cancelled``. The caller resumes on its own executor.
    public func send(
        _ request: HTTPClientRequest, timeout: Duration
    ) async throws(HTTPClientError)
        -> HTTPClientResponse
    {
        let url = try HTTPClientURL(parsing: request.url)
        let bytes = try HTTPClientRequestEncoder.encode(request, url: url, userAgent: configuration.userAgent)
        guard !Task.isCancelled else { throw .cancelled }
        let loop = preferredLoop()
        let parser = HTTPResponseParser(configuration: configuration, expectsBody: request.method != .head)
        let exchange = LoopBound(
            handingOver: HTTPClientExchange(
                loop: loop, url: url, requestBytes: bytes, parser: parser, tlsContext: tlsContext),
            to: loop)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPClientExchange.Result, Never>) in
                loop.execute { exchange.value.start(timeout: timeout) { continuation.resume(returning: $0) } }
            }
        } onCancel: {
            loop.execute { exchange.value.cancel() }
        }
        return try result.get()
    }

    /// The caller's loop when it is one of the group's, otherwise the next loop in turn.
    func preferredLoop() -> EventLoop {
        if let current = EventLoop.current, group.loops.contains(where: { $0 === current }) {
            return current
        }
        return group.next()
    }
}
