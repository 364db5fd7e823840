/// A failure of a cryptographic primitive: OpenSSL refused an operation, an argument was out of range, or key
/// material was not a valid key of the expected kind.
///
/// Every primitive in this module fails closed: when OpenSSL reports an error, the caller gets this error and
/// never a partial or weak result.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An OpenSSL call failed. `operation` names the call, `detail` is OpenSSL's error queue (possibly empty).
    case library(operation: String, detail: String)
    /// An argument was outside what the function accepts, e.g. a negative byte count.
    case invalidArgument(String)
    /// Key material that is not a valid key of the expected kind (wrong curve, point not on the curve, bad PEM).
    case invalidKey(String)

    /// One line saying what failed.
    public var description: String {
        switch self {
        case .library(let operation, let detail):
            detail.isEmpty ? "OpenSSL \(operation) failed" : "OpenSSL \(operation) failed: \(detail)"
        case .invalidArgument(let reason):
            "invalid argument: \(reason)"
        case .invalidKey(let reason):
            "invalid key: \(reason)"
        }
    }
}
