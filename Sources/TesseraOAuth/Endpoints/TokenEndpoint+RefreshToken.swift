import FoundationEssentials
import TesseraCore
import TesseraHTTP
import TesseraPostgres

extension TokenEndpoint {
    /// The `refresh_token` grant (RFC 6749 §6) in one round trip: a pipeline of the client's row (unless cached) and one statement
    /// that uses the token once, issues its replacement (valid the client's `refreshTokenTTL`) and returns the
    /// family and its user. Only families of the authenticated client are refreshed; `scope` may narrow the new
    /// access token's scope, never widen it (`invalid_scope`); the family keeps its scope.
    ///
    /// When nothing was refreshed a second statement finds out why, and revokes the family when its own client
    /// presented a token that was already used (reuse means theft, or a client racing itself).
    func refresh(_ form: OAuthForm, credentials: ClientCredentials) async throws -> HTTPResponse {
        let token = try form.required("refresh_token")
        let requested = try form["scope"].map { text throws(OAuthError) in try Scope(parsing: text) }
        let now = environment.clock.now()
        let digest = try SecretDigest.of(token)
        let replacement = try SecretDigest.make()
        let secretDigest = try credentials.secretDigest()
        let clientID = credentials.clientID
        let (found, results) = try await environment.pipeline(
            clientID: clientID,
            [
                PostgresQuery(
                    Self.refreshStatement, [digest, clientID, now, replacement.digest, requested?.text, secretDigest])
            ])
        let client = try credentials.authenticate(found)
        try require(.refreshToken, by: client)
        guard let row = results[0].rows.first else {
            throw try await refreshFailure(digest, clientID: clientID, requested: requested, now: now)
        }
        let familyID = try row.decode(String.self, at: 0)
        let familyScope = Scope(try row.decode(String.self, at: 1).split(separator: " ").map(String.init))
        let subject = IssuedGrant.Subject(
            userID: try row.decode(String.self, at: 5), tenantID: try row.decode(String?.self, at: 6),
            email: try row.decode(String?.self, at: 7), emailVerified: try row.decode(Bool.self, at: 8),
            phoneNumber: try row.decode(String?.self, at: 9), displayName: try row.decode(String?.self, at: 10),
            authTime: try row.decode(Date.self, at: 2),
            amr: AuthenticationMethods.references(
                provider: try row.decode(String.self, at: 3), secondFactor: try row.decode(String?.self, at: 4),
                factors: environment.factors),
            familyID: familyID)
        let grant = IssuedGrant(
            client: client, scope: requested ?? familyScope, subject: subject, identityScope: familyScope, nonce: nil,
            refreshToken: replacement.secret)
        return try await environment.tokenResponse(grant, now: now)
    }

    /// Why `digest` refreshed nothing, as the error to answer; revokes the family of a reused token of this client.
    private func refreshFailure(
        _ digest: [UInt8], clientID: String, requested: Scope?, now: Date
    ) async throws -> OAuthError {
        let result = try await environment.database.withPool { pool in
            try await TokenFamilies.revoke(
                pool, refreshTokenHash: digest, clientID: clientID, onlyIfUsed: true, now: now)
            return try await pool.query(
                """
                SELECT r.used_at IS NOT NULL, r.expires_at > $3, f.revoked_at IS NULL, f.scope
                FROM refresh_tokens r JOIN token_families f ON f.family_id = r.family_id
                WHERE r.token_hash = $1 AND f.client_id = $2
                """, [digest, clientID, now])
        }
        guard let row = result.rows.first else {
            return OAuthError(.invalidGrant, "the refresh token is invalid, expired or revoked")
        }
        if try row.decode(Bool.self, at: 0) {
            return OAuthError(.invalidGrant, "the refresh token was already used; the grant has been revoked")
        }
        let usable = try row.decode(Bool.self, at: 1) && row.decode(Bool.self, at: 2)
        let familyScope = Scope(try row.decode(String.self, at: 3).split(separator: " ").map(String.init))
        if usable, let requested, !requested.isSubset(of: familyScope) {
            return OAuthError(.invalidScope, "scope may only narrow the granted scope \(familyScope.text)")
        }
        return OAuthError(.invalidGrant, "the refresh token is invalid, expired or revoked")
    }

    /// Parameters: $1 token digest, $2 client id, $3 now, $4 replacement digest, $5 narrowed scope (NULL: keep),
    /// $6 digest of the client secret presented (NULL for none).
    static let refreshStatement = """
        WITH client AS (
            SELECT client_id, refresh_token_ttl FROM oauth_clients
            WHERE client_id = $2
                AND CASE WHEN client_type = 'public' THEN $6::bytea IS NULL ELSE secret_hash = $6::bytea END
                AND ' ' || grant_types || ' ' LIKE '% refresh_token %'
        ), used AS (
            UPDATE refresh_tokens r SET used_at = $3
            FROM token_families f, client c, users u
            WHERE r.token_hash = $1 AND r.used_at IS NULL AND r.expires_at > $3
                AND f.family_id = r.family_id AND f.revoked_at IS NULL AND f.client_id = c.client_id
                AND u.user_id = f.user_id AND NOT u.disabled
                AND ($5::text IS NULL OR string_to_array($5::text, ' ') <@ string_to_array(f.scope, ' '))
            RETURNING f.family_id, f.scope, f.auth_time, f.sign_in_provider, f.second_factor, u.user_id, u.tenant_id,
                u.email, u.email_verified, u.phone_number, u.display_name, c.refresh_token_ttl
        ), replacement AS (
            INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at)
            SELECT $4, family_id, $3, $3 + refresh_token_ttl * interval '1 second' FROM used
        )
        SELECT family_id, scope, auth_time, sign_in_provider, second_factor, user_id, tenant_id, email,
            email_verified, phone_number, display_name
        FROM used
        """
}
