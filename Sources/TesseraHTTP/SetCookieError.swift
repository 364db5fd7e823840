/// Why a ``SetCookie`` cannot be written.
public enum SetCookieError: Error, Hashable, Sendable {
    /// The name is empty or not an RFC 9110 token.
    case invalidName(String)
    /// The value holds a byte RFC 6265 §4.1.1 forbids (space, `"`, `,`, `;`, `\`, controls, non-ASCII).
    case invalidValue(name: String)
    /// The path or domain holds a `;` or a control character.
    case invalidAttribute(name: String)
    /// `SameSite=None` without `Secure`, which browsers reject.
    case sameSiteNoneRequiresSecure(name: String)

    /// A one-line explanation for the server log.
    public var reason: String {
        switch self {
        case .invalidName(let name): "invalid cookie name \(name.debugDescription)"
        case .invalidValue(let name): "invalid value for cookie \(name)"
        case .invalidAttribute(let name): "invalid path or domain for cookie \(name)"
        case .sameSiteNoneRequiresSecure(let name): "cookie \(name) has SameSite=None without Secure"
        }
    }
}
