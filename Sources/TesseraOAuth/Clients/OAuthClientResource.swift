/// An OAuth client as the admin API shows it (API §5 `OAuthClient`): every field but the secret's digest, which
/// never leaves the database. `clientSecret` is present only in the answer of `oauthClients.create` for a
/// confidential client; the secret cannot be read again.
public struct OAuthClientResource: Codable, Sendable, Equatable {
    public var clientId: String
    public var tenantId: String?
    public var clientName: String
    /// `public` or `confidential`.
    public var type: String
    public var redirectUris: [String]
    /// Where `/oauth2/logout` may send the browser afterwards.
    public var postLogoutRedirectUris: [String]
    /// `authorization_code`, `refresh_token`, `client_credentials`.
    public var grantTypes: [String]
    /// The scopes the client may ask for.
    public var scopes: [String]
    /// The scopes granted when a request names none; absent when requests must name them.
    public var defaultScopes: [String]?
    /// Seconds.
    public var accessTokenTtl: Int
    /// Seconds.
    public var refreshTokenTtl: Int
    /// RFC 3339.
    public var createTime: String
    /// RFC 3339.
    public var updateTime: String
    /// The secret, shown once: at creation of a confidential client.
    public var clientSecret: String?
}
