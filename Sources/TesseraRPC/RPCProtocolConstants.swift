/// The JSON-RPC 2.0 error codes Tessera uses (API §2), in one place.
public enum RPCErrorCode {
    /// The body is not JSON.
    public static let parseError = -32700
    /// The JSON is not a valid request object or batch.
    public static let invalidRequest = -32600
    /// No method of that name on this listener.
    public static let methodNotFound = -32601
    /// Params that fail to decode, and reasons `INVALID_ARGUMENT` and `MISSING_*`.
    public static let invalidParams = -32602
    /// A bug; details only in the server log.
    public static let internalError = -32603
    /// Every other application error.
    public static let applicationError = -32000
}

/// The reasons the JSON-RPC layer itself answers with (API §10 plus `METHOD_NOT_FOUND`), in one place.
public enum RPCReason {
    /// Malformed JSON, an invalid request, or params that fail to decode.
    public static let invalidArgument = "INVALID_ARGUMENT"
    /// No method of that name (-32601, status `NOT_FOUND`).
    public static let methodNotFound = "METHOD_NOT_FOUND"
    /// A bug (-32603, status `INTERNAL`).
    public static let `internal` = "INTERNAL"
    /// The prefix of reasons for absent params (`MISSING_ID_TOKEN`, ...), answered with -32602.
    public static let missingPrefix = "MISSING_"
}
