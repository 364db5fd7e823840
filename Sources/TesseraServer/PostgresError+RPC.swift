public import TesseraPostgres
public import TesseraRPC

/// Database failures as JSON-RPC answers: a database that cannot serve for now (unreachable, or a statement out
/// of time) is `UNAVAILABLE` (the client may retry); anything else is a bug, `INTERNAL`. The database's own
/// message never reaches the client; the dispatcher logs it.
extension PostgresError: RPCErrorConvertible {
    public var rpcError: RPCError {
        isTemporary
            ? RPCError(reason: "UNAVAILABLE", status: .unavailable, detail: "The service is temporarily unavailable.")
            : RPCError.internal()
    }
}
