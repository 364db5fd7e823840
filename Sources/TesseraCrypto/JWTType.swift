/// The `typ` header of a JWT, which tells token kinds apart so one cannot be passed off as another
/// (RFC 8725 §3.11).
public struct JWTType: Hashable, Sendable, CustomStringConvertible {
    /// The header value as written.
    public let rawValue: String

    /// A type from its header value, e.g. `JWT`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// `JWT`: OpenID Connect ID tokens and Tessera's ID tokens.
    public static let jwt = JWTType("JWT")
    /// `at+jwt`: OAuth 2.0 access tokens (RFC 9068 §2.1).
    public static let accessToken = JWTType("at+jwt")

    /// Whether a header's `typ` names this type. Media types compare case-insensitively and may omit the
    /// `application/` prefix (RFC 7515 §4.1.9).
    public func matches(_ headerValue: String) -> Bool {
        Self.normalized(headerValue) == Self.normalized(rawValue)
    }

    /// The header value.
    public var description: String { rawValue }

    private static func normalized(_ value: String) -> String {
        let lowered = value.lowercased()
        return lowered.hasPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }
}
