/// Whether a client can keep a secret (RFC 6749 §2.1). Native apps are public: anything shipped in an app can be
/// read out of it, so they prove possession of their codes with PKCE alone.
public enum OAuthClientType: String, Sendable, Equatable, CaseIterable {
    /// A native or browser app: no secret, `authorization_code` and `refresh_token` only.
    case `public`
    /// A server-side client with a secret; may also use `client_credentials` and introspection.
    case confidential
}
