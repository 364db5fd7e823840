public import FoundationEssentials
public import MultiFactor

/// What an authorization code stands for: who signed in, how, for which client, redirect URI and PKCE
/// challenge. The authorize endpoint stores it behind a code; the token endpoint redeems it.
public struct AuthorizationGrant: Sendable, Equatable {
    public var clientID: String
    public var userID: String
    /// The redirect URI exactly as the authorization request sent it (loopback port included); the token
    /// request must repeat it.
    public var redirectURI: String
    /// The S256 `code_challenge` (base64url of SHA-256 of the verifier).
    public var codeChallenge: String
    /// The granted scope, space-separated.
    public var scope: String
    /// The OIDC `nonce` of the request, echoed in the ID token.
    public var nonce: String?
    /// When the user proved their first factor.
    public var authTime: Date
    /// The first factor: `password` or `phone`.
    public var provider: String
    /// The factor id of the second factor passed (`totp`, `phone`), if any.
    public var secondFactor: String?
    /// The enrolment id of that second factor.
    public var secondFactorID: String?
    /// The token family of the sign-in the code comes from (the browser session's). Revoking it
    /// (`users.revokeTokens`, a password change, an MFA withdraw) voids the code.
    public var signInFamilyID: String?

    /// A grant with every member given.
    public init(
        clientID: String, userID: String, redirectURI: String, codeChallenge: String, scope: String, nonce: String?,
        authTime: Date, provider: String, secondFactor: String?, secondFactorID: String?, signInFamilyID: String? = nil
    ) {
        self.clientID = clientID
        self.userID = userID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.scope = scope
        self.nonce = nonce
        self.authTime = authTime
        self.provider = provider
        self.secondFactor = secondFactor
        self.secondFactorID = secondFactorID
        self.signInFamilyID = signInFamilyID
    }

    /// The `amr` claim (RFC 8176) of tokens issued from this grant, with the second factor's value from `factors`.
    public func authenticationMethods(factors: FactorRegistry) -> [String] {
        AuthenticationMethods.references(provider: provider, secondFactor: secondFactor, factors: factors)
    }
}
