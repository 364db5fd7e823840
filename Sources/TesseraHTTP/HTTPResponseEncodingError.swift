/// Why a handler's response cannot be put on the wire. The connection answers 500 instead.
public enum HTTPResponseEncodingError: Error, Hashable, Sendable {
    /// The status code is outside 100–999, or its phrase contains a line break.
    case invalidStatus(code: Int)
    /// A field name is not an RFC 9110 token, or its value contains CR, LF or NUL (header injection).
    case invalidHeaderField(name: String)

    /// A one-line explanation for the server log.
    public var reason: String {
        switch self {
        case .invalidStatus(let code): "invalid response status \(code)"
        case .invalidHeaderField(let name): "invalid response header field \(name.debugDescription)"
        }
    }
}
