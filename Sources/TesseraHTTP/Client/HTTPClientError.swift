/// Why an ``HTTPClient`` exchange failed. Descriptions are one line for logs and operators; they name the host and
/// port but never the request's body, its headers or the URL's path and query (which may carry secrets).
public enum HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is not an absolute `http://` or `https://` URL this client can use.
    case invalidURL(reason: String)
    /// The request cannot be written: a method or header field that is not valid HTTP, or a framing field that
    /// the client sets itself.
    case invalidRequest(reason: String)
    /// The host name could not be resolved.
    case dnsFailure(host: String, reason: String)
    /// Nothing accepts connections on that port.
    case connectionRefused(host: String, port: Int)
    /// The connection could not be opened, or broke while the exchange was under way.
    case connectionFailed(host: String, port: Int, reason: String)
    /// The TLS handshake or the encrypted stream failed; `reason` is OpenSSL's (certificate verification,
    /// host name mismatch, protocol alert, …).
    case tlsFailure(host: String, reason: String)
    /// The TLS client context could not be set up (for example an unreadable CA file).
    case tlsSetupFailed(reason: String)
    /// The whole exchange (DNS, connect, TLS, write, read) did not finish within this time; everything was closed.
    case timeout(Duration)
    /// The server's bytes are not a valid HTTP/1.x response, or the connection ended before the response did.
    case malformedResponse(reason: String)
    /// The response's header section or body exceeds the client's limit of this many bytes.
    case responseTooLarge(limit: Int)
    /// The calling task was cancelled; everything was closed.
    case cancelled

    /// One line for logs and operators.
    public var description: String {
        switch self {
        case .invalidURL(let reason): "invalid URL: \(reason)"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .dnsFailure(let host, let reason): "cannot resolve host \(host): \(reason)"
        case .connectionRefused(let host, let port): "connection refused by \(host):\(port)"
        case .connectionFailed(let host, let port, let reason): "connection to \(host):\(port) failed: \(reason)"
        case .tlsFailure(let host, let reason): "TLS with \(host) failed: \(reason)"
        case .tlsSetupFailed(let reason): "cannot set up TLS: \(reason)"
        case .timeout(let limit): "no complete response within \(limit)"
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .responseTooLarge(let limit): "response larger than the limit of \(limit) bytes"
        case .cancelled: "the request was cancelled"
        }
    }

    /// Whether trying the same request again later may succeed: network, TLS and protocol failures and timeouts
    /// are; a bad URL or request, a response over the limit, a broken TLS set-up and a cancellation are not.
    public var isTransient: Bool {
        switch self {
        case .dnsFailure, .connectionRefused, .connectionFailed, .tlsFailure, .timeout, .malformedResponse: true
        case .invalidURL, .invalidRequest, .tlsSetupFailed, .responseTooLarge, .cancelled: false
        }
    }
}
