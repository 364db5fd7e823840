/// The canonical class of an error, sent as `data.status` (API §2): clients that do not know a reason can still
/// tell what kind of failure it is.
public enum RPCStatus: String, Sendable, Hashable, CaseIterable {
    case invalidArgument = "INVALID_ARGUMENT"
    case unauthenticated = "UNAUTHENTICATED"
    case permissionDenied = "PERMISSION_DENIED"
    case notFound = "NOT_FOUND"
    case alreadyExists = "ALREADY_EXISTS"
    case failedPrecondition = "FAILED_PRECONDITION"
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    case unavailable = "UNAVAILABLE"
    case `internal` = "INTERNAL"
}
