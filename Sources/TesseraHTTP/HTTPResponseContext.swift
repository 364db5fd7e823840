/// What the connection knows about the request a response answers, which decides how the response is framed.
public struct HTTPResponseContext: Hashable, Sendable {
    /// The request was `HEAD`: the response carries its body's Content-Length but not the body.
    public var isHeadRequest: Bool
    /// The request was HTTP/1.0: keeping the connection open needs an explicit `Connection: keep-alive`.
    public var isHTTP10: Bool
    /// The connection closes after this response, so it says `Connection: close`.
    public var closeConnection: Bool

    /// Creates a context; the defaults describe an HTTP/1.1 keep-alive request that is not `HEAD`.
    public init(isHeadRequest: Bool = false, isHTTP10: Bool = false, closeConnection: Bool = false) {
        self.isHeadRequest = isHeadRequest
        self.isHTTP10 = isHTTP10
        self.closeConnection = closeConnection
    }

    /// The context of a response to `request`, closing when the request does not keep the connection alive.
    public init(request: HTTPRequest, closeConnection: Bool = false) {
        self.init(
            isHeadRequest: request.method == .head,
            isHTTP10: request.version.major == 1 && request.version.minor == 0,
            closeConnection: closeConnection || !request.keepAlive
        )
    }
}
