import FoundationEssentials
import TesseraCore
public import TesseraHTTP
import TesseraPostgres

/// `POST /oauth2/revoke` (RFC 7009): a client revokes a refresh or access token it was issued, which revokes the
/// whole grant (token family) behind it: its refresh tokens stop working at once and its access tokens introspect
/// as inactive. The client authenticates as at the token endpoint (a public client names itself with
/// `client_id`). Tokens that are unknown, expired, of another client, or `client_credentials` access tokens
/// (which have no grant and simply expire) are answered 200 like the rest, and nothing happens.
public struct RevocationEndpoint: Sendable {
    let environment: OAuthEnvironment

    /// The endpoint over `environment`.
    public init(environment: OAuthEnvironment) {
        self.environment = environment
    }

    /// Answers one revocation request: 200 with an empty body, or an RFC 6749 §5.2 error.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            try await revoke(request)
            var response = HTTPResponse(status: .ok)
            response.headers.add(name: "Cache-Control", value: "no-store")
            response.headers.add(name: "Pragma", value: "no-cache")
            return response
        } catch {
            return environment.failure(error, endpoint: "revocation endpoint").response
        }
    }

    private func revoke(_ request: HTTPRequest) async throws {
        let form = try OAuthForm(request)
        let credentials = try ClientCredentials(request, form: form)
        let token = try form.required("token")
        let clientID = credentials.clientID
        _ = try credentials.authenticate(
            try await environment.client(clientID))
        let now = environment.clock.now()
        if let parsed = GrantRefreshToken.parse(token) {
            let digest = try SecretDigest.of(token)
            try await environment.database.withPool { pool in
                try await TokenFamilies.revoke(
                    pool, grant: parsed.familyID, clientID: clientID, refreshTokenHash: digest,
                    issuedForFamily: parsed.opens(with: environment.refreshTokenKeys), now: now)
            }
        } else if token.contains(".") {
            guard let claims = await environment.verifiedAccessToken(token), claims.clientID == clientID else { return }
            // The token itself goes on the denylist whatever its grant (client_credentials tokens have no family);
            // a token of a sign-in also revokes its family, and so every token it issued.
            let expiresAt = Date(timeIntervalSince1970: TimeInterval(claims.exp))
            var queries = [
                PostgresQuery(
                    "INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    [claims.jti, expiresAt])
            ]
            if let familyID = claims.sid {
                queries.append(TokenFamilies.revokeGrant(familyID: familyID, clientID: clientID, now: now))
            }
            let revocation = queries
            _ = try await environment.database.withPool { pool in try await pool.pipeline(revocation) }
        } else {
            let digest = try SecretDigest.of(token)
            _ = try await environment.database.withPool { pool in
                try await TokenFamilies.revoke(
                    pool, refreshTokenHash: digest, clientID: clientID, onlyIfUsed: false, now: now)
            }
        }
    }
}
