import TesseraJSON
import TesseraRPC

/// The `MISSING_*` reasons of API §10 for params that name a credential: when `field` is absent, the call fails
/// with `reason` instead of `INVALID_ARGUMENT`.
enum MissingCredential {
    /// `error` answered with `reason` when it is the absence of `field`, else nil.
    static func map(_ error: JSONDecodingError, field: String, reason: String) -> RPCError? {
        guard error.kind == .missingField, error.field == field else { return nil }
        return RPCError(reason: reason, status: .invalidArgument, detail: "\(field) is required")
    }
}
