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
    /// A JSON-RPC answer with an error of `reason` (API §10) where the scenario expects a result.
    case rpc(reason: String, detail: String)

    /// A short key for counting errors by kind.
    var kind: String {
        switch self {
        case .socket: "socket"
        case .timeout: "timeout"
        case .malformed: "malformed"
        case .unexpected(let status, _): "status_\(status)"
        case .setup: "setup"
        case .rpc(let reason, _): "rpc_\(reason)"
        }
    }

    var description: String {
        switch self {
        case .socket(let reason): "socket error: \(reason)"
        case .timeout: "timeout"
        case .malformed(let reason): "malformed response: \(reason)"
        case .unexpected(let status, let detail): "unexpected HTTP \(status): \(detail)"
        case .setup(let reason): "setup failed: \(reason)"
        case .rpc(let reason, let detail): "JSON-RPC error \(reason): \(detail)"
        }
    }
}
