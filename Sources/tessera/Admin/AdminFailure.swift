/// Why an admin command failed once it had started talking to the admin listener. It is printed as
/// `tessera: <description>` on stderr and the exit status is 1.
enum AdminFailure: Error, Equatable, CustomStringConvertible {
    /// The server answered with a JSON-RPC error; `message` is the server's (`REASON : detail`).
    case rpc(reason: String?, message: String)
    /// The listener could not be reached: refused, unresolvable, timed out, TLS failure.
    case unreachable(url: String, detail: String)
    /// The listener answered something that is not a JSON-RPC reply (an HTTP error, a non-JSON body).
    case unexpectedAnswer(url: String, detail: String)
    /// The server's data does not allow what was asked (e.g. removing an MFA enrolment the user does not have).
    case refused(String)

    /// One line, without the `tessera: ` prefix.
    var description: String {
        switch self {
        case .rpc(let reason?, let message) where !message.hasPrefix(reason):
            "\(reason) : \(message)"
        case .rpc(_, let message):
            message
        case .unreachable(let url, let detail):
            "cannot reach admin listener at \(url): \(detail)"
        case .unexpectedAnswer(let url, let detail):
            "unexpected answer from the admin listener at \(url): \(detail)"
        case .refused(let detail):
            detail
        }
    }
}
