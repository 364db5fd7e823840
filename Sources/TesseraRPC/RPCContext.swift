public import Logging
public import TesseraHTTP

/// What a handler knows about the HTTP request that carried its call. Every entry of a batch shares one context.
public struct RPCContext: Sendable {
    /// The id of the HTTP request, for logs and audit records.
    public var requestID: String
    /// The HTTP request's header fields (`Authorization` for admin methods, ...).
    public var headers: HTTPHeaders
    /// The client's IP address as the server decided to believe it (the socket's peer, or what trusted proxies
    /// reported: `ClientAddress`), as bare canonical text without a port (`192.0.2.1`, `2001:db8::1`); nil when
    /// unknown.
    public var remoteAddress: String?
    /// Who is calling, as the table's ``RPCAuthenticator`` decided (an admin key's identity); nil on tables
    /// without an authenticator.
    public var principal: (any Sendable)?
    private let baseLogger: Logger

    /// Creates a context.
    public init(
        requestID: String, headers: HTTPHeaders = HTTPHeaders(), remoteAddress: String? = nil,
        logger: Logger = Logger(label: "tessera.rpc")
    ) {
        self.requestID = requestID
        self.headers = headers
        self.remoteAddress = remoteAddress
        baseLogger = logger
    }

    /// A logger carrying the request id as `request-id` metadata. It is made when asked for, because attaching
    /// metadata costs more than a whole call to a cheap method, and most calls log nothing.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "request-id"] = .string(requestID)
        return logger
    }
}
