public import TesseraCore
public import TesseraRPC

/// Domain errors as JSON-RPC errors: the reason, its status, the detail and `retryAfter` (API §2).
extension AuthError: RPCErrorConvertible {
    public var rpcError: RPCError {
        RPCError(
            reason: reason.rawValue, status: RPCStatus(rawValue: reason.status) ?? .internal, detail: detail,
            retryAfter: retryAfter)
    }
}
