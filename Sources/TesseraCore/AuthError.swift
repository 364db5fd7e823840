/// A failure of a domain operation that the caller is told about: a reason of API §10, its canonical status,
/// a human detail and, for `RESOURCE_EXHAUSTED`, the seconds after which a retry may succeed.
///
/// Domain code throws only these (and database errors); the RPC layer turns them into JSON-RPC errors. The
/// detail goes to the client: never put a secret, a code or a full phone number in it.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable reason (`INVALID_CODE`).
    public var reason: AuthReason
    /// A human explanation; may be empty.
    public var detail: String
    /// Seconds after which a retry may succeed.
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ reason: AuthReason, _ detail: String = "", retryAfter: Int? = nil) {
        self.reason = reason
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// `REASON : detail`, as the JSON-RPC message is written.
    public var description: String { detail.isEmpty ? reason.rawValue : "\(reason.rawValue) : \(detail)" }
}
