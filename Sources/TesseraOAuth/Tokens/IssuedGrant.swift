import FoundationEssentials

/// What the token endpoint is about to answer with, once a grant checked out: for whom, to which client, with
/// which scope, and, for a user, how they authenticated and what their ID token may say.
struct IssuedGrant: Sendable {
    /// The user a grant of a user stands for.
    struct Subject: Sendable {
        var userID: String
        var tenantID: String?
        var email: String?
        var emailVerified: Bool
        var phoneNumber: String?
        var displayName: String?
        var authTime: Date
        var amr: [String]
        /// The token family (grant) id, the access token's `sid`.
        var familyID: String
    }

    var client: OAuthClient
    /// The scope of the access token.
    var scope: Scope
    /// nil for `client_credentials`.
    var subject: Subject?
    /// The scope that decides whether an ID token is issued and what it says: the family's.
    var identityScope: Scope
    /// The authorization request's nonce (authorization_code only).
    var nonce: String?
    /// The new refresh token, when one was issued.
    var refreshToken: String?
}
