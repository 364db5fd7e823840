import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres

extension TokenEndpoint {
    /// The `authorization_code` grant (RFC 6749 §4.1.3, RFC 7636 §4.6) in one database round trip: a pipeline of
    /// the client's row and one statement that spends the code, and, when every check passes, creates the token
    /// family and its first refresh token and returns the user.
    ///
    /// The code is spent whatever is wrong with it (another client, redirect URI or verifier, expired, user gone
    /// or disabled, its sign-in revoked), unless the client failed to authenticate or may not use the grant. A code
    /// that was already spent is a replay: the family issued from it is revoked (a second round trip, on that path
    /// only).
    func redeemCode(_ form: OAuthForm, credentials: ClientCredentials) async throws -> HTTPResponse {
        let code = try form.required("code")
        let redirectURI = try form.required("redirect_uri")
        let challenge = try PKCE.challenge(of: try form.required("code_verifier"))
        let now = environment.clock.now()
        let codeDigest = try SecretDigest.of(code)
        let familyID = try SecureRandom.identifier()
        let refresh = try SecretDigest.make()
        let secretDigest = try credentials.secretDigest()
        let clientID = credentials.clientID
        let results = try await environment.database.withPool { pool in
            try await pool.pipeline([
                OAuthClients.find(clientID: clientID),
                PostgresQuery(
                    Self.redeemStatement,
                    [codeDigest, clientID, redirectURI, challenge, now, familyID, refresh.digest, secretDigest]),
            ])
        }
        let client = try credentials.authenticate(try results[0].rows.first.map(OAuthClients.client(row:)))
        try require(.authorizationCode, by: client)
        guard let row = results[1].rows.first else {
            try await revokeReplayed(codeDigest, now: now)
            throw OAuthError(.invalidGrant, "the authorization code is invalid, expired or already used")
        }
        let spent = try SpentCode(row: row)
        guard spent.familyID != nil else { throw OAuthError(.invalidGrant, spent.failure(
            clientID: clientID, redirectURI: redirectURI, challenge: challenge, tenantID: client.tenantID, now: now)) }
        let subject = IssuedGrant.Subject(
            userID: spent.userID, tenantID: spent.tenantID, email: spent.email, emailVerified: spent.emailVerified,
            phoneNumber: spent.phoneNumber, displayName: spent.displayName, authTime: spent.authTime,
            amr: AuthenticationMethods.references(
                provider: spent.provider, secondFactor: spent.secondFactor, factors: environment.factors),
            familyID: familyID)
        let scope = Scope(Scope.words(spent.scope))
        let grant = IssuedGrant(
            client: client, scope: scope, subject: subject, identityScope: scope, nonce: spent.nonce,
            refreshToken: spent.issuedRefreshToken ? refresh.secret : nil)
        return try await environment.tokenResponse(grant, now: now)
    }

    /// A replayed code: revokes the family its first redemption created (RFC 6749 §4.1.2, "SHOULD revoke").
    private func revokeReplayed(_ codeDigest: [UInt8], now: Date) async throws {
        _ = try await environment.database.withPool { pool in
            try await pool.query(
                """
                UPDATE token_families SET revoked_at = $2
                WHERE revoked_at IS NULL AND family_id =
                    (SELECT family_id FROM oauth_codes WHERE code_hash = $1 AND used_at IS NOT NULL)
                """, [codeDigest, now])
        }
    }

