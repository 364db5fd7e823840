/// Why a request or an operation did not give what the scenario expects.
enum LoadError: Error, CustomStringConvertible {
    /// Connecting, writing or reading failed, or the server closed the connection mid-response.
    case socket(String)
    /// No complete response within the request timeout.
    case timeout
    /// The bytes were not an HTTP response.
    case malformed(String)
    /// A response with a status or content the scenario does not expect.
    case unexpected(status: Int, detail: String)
    /// Setting up (admin RPC, sign-in) failed.
    case setup(String)

    /// A short key for counting errors by kind.
    var kind: String {
        switch self {
        case .socket: "socket"
        case .timeout: "timeout"
        case .malformed: "malformed"
        case .unexpected(let status, _): "status_\(status)"
        case .setup: "setup"
        }
    }

    var description: String {
        switch self {
        case .socket(let reason): "socket error: \(reason)"
        case .timeout: "timeout"
        case .malformed(let reason): "malformed response: \(reason)"
        case .unexpected(let status, let detail): "unexpected HTTP \(status): \(detail)"
        case .setup(let reason): "setup failed: \(reason)"
        }
    }
}
