public import Logging
public import TesseraHTTP

/// What a handler knows about the HTTP request that carried its call. Every entry of a batch shares one context.
public struct RPCContext: Sendable {
    /// The id of the HTTP request, for logs and audit records.
    public var requestID: String
    /// The HTTP request's header fields (`Authorization` for admin methods, ...).
    public var headers: HTTPHeaders
    /// The client's address as the server decided to believe it (after trusted-proxy processing), when known.
    public var remoteAddress: String?
    /// A logger carrying the request id as `request-id` metadata.
    public var logger: Logger

    /// Creates a context; the logger gets the request id as metadata.
    public init(
        requestID: String, headers: HTTPHeaders = HTTPHeaders(), remoteAddress: String? = nil,
        logger: Logger = Logger(label: "tessera.rpc")
    ) {
        self.requestID = requestID
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.logger = logger
        self.logger[metadataKey: "request-id"] = .string(requestID)
    }
}
