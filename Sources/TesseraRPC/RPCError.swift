/// An error answered to the client: handlers throw it, and the dispatcher sends it as the JSON-RPC error object
/// `{"code": …, "message": "REASON : detail", "data": {"reason": …, "status": …, "retryAfter": …}}` (API §2).
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON-RPC error code; see ``defaultCode(forReason:)``.
    public var code: Int
    /// The machine-readable reason clients switch on (`INVALID_CODE`).
    public var reason: String
    /// The canonical class of the error.
    public var status: RPCStatus
    /// A human explanation; may be empty. Never put secrets here: it goes to the client.
    public var detail: String
    /// Seconds after which a retry may succeed, sent as `data.retryAfter` (with `RESOURCE_EXHAUSTED`).
    public var retryAfter: Int?

    /// Creates an error. Without an explicit `code`, reasons `INVALID_ARGUMENT` and `MISSING_*` get -32602 and
    /// every other reason -32000.
    public init(reason: String, status: RPCStatus, detail: String = "", retryAfter: Int? = nil, code: Int? = nil) {
        self.code = code ?? RPCError.defaultCode(forReason: reason)
        self.reason = reason
        self.status = status
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// -32602 for `INVALID_ARGUMENT` and `MISSING_*` reasons, -32000 for all other application errors.
    public static func defaultCode(forReason reason: String) -> Int {
        if reason == RPCReason.invalidArgument || reason.hasPrefix(RPCReason.missingPrefix) {
            return RPCErrorCode.invalidParams
        }
        return RPCErrorCode.applicationError
    }

    /// The JSON-RPC `message`: `REASON : detail`, or just `REASON` without a detail.
    public var message: String {
        detail.isEmpty ? reason : "\(reason) : \(detail)"
    }

    /// The ``message``.
    public var description: String { message }

    /// Malformed or unknown params (-32602, `INVALID_ARGUMENT`).
    public static func invalidArgument(_ detail: String) -> RPCError {
        RPCError(reason: RPCReason.invalidArgument, status: .invalidArgument, detail: detail)
    }

    /// A bug (-32603, `INTERNAL`), with no detail: what went wrong belongs in the server log only.
    public static func `internal`() -> RPCError {
        RPCError(reason: RPCReason.internal, status: .internal, code: RPCErrorCode.internalError)
    }

    /// The body is not JSON (-32700, `INVALID_ARGUMENT`).
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(
            reason: RPCReason.invalidArgument, status: .invalidArgument, detail: detail, code: RPCErrorCode.parseError
        )
    }

    /// The JSON is not a valid request (-32600, `INVALID_ARGUMENT`).
    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(
            reason: RPCReason.invalidArgument, status: .invalidArgument, detail: detail,
            code: RPCErrorCode.invalidRequest
        )
    }

    /// No such method on this listener (-32601, `METHOD_NOT_FOUND`, status `NOT_FOUND`).
    public static func methodNotFound(_ name: String) -> RPCError {
        let shown = name.count > 100 ? String(name.prefix(100)) + "…" : name
        return RPCError(
            reason: RPCReason.methodNotFound, status: .notFound, detail: "no method named '\(shown)'",
            code: RPCErrorCode.methodNotFound
        )
    }
}
