import TesseraCore
import TesseraHTTP
import TesseraPostgres

extension TokenEndpoint {
    /// The `client_credentials` grant (RFC 6749 §4.4): confidential clients only (`unauthorized_client` for a
    /// public one), a scope within the client's (`invalid_scope`; by default the client's `defaultScopes`, or all
    /// its scopes), an access token whose `sub` is the client, and no refresh or ID token.
    func clientCredentialsGrant(_ form: OAuthForm, credentials: ClientCredentials) async throws -> HTTPResponse {
        let requested = try form["scope"].map { text throws(OAuthError) in try Scope(parsing: text) }
        let clientID = credentials.clientID
        let client = try credentials.authenticate(
            try await environment.client(clientID))
        guard client.type == .confidential else {
            throw OAuthError(.unauthorizedClient, "client_credentials is for confidential clients only")
        }
        try require(.clientCredentials, by: client)
        let allowed = Scope(client.scopes)
        let scope = requested ?? Scope(client.defaultScopes ?? client.scopes)
        guard scope.isSubset(of: allowed) else {
            throw OAuthError(.invalidScope, "scope must be within the client's scopes \(allowed.text)")
        }
        let grant = IssuedGrant(
            client: client, scope: scope, subject: nil, identityScope: Scope([]), nonce: nil, refreshToken: nil)
        return try await environment.tokenResponse(grant, now: environment.clock.now())
    }
}
