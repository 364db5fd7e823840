/// Why a request could not be read. Each case knows the status it is answered with; the connection closes after.
public enum HTTPParseError: Error, Hashable, Sendable {
    /// The bytes are not an HTTP/1.x request; `reason` says what the parser objected to.
    case malformed(reason: String)
    /// The request line and header fields together exceed the configured limit.
    case headersTooLarge
    /// The body (declared by Content-Length, or de-chunked so far) exceeds the configured limit.
    case bodyTooLarge
    /// The request names an HTTP version other than 1.0 or 1.1.
    case versionNotSupported
    /// The request carries an `Expect` value other than `100-continue`.
    case expectationFailed
    /// The request asks for `CONNECT` or a protocol upgrade, which this server does not do.
    case upgradeNotSupported

    /// The status the failure is answered with.
    public var status: HTTPStatus {
        switch self {
        case .malformed: .badRequest
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .payloadTooLarge
        case .versionNotSupported: .httpVersionNotSupported
        case .expectationFailed: .expectationFailed
        case .upgradeNotSupported: .notImplemented
        }
    }

    /// A one-line explanation, safe to log and to send to the client.
    public var reason: String {
        switch self {
        case .malformed(let reason): "malformed request: \(reason)"
        case .headersTooLarge: "request header section too large"
        case .bodyTooLarge: "request body too large"
        case .versionNotSupported: "only HTTP/1.0 and HTTP/1.1 are supported"
        case .expectationFailed: "only the 100-continue expectation is supported"
        case .upgradeNotSupported: "CONNECT and protocol upgrades are not supported"
        }
    }

    /// The response sent for this failure: a short plain-text body and `Connection: close`.
    public var response: HTTPResponse {
        var response = HTTPResponse.text(reason + "\n", status: status)
        response.closeConnection = true
        return response
    }
}
