/// A complete response received by an ``HTTPClient``.
public struct HTTPClientResponse: Sendable {
    /// The status code and the reason phrase the server wrote.
    public var status: HTTPStatus
    /// The header fields in the order received (trailer fields of a chunked body are not included).
    public var headers: HTTPHeaders
    /// The body, de-chunked.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status.code) }
}
