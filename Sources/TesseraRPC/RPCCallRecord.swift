/// What the dispatcher reports to its observer after each call (metrics, access logs).
public struct RPCCallRecord: Sendable, Hashable {
    /// The method name for calls to registered methods; ``unknownMethod`` for names that are not registered and
    /// ``invalidRequest`` for bodies or entries that are not valid requests. Client-chosen names never appear, so
    /// a metrics label made from this cannot grow without bound.
    public var method: String
    /// The error reason, or nil on success.
    public var reason: String?
    /// Time from the start of processing the entry to its reply being ready.
    public var duration: Duration

    /// The ``method`` of calls to names that are not registered.
    public static let unknownMethod = "(unknown)"
    /// The ``method`` of bodies and entries that are not valid requests.
    public static let invalidRequest = "(invalid)"

    /// Creates a record.
    public init(method: String, reason: String?, duration: Duration) {
        self.method = method
        self.reason = reason
        self.duration = duration
    }
}
