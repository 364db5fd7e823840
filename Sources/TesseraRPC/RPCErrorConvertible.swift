/// An error type of another module that knows how it is answered over JSON-RPC. Handlers may throw such errors
/// directly; the dispatcher answers with their ``rpcError``.
public protocol RPCErrorConvertible: Error {
    /// The error to answer with.
    var rpcError: RPCError { get }
}
