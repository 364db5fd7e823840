public import TesseraCore

/// The settable fields of an OAuth client (API §5 `OAuthClient`), valid as a whole: a value of this type always
/// satisfies every registration rule, so the store never holds a client the endpoints would have to second-guess.
///
/// The rules (`INVALID_ARGUMENT` unless named):
/// - `clientName`: 1 to 128 characters, no control characters;
/// - `redirectURIs`: at most 20, no duplicates, each allowed by ``RedirectURI/validate(_:)``
///   (`INVALID_REDIRECT_URI`); at least one when `grantTypes` has `authorization_code`;
/// - `postLogoutRedirectURIs`: as `redirectURIs`, but none is needed;
/// - `grantTypes`: not empty, no duplicates; `client_credentials` only for confidential clients (a public client
///   cannot authenticate); `refresh_token` only with `authorization_code` (refresh tokens are only issued there);
/// - `scopes`: 1 to 50 RFC 6749 §3.3 scope tokens of at most 128 characters, no duplicates;
/// - `defaultScopes`: when given, 1 or more of `scopes`, no duplicates;
/// - `accessTokenTTL`: 60 to 86 400 seconds; `refreshTokenTTL`: 3 600 to 31 536 000 seconds (one year).
public struct OAuthClientSettings: Sendable, Equatable {
    /// The allowed lengths of `clientName`, in characters.
    public static let clientNameLengths = 1...128
    /// The most redirect URIs one client may register.
    public static let maximumRedirectURIs = 20
    /// The allowed number of `scopes`.
    public static let scopeCounts = 1...50
    /// The longest scope token, in characters.
    public static let maximumScopeLength = 128
    /// The allowed `accessTokenTTL`, in seconds.
    public static let accessTokenTTLs = 60...86_400
    /// The allowed `refreshTokenTTL`, in seconds.
    public static let refreshTokenTTLs = 3_600...31_536_000

    public let clientName: String
    public let type: OAuthClientType
    public let redirectURIs: [String]
    public let postLogoutRedirectURIs: [String]
    public let grantTypes: [OAuthGrantType]
    public let scopes: [String]
    public let defaultScopes: [String]?
    public let accessTokenTTL: Int
    public let refreshTokenTTL: Int

    /// Settings with the API defaults for what is not given; throws the first rule broken (see the type).
    public init(
        clientName: String, type: OAuthClientType, redirectURIs: [String] = [],
        grantTypes: [OAuthGrantType] = OAuthClient.defaultGrantTypes, scopes: [String] = OAuthClient.defaultScopes,
        defaultScopes: [String]? = nil, accessTokenTTL: Int = OAuthClient.defaultAccessTokenTTL,
        refreshTokenTTL: Int = OAuthClient.defaultRefreshTokenTTL, postLogoutRedirectURIs: [String] = []
    ) throws(AuthError) {
        self.clientName = clientName
        self.type = type
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.grantTypes = grantTypes
        self.scopes = scopes
        self.defaultScopes = defaultScopes
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        try checkName()
        try checkGrantTypes()
        try checkRedirectURIs()
        try checkScopes()
        try checkLifetimes()
    }

    /// The settings of a stored client.
    public init(of client: OAuthClient) throws(AuthError) {
        try self.init(
            clientName: client.clientName, type: client.type, redirectURIs: client.redirectURIs,
            grantTypes: client.grantTypes, scopes: client.scopes, defaultScopes: client.defaultScopes,
            accessTokenTTL: client.accessTokenTTL, refreshTokenTTL: client.refreshTokenTTL,
            postLogoutRedirectURIs: client.postLogoutRedirectURIs)
    }

    private func checkName() throws(AuthError) {
        guard Self.clientNameLengths.contains(clientName.count) else {
            throw AuthError(.invalidArgument, "client.clientName must have 1 to 128 characters")
        }
        guard !clientName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AuthError(.invalidArgument, "client.clientName must not contain control characters")
        }
    }

    private func checkGrantTypes() throws(AuthError) {
        guard !grantTypes.isEmpty else {
            throw AuthError(.invalidArgument, "client.grantTypes must name at least one grant type")
        }
        if let repeated = Self.firstDuplicate(grantTypes.map(\.rawValue)) {
            throw AuthError(.invalidArgument, "client.grantTypes lists \(repeated) twice")
        }
        if type == .public, grantTypes.contains(.clientCredentials) {
            throw AuthError(
                .invalidArgument,
                "client.grantTypes: client_credentials needs a confidential client; a public client has no secret "
                    + "to authenticate with")
        }
        if grantTypes.contains(.refreshToken), !grantTypes.contains(.authorizationCode) {
            throw AuthError(
                .invalidArgument,
                "client.grantTypes: refresh_token needs authorization_code (refresh tokens are only issued for codes)")
        }
    }

    private func checkRedirectURIs() throws(AuthError) {
        for (uris, name) in [(redirectURIs, "redirectUris"), (postLogoutRedirectURIs, "postLogoutRedirectUris")] {
            guard uris.count <= Self.maximumRedirectURIs else {
                throw AuthError(.invalidArgument, "client.\(name) may list at most \(Self.maximumRedirectURIs) URIs")
            }
            for uri in uris { try RedirectURI.validate(uri) }
            if let repeated = Self.firstDuplicate(uris) {
                throw AuthError(.invalidArgument, "client.\(name) lists \(repeated) twice")
            }
        }
        if grantTypes.contains(.authorizationCode), redirectURIs.isEmpty {
            throw AuthError(
                .invalidArgument, "client.redirectUris must list at least one URI for the authorization_code grant")
        }
    }

    private func checkScopes() throws(AuthError) {
        guard Self.scopeCounts.contains(scopes.count) else {
            throw AuthError(.invalidArgument, "client.scopes must list 1 to \(Self.scopeCounts.upperBound) scopes")
        }
        try Self.checkTokens(scopes, named: "client.scopes")
        guard let defaultScopes else { return }
        guard !defaultScopes.isEmpty else {
            throw AuthError(
                .invalidArgument,
                "client.defaultScopes must list at least one scope; omit it to make requests name their scopes")
        }
        try Self.checkTokens(defaultScopes, named: "client.defaultScopes")
        if let unknown = defaultScopes.first(where: { !scopes.contains($0) }) {
            throw AuthError(.invalidArgument, "client.defaultScopes: \(unknown) is not one of client.scopes")
        }
    }

    private func checkLifetimes() throws(AuthError) {
        guard Self.accessTokenTTLs.contains(accessTokenTTL) else {
            throw AuthError(.invalidArgument, "client.accessTokenTtl must be from 60 to 86400 seconds")
        }
        guard Self.refreshTokenTTLs.contains(refreshTokenTTL) else {
            throw AuthError(.invalidArgument, "client.refreshTokenTtl must be from 3600 to 31536000 seconds")
        }
    }

    private static func checkTokens(_ tokens: [String], named name: String) throws(AuthError) {
        for (index, token) in tokens.enumerated() {
            guard Scope.isToken(token), token.count <= maximumScopeLength else {
                throw AuthError(
                    .invalidArgument,
                    "\(name)[\(index)] must be a scope token of 1 to \(maximumScopeLength) printable ASCII characters "
                        + "without space, '\"' and '\\'")
            }
        }
        if let repeated = firstDuplicate(tokens) {
            throw AuthError(.invalidArgument, "\(name) lists \(repeated) twice")
        }
    }

    private static func firstDuplicate(_ values: [String]) -> String? {
        var seen: Set<String> = []
        return values.first { !seen.insert($0).inserted }
    }
}
