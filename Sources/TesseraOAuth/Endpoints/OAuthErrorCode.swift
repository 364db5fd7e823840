/// The `error` codes of the token, revocation and introspection endpoints (RFC 6749 §5.2, RFC 7009 §2.2.1).
public enum OAuthErrorCode: String, Sendable, Equatable, CaseIterable {
    /// A parameter is missing, repeated or malformed, or the body is not a form.
    case invalidRequest = "invalid_request"
    /// The client is unknown or failed to authenticate (401).
    case invalidClient = "invalid_client"
    /// The code or refresh token is unknown, used, expired, revoked, or issued to another client or redirect URI.
    case invalidGrant = "invalid_grant"
    /// The client may not use this grant type.
    case unauthorizedClient = "unauthorized_client"
    /// The grant type is not one the server knows.
    case unsupportedGrantType = "unsupported_grant_type"
    /// The scope asked for is malformed or wider than allowed.
    case invalidScope = "invalid_scope"
    /// Something failed on the server's side (500).
    case serverError = "server_error"
    /// The database cannot be reached just now (503).
    case temporarilyUnavailable = "temporarily_unavailable"
}
