import FoundationEssentials
import TesseraCore
public import TesseraHTTP
import TesseraJSON
import TesseraPostgres

/// `POST /oauth2/introspect` (RFC 7662), for confidential clients only (a public client, or none, gets 401
/// `invalid_client`). Who may introspect what:
/// - an access token of the introspecting client's tenant (project-level clients: of the project level), whatever
///   client it was issued to, so a resource server registered as a confidential client can check the tokens
///   apps present to it;
/// - a refresh token only of the introspecting client itself: refresh tokens never leave their client.
///
/// Everything else, and every token that is malformed, wrongly signed, expired, used, or whose grant was revoked
/// or whose user was deleted or disabled, is `{"active": false}`.
public struct IntrospectionEndpoint: Sendable {
    let environment: OAuthEnvironment

    /// The endpoint over `environment`.
    public init(environment: OAuthEnvironment) {
        self.environment = environment
    }

    /// Answers one introspection request.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            return OAuthResponse.json(try await introspect(request) ?? ["active": false])
        } catch {
            return environment.failure(error, endpoint: "introspection endpoint").response
        }
    }

    private func introspect(_ request: HTTPRequest) async throws -> JSONObject? {
        let form = try OAuthForm(request)
        let credentials = try ClientCredentials(request, form: form)
        let token = try form.required("token")
        let clientID = credentials.clientID
        let client = try credentials.authenticate(
            try await environment.client(clientID))
        guard client.type == .confidential else {
            throw OAuthError(.invalidClient, "only confidential clients may introspect tokens")
        }
        if let parsed = GrantRefreshToken.parse(token) {
            return try await refreshToken(token, of: parsed.familyID, for: client)
        }
        return token.contains(".")
            ? try await accessToken(token, for: client) : try await refreshToken(token, for: client)
    }

    private func accessToken(_ token: String, for client: OAuthClient) async throws -> JSONObject? {
        guard let claims = await environment.verifiedAccessToken(token), claims.tenant == client.tenantID else {
            return nil
        }
        // Revoked by jti (any grant), or through its sign-in, its user or its client: on every server at once. The
        // family is the grant's own (deleted with its client) or, for a client without refresh tokens, the sign-in's.
        // The client is looked up either way: a server whose cache still held a client deleted a moment before may
        // have made a family for it after its families were deleted (docs/operations.md, the staleness bound).
        let result = try await environment.database.withPool { pool in
            if let familyID = claims.sid {
                try await pool.query(
                    """
                    SELECT 1 FROM token_families f JOIN users u ON u.user_id = f.user_id
                    WHERE f.family_id = $1 AND f.user_id = $3 AND f.revoked_at IS NULL
                        AND (f.client_id = $2 OR f.client_id IS NULL)
                        AND EXISTS (SELECT 1 FROM oauth_clients WHERE client_id = $2)
                        AND NOT u.disabled AND NOT EXISTS (SELECT 1 FROM oauth_revoked_access_tokens WHERE jti = $4)
                    """, [familyID, claims.clientID, claims.sub, claims.jti])
            } else {
                try await pool.query(
                    """
                    SELECT 1 FROM oauth_clients WHERE client_id = $1
                        AND NOT EXISTS (SELECT 1 FROM oauth_revoked_access_tokens WHERE jti = $2)
                    """, [claims.clientID, claims.jti])
            }
        }
        guard result.rowCount == 1 else { return nil }
        var answer: JSONObject = [
            "active": true, "token_type": "access_token", "scope": .string(claims.scope),
            "client_id": .string(claims.clientID), "sub": .string(claims.sub), "aud": .string(claims.aud),
            "iss": .string(claims.iss), "iat": .integer(claims.iat), "exp": .integer(claims.exp),
            "jti": .string(claims.jti),
        ]
        if let authTime = claims.authTime { answer["auth_time"] = .integer(authTime) }
        if let amr = claims.amr { answer["amr"] = .array(amr.map(JSONValue.string)) }
        if let tenant = claims.tenant { answer["tenant"] = .string(tenant) }
        return answer
    }

    /// A refresh token of ``GrantRefreshToken``'s form: active while it is its family's current one.
    private func refreshToken(_ token: String, of familyID: String, for client: OAuthClient) async throws -> JSONObject?
    {
        let digest = try SecretDigest.of(token)
        let now = environment.clock.now()
        let result = try await environment.database.withPool { pool in
            try await pool.query(
                """
                SELECT f.refresh_issued_at, f.refresh_expires_at, f.scope, f.user_id, f.auth_time,
                    f.sign_in_provider, f.second_factor, u.tenant_id
                FROM token_families f JOIN users u ON u.user_id = f.user_id
                WHERE f.family_id = $4 AND f.refresh_token_hash = $1 AND f.refresh_expires_at > $2
                    AND f.client_id = $3 AND f.revoked_at IS NULL AND NOT u.disabled
                """, [digest, now, client.clientID, familyID])
        }
        return try result.rows.first.map { try refreshTokenAnswer($0, for: client) }
    }

    /// A refresh token of before ``GrantRefreshToken``, a row of `refresh_tokens`.
    private func refreshToken(_ token: String, for client: OAuthClient) async throws -> JSONObject? {
        let digest = try SecretDigest.of(token)
        let now = environment.clock.now()
        let clientID = client.clientID
        let result = try await environment.database.withPool { pool in
            try await pool.query(
                """
                SELECT r.issued_at, r.expires_at, f.scope, f.user_id, f.auth_time, f.sign_in_provider, f.second_factor,
                    u.tenant_id
                FROM refresh_tokens r JOIN token_families f ON f.family_id = r.family_id
                    JOIN users u ON u.user_id = f.user_id
                WHERE r.token_hash = $1 AND r.used_at IS NULL AND r.expires_at > $2 AND f.client_id = $3
                    AND f.revoked_at IS NULL AND NOT u.disabled
                """, [digest, now, clientID])
        }
        return try result.rows.first.map { try refreshTokenAnswer($0, for: client) }
    }

    /// The answer for a refresh token of `client` whose row holds its issue time, expiry, scope, user, auth_time,
    /// first and second factor and tenant.
    private func refreshTokenAnswer(_ row: PostgresRow, for client: OAuthClient) throws -> JSONObject {
        let clientID = client.clientID
        let tenant = try row.decode(String?.self, at: 7)
        let amr = AuthenticationMethods.references(
            provider: try row.decode(String.self, at: 5), secondFactor: try row.decode(String?.self, at: 6),
            factors: environment.factors)
        var answer: JSONObject = [
            "active": true, "token_type": "refresh_token", "scope": .string(try row.decode(String.self, at: 2)),
            "client_id": .string(clientID), "sub": .string(try row.decode(String.self, at: 3)),
            "aud": .string(clientID), "iss": .string(environment.issuer),
            "iat": .integer(Int64(try row.decode(Date.self, at: 0).timeIntervalSince1970)),
            "exp": .integer(Int64(try row.decode(Date.self, at: 1).timeIntervalSince1970)),
            "auth_time": .integer(Int64(try row.decode(Date.self, at: 4).timeIntervalSince1970)),
            "amr": .array(amr.map(JSONValue.string)),
        ]
        if let tenant { answer["tenant"] = .string(tenant) }
        return answer
    }
}
