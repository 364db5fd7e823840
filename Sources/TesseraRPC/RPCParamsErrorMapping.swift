public import TesseraJSON

/// A params type that answers some decoding failures with a more specific reason than `INVALID_ARGUMENT`, as the
/// contract asks for absent credentials (`MISSING_MFA_PENDING_CREDENTIAL`) or invalid admin configuration
/// (`INVALID_CONFIG`).
///
/// ```swift
/// static func rpcError(for error: JSONDecodingError) -> RPCError? {
///     guard error.kind == .missingField, error.field == "mfaPendingCredential" else { return nil }
///     return RPCError(reason: "MISSING_MFA_PENDING_CREDENTIAL", status: .invalidArgument, detail: error.message)
/// }
/// ```
public protocol RPCParamsErrorMapping {
    /// The error to answer when the params fail to decode; nil keeps the default `INVALID_ARGUMENT`.
    static func rpcError(for error: JSONDecodingError) -> RPCError?
}
