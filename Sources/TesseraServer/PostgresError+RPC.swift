public import TesseraPostgres
public import TesseraRPC

/// Database failures as JSON-RPC answers: an unreachable database is `UNAVAILABLE` (the client may retry);
/// anything else is a bug, `INTERNAL`. The database's own message never reaches the client; the dispatcher
/// logs it.
extension PostgresError: RPCErrorConvertible {
    public var rpcError: RPCError {
        switch kind {
        case .unavailable:
            RPCError(reason: "UNAVAILABLE", status: .unavailable, detail: "The service is temporarily unavailable.")
        default:
            RPCError.internal()
        }
    }
}
