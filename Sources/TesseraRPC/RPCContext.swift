public import Logging
public import TesseraHTTP

/// What a handler knows about the HTTP request that carried its call. Every entry of a batch shares one context.
public struct RPCContext: Sendable {
    /// The id of the HTTP request, for logs and audit records.
    public var requestID: String
    /// The HTTP request's header fields (`Authorization` for admin methods, ...).
    public var headers: HTTPHeaders
    /// The connection's peer as the socket reports it (`1.2.3.4:5555`, `[::1]:5555`), when known.
    public var peerAddress: String?
    /// The proxies whose forwarding headers are believed when they are the peer (`--trusted-proxy`).
    public var trustedProxies: [IPNetwork]
    /// Who is calling, as the table's ``RPCAuthenticator`` decided (an admin key's identity); nil on tables
    /// without an authenticator.
    public var principal: (any Sendable)?
    private let baseLogger: Logger

    /// Creates a context.
    public init(
        requestID: String, headers: HTTPHeaders = HTTPHeaders(), peerAddress: String? = nil,
        trustedProxies: [IPNetwork] = [], logger: Logger = Logger(label: "tessera.rpc")
    ) {
        self.requestID = requestID
        self.headers = headers
        self.peerAddress = peerAddress
        self.trustedProxies = trustedProxies
        baseLogger = logger
    }

    /// The client's IP address as the server believes it, as bare canonical text without a port (`192.0.2.1`,
    /// `2001:db8::1`): the peer, or behind a trusted proxy the address its forwarding headers name
    /// (``ClientAddress``); nil when unknown. Resolved when asked for, since only the methods that send an SMS
    /// need it.
    public var clientAddress: String? {
        ClientAddress.resolve(peer: peerAddress, headers: headers, trustedProxies: trustedProxies)?.description
    }

    /// A logger carrying the request id as `request-id` metadata. It is made when asked for, because attaching
    /// metadata costs more than a whole call to a cheap method, and most calls log nothing.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "request-id"] = .string(requestID)
        return logger
    }
}
