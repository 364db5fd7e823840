public import FoundationEssentials

/// A registered OAuth client (API §5 `OAuthClient`), bound to a tenant or to the project (`tenantID` nil). Its
/// secret, when it has one, is only ever held as a digest (``secretDigest``).
///
/// Immutable, and a class: every request of the token cycle passes its client from the cache through the endpoint
/// into the grant, and copying a dozen reference-counted members at each step was 7 % of the server's reference
/// counting. A change is a new client (``applying(_:updatedAt:)``).
public final class OAuthClient: Sendable, Equatable {
    /// Default `grantTypes` of a new client.
    public static let defaultGrantTypes: [OAuthGrantType] = [.authorizationCode, .refreshToken]
    /// Default allowed `scopes` of a new client.
    public static let defaultScopes = ["openid", "profile", "email", "offline_access"]
    /// Default access token lifetime in seconds.
    public static let defaultAccessTokenTTL = 900
    /// Default refresh token lifetime in seconds.
    public static let defaultRefreshTokenTTL = 2_592_000

    /// Random, public identifier (128 bits, base64url).
    public let clientID: String
    public let tenantID: String?
    public let clientName: String
    public let type: OAuthClientType
    /// Validated at registration with ``RedirectURI/validate(_:)``; matched with ``RedirectURI/matches(registered:requested:)``.
    public let redirectURIs: [String]
    /// Where `/oauth2/logout` may send the browser afterwards (OIDC RP-Initiated Logout 1.0), validated and
    /// matched as ``redirectURIs`` are.
    public let postLogoutRedirectURIs: [String]
    public let grantTypes: [OAuthGrantType]
    /// The scopes the client may ask for.
    public let scopes: [String]
    /// The scopes granted when a request names none; nil means the request must name them.
    public let defaultScopes: [String]?
    /// Access token lifetime in seconds.
    public let accessTokenTTL: Int
    /// Refresh token lifetime in seconds.
    public let refreshTokenTTL: Int
    /// SHA-256 of the client secret (confidential clients only).
    public let secretDigest: [UInt8]?
    public let createdAt: Date
    public let updatedAt: Date

    /// A client with every member given.
    public init(
        clientID: String, tenantID: String?, clientName: String, type: OAuthClientType, redirectURIs: [String],
        grantTypes: [OAuthGrantType] = OAuthClient.defaultGrantTypes, scopes: [String] = OAuthClient.defaultScopes,
        defaultScopes: [String]? = nil, accessTokenTTL: Int = OAuthClient.defaultAccessTokenTTL,
        refreshTokenTTL: Int = OAuthClient.defaultRefreshTokenTTL, secretDigest: [UInt8]? = nil,
        postLogoutRedirectURIs: [String] = [], createdAt: Date, updatedAt: Date
    ) {
        self.clientID = clientID
        self.tenantID = tenantID
        self.clientName = clientName
        self.type = type
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.grantTypes = grantTypes
        self.scopes = scopes
        self.defaultScopes = defaultScopes
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        self.secretDigest = secretDigest
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the two clients have the same members.
    public static func == (lhs: OAuthClient, rhs: OAuthClient) -> Bool {
        lhs === rhs
            || (lhs.clientID == rhs.clientID && lhs.tenantID == rhs.tenantID && lhs.clientName == rhs.clientName
                && lhs.type == rhs.type && lhs.redirectURIs == rhs.redirectURIs
                && lhs.postLogoutRedirectURIs == rhs.postLogoutRedirectURIs && lhs.grantTypes == rhs.grantTypes
                && lhs.scopes == rhs.scopes && lhs.defaultScopes == rhs.defaultScopes
                && lhs.accessTokenTTL == rhs.accessTokenTTL && lhs.refreshTokenTTL == rhs.refreshTokenTTL
                && lhs.secretDigest == rhs.secretDigest && lhs.createdAt == rhs.createdAt
                && lhs.updatedAt == rhs.updatedAt)
    }

    /// The registered redirect URI that `requested` matches (exactly, or a loopback URI on any port), if any.
    public func redirectURI(matching requested: String) -> String? {
        redirectURIs.first { RedirectURI.matches(registered: $0, requested: requested) }
    }

    /// The registered post-logout redirect URI that `requested` matches, as ``redirectURI(matching:)`` matches.
    public func postLogoutRedirectURI(matching requested: String) -> String? {
        postLogoutRedirectURIs.first { RedirectURI.matches(registered: $0, requested: requested) }
    }

    /// Whether the client may use `grant`.
    public func allows(_ grant: OAuthGrantType) -> Bool {
        grantTypes.contains(grant)
    }
}