    /// Parameters: $1 code digest, $2 client id, $3 redirect URI, $4 PKCE challenge of the verifier, $5 now,
    /// $6 new family id, $7 new refresh token digest, $8 digest of the client secret presented (NULL for none).
    /// The code is touched only when the client authenticates and may use the grant, the same checks the server
    /// repeats on the client's row (the secret in constant time).
    static let redeemStatement = """
        WITH client AS (
            SELECT client_id, tenant_id, grant_types, refresh_token_ttl FROM oauth_clients
            WHERE client_id = $2
                AND CASE WHEN client_type = 'public' THEN $8::bytea IS NULL ELSE secret_hash = $8::bytea END
                AND ' ' || grant_types || ' ' LIKE '% authorization_code %'
        ), spent AS (
            UPDATE oauth_codes o SET used_at = $5, family_id = CASE
                WHEN o.client_id = c.client_id AND o.redirect_uri = $3 AND o.code_challenge = $4
                    AND o.expires_at > $5
                    AND EXISTS (SELECT 1 FROM users u WHERE u.user_id = o.user_id AND NOT u.disabled
                        AND u.tenant_id IS NOT DISTINCT FROM c.tenant_id)
                    AND NOT EXISTS (SELECT 1 FROM token_families sf
                        WHERE sf.family_id = o.sign_in_family_id AND sf.revoked_at IS NOT NULL)
                THEN $6 END
            FROM client c
            WHERE o.code_hash = $1 AND o.used_at IS NULL
            RETURNING o.client_id, o.redirect_uri, o.code_challenge, o.expires_at, o.user_id, o.scope, o.nonce,
                o.auth_time, o.sign_in_provider, o.second_factor, o.second_factor_id, o.family_id, o.sign_in_family_id
        ), family AS (
            INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, second_factor,
                second_factor_id, created_at, client_id, scope)
            SELECT family_id, user_id, auth_time, sign_in_provider, second_factor, second_factor_id, $5, client_id,
                scope
            FROM spent WHERE family_id IS NOT NULL
            RETURNING family_id
        ), refresh AS (
            INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at)
            SELECT $7, f.family_id, $5, $5 + c.refresh_token_ttl * interval '1 second'
            FROM family f, client c WHERE ' ' || c.grant_types || ' ' LIKE '% refresh_token %'
            RETURNING family_id
        )
        SELECT s.client_id, s.redirect_uri, s.code_challenge, s.expires_at, s.user_id, s.scope, s.nonce,
            s.auth_time, s.sign_in_provider, s.second_factor, s.family_id, u.user_id IS NOT NULL, u.tenant_id,
            u.email, coalesce(u.email_verified, false), u.phone_number, u.display_name, coalesce(u.disabled, false),
            EXISTS (SELECT 1 FROM refresh),
            EXISTS (SELECT 1 FROM token_families sf
                WHERE sf.family_id = s.sign_in_family_id AND sf.revoked_at IS NOT NULL)
        FROM spent s LEFT JOIN users u ON u.user_id = s.user_id
        """
}

/// A row of ``TokenEndpoint/redeemStatement``: the code as it was stored, whether it became a family, and its
/// user.
private struct SpentCode {
    let clientID: String
    let redirectURI: String
    let challenge: String
    let expiresAt: Date
    let userID: String
    let scope: String
    let nonce: String?
    let authTime: Date
    let provider: String
    let secondFactor: String?
    let familyID: String?
    let userExists: Bool
    let tenantID: String?
    let email: String?
    let emailVerified: Bool
    let phoneNumber: String?
    let displayName: String?
    let disabled: Bool
    let issuedRefreshToken: Bool
    let signInRevoked: Bool

    init(row: PostgresRow) throws {
        clientID = try row.decode(String.self, at: 0)
        redirectURI = try row.decode(String.self, at: 1)
        challenge = try row.decode(String.self, at: 2)
        expiresAt = try row.decode(Date.self, at: 3)
        userID = try row.decode(String.self, at: 4)
        scope = try row.decode(String.self, at: 5)
        nonce = try row.decode(String?.self, at: 6)
        authTime = try row.decode(Date.self, at: 7)
        provider = try row.decode(String.self, at: 8)
        secondFactor = try row.decode(String?.self, at: 9)
        familyID = try row.decode(String?.self, at: 10)
        userExists = try row.decode(Bool.self, at: 11)
        tenantID = try row.decode(String?.self, at: 12)
        email = try row.decode(String?.self, at: 13)
        emailVerified = try row.decode(Bool.self, at: 14)
        phoneNumber = try row.decode(String?.self, at: 15)
        displayName = try row.decode(String?.self, at: 16)
        disabled = try row.decode(Bool.self, at: 17)
        issuedRefreshToken = try row.decode(Bool.self, at: 18)
        signInRevoked = try row.decode(Bool.self, at: 19)
    }

    /// Why the statement refused to issue tokens for this code.
    func failure(clientID: String, redirectURI: String, challenge: String, tenantID: String?, now: Date) -> String {
        if self.clientID != clientID { return "the authorization code was issued to another client" }
        if self.redirectURI != redirectURI { return "redirect_uri differs from the authorization request's" }
        if self.challenge != challenge { return "code_verifier does not match the code_challenge" }
        if expiresAt <= now { return "the authorization code has expired" }
        if !userExists { return "the user no longer exists" }
        if disabled { return "the user account has been disabled" }
        if self.tenantID != tenantID { return "the user belongs to another tenant than the client" }
        if signInRevoked { return "the sign-in the code was issued from has been revoked" }
        return "the authorization code is invalid"
    }
}
