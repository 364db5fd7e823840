/// A request for an ``HTTPClient``: a method, an absolute `http://` or `https://` URL, header fields and a body.
///
/// The client writes `Host` (unless the request names one), `Content-Length`, `Connection: close` and a
/// `User-Agent` (unless the request names one) itself; a request carrying `Content-Length`, `Transfer-Encoding`
/// or `Connection` is refused with ``HTTPClientError/invalidRequest(reason:)``.
public struct HTTPClientRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute URL, e.g. `https://hooks.example.com/sms?tenant=a`; a fragment is dropped.
    public var url: String
    /// Header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: HTTPMethod = .get, url: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
