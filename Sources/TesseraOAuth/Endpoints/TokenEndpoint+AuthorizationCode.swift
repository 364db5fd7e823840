import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres

extension TokenEndpoint {
    /// The `authorization_code` grant (RFC 6749 §4.1.3, RFC 7636 §4.6) in one database round trip and one
    /// transaction: the sealed code is opened and checked in memory (its client, redirect URI, verifier and
    /// expiry), then one statement spends the code (inserts its digest: the primary key makes it single use across
    /// the fleet) and, when every check passes (the in-memory ones, the user present, enabled and of the client's
    /// tenant, the sign-in not revoked), creates the token family, with its first refresh token
    /// (``GrantRefreshToken``, kept in the family's row) when the client may refresh, and returns the user. A client
    /// without the `refresh_token` grant gets no family: its tokens name the sign-in the code was issued from
    /// (`sid`), so the grant leaves no row but the spent code's, which lives a minute.
    ///
    /// For a client the server has cached, authenticated against its cached row, the statement is
    /// ``cachedClientCodeGrants``, which takes its tenant and refresh lifetime as parameters and which this loop's
    /// ``GrantWriter`` may share with other code grants that arrive meanwhile (one transaction for them all; each
    /// commits before its answer); else it is ``redeemStatement``, which checks the client's row read in
    /// the same round trip. Either way the code is spent whatever is wrong with it, unless the client failed to
    /// authenticate or may not use the grant. A code that was already spent is a replay: the family issued from it
    /// is revoked (a second round trip, on that path only). A code that does not open (forged, altered, truncated,
    /// of an unknown key) is `invalid_grant` after the client has authenticated, and spends nothing.
    func redeemCode(_ form: OAuthForm, credentials: ClientCredentials) async throws -> HTTPResponse {
        let code = try form.required("code")
        let redirectURI = try form.required("redirect_uri")
        let challenge = try PKCE.challenge(of: try form.required("code_verifier"))
        let now = environment.clock.now()
        let clientID = credentials.clientID
        let sealed: SealedAuthorizationCode
        do {
            sealed = try SealedAuthorizationCode.open(code, keys: environment.codeKeys)
        } catch {
            try require(.authorizationCode, by: try credentials.authenticate(try await environment.client(clientID)))
            throw error
        }
        let grant = sealed.grant
        let codeDigest = try SecretDigest.of(code)
        let mismatch = Self.mismatch(
            sealed, clientID: clientID, redirectURI: redirectURI, challenge: challenge, now: now)
        let familyID = try SecureRandom.identifier()
        let cached = environment.cachedClient(clientID)
        // The token is made before the statement says whether it is kept, unless the cached client may not refresh.
        let refresh =
            cached??.allows(.refreshToken) == false
            ? nil : try GrantRefreshToken.make(familyID: familyID, keys: environment.refreshTokenKeys)
        // Both statements take these, with $6 the cached client's tenant or the digest of the secret presented.
        func parameters(_ sixth: any PostgresEncodable) -> [any PostgresEncodable] {
            [
                codeDigest, clientID, now, familyID, refresh?.digest, sixth, mismatch == nil, grant.userID, grant.scope,
                grant.authTime, grant.provider, grant.secondFactor, grant.secondFactorID, grant.signInFamilyID,
                sealed.expiresAt,
            ]
        }
        let (client, found) = try await grantRow(
            .authorizationCode, credentials: credentials, cached: cached, writers: environment.codeGrants,
            key: codeDigest, trusted: { client in parameters(client.tenantID) + [client.refreshTokenTTL] },
            checking: { PostgresQuery(Self.redeemStatement, parameters(try credentials.secretDigest())) })
        guard let row = found else {
            try await revokeReplayed(codeDigest, now: now)
            throw OAuthError(.invalidGrant, "the authorization code is invalid, expired or already used")
        }
        let spent = try SpentCode(row: row)
        guard let grantFamilyID = spent.familyID else {
            throw OAuthError(.invalidGrant, mismatch ?? spent.failure(tenantID: client.tenantID))
        }
        let subject = IssuedGrant.Subject(
            userID: grant.userID, tenantID: spent.tenantID, email: spent.email, emailVerified: spent.emailVerified,
            phoneNumber: spent.phoneNumber, displayName: spent.displayName, authTime: grant.authTime,
            amr: grant.authenticationMethods(factors: environment.factors), familyID: grantFamilyID)
        let scope = Scope(Scope.words(grant.scope))
        let issued = IssuedGrant(
            client: client, scope: scope, subject: subject, identityScope: scope, nonce: grant.nonce,
            refreshToken: spent.issuedRefreshToken ? refresh?.secret : nil)
        return try await environment.tokenResponse(issued, now: now)
    }

    /// Why the code's own content refuses this token request, checked in memory: another client, another redirect
    /// URI, a verifier that does not match, or expired; nil when none of these.
    static func mismatch(
        _ sealed: SealedAuthorizationCode, clientID: String, redirectURI: String, challenge: String, now: Date
    ) -> String? {
        if sealed.grant.clientID != clientID { return "the authorization code was issued to another client" }
        let digest = (try? Digest.sha256(redirectURI)) ?? []
        if !ConstantTime.equals(digest, sealed.redirectURIDigest) {
            return "redirect_uri differs from the authorization request's"
        }
        if !ConstantTime.equals(sealed.grant.codeChallenge, challenge) {
            return "code_verifier does not match the code_challenge"
        }
        if sealed.expiresAt <= now { return "the authorization code has expired" }
        return nil
    }

    /// A replayed code: revokes the family its first redemption created (RFC 6749 §4.1.2, "SHOULD revoke").
    private func revokeReplayed(_ codeDigest: [UInt8], now: Date) async throws {
        try await environment.database.withPool { pool in
            let spent = try await pool.query(
                "SELECT family_id FROM oauth_spent_codes WHERE code_hash = $1", [codeDigest])
            if let familyID = try spent.rows.first?.decode(String?.self, at: 0) {
                try await TokenFamilies.revoke(pool, familyID: familyID, now: now)
            }
        }
    }

    /// The columns both statements give a new family, in the order of their `SELECT`s.
    private static let familyColumns = """
        family_id, user_id, auth_time, sign_in_provider, second_factor, second_factor_id, created_at, client_id, \
        scope, refresh_token_hash, refresh_issued_at, refresh_expires_at
        """

    /// Parameters: $1 code digest, $2 client id, $3 now, $4 new family id, $5 its refresh token's digest, $6 digest
    /// of the client secret presented (NULL for none), $7 whether the code's own checks passed, and the grant the
    /// code carries: $8 user, $9 scope, $10 auth_time, $11 first factor, $12 second factor, $13 its enrolment,
    /// $14 the sign-in's family, $15 the code's expiry. The code is spent only when the client authenticates and
    /// may use the grant, the same checks the server repeats on the client's row (the secret in constant time).
    /// The spent code records the family its tokens name: the new one ($4) when the client may refresh (or the code
    /// names no sign-in), else the sign-in's; a replay revokes that family.
    /// Expired spent codes are the janitor's to delete (`oauth_spent_codes` in docs/operations.md).
    static let redeemStatement = """
        WITH client AS (
            SELECT client_id, tenant_id, refresh_token_ttl,
                ' ' || grant_types || ' ' LIKE '% refresh_token %' AS refreshes
            FROM oauth_clients
            WHERE client_id = $2
                AND CASE WHEN client_type = 'public' THEN $6::bytea IS NULL ELSE secret_hash = $6::bytea END
                AND ' ' || grant_types || ' ' LIKE '% authorization_code %'
        ), usable AS (
            SELECT 1 FROM users u, client c
            WHERE $7 AND u.user_id = $8 AND NOT u.disabled AND u.tenant_id IS NOT DISTINCT FROM c.tenant_id
                AND NOT EXISTS (SELECT 1 FROM token_families sf WHERE sf.family_id = $14 AND sf.revoked_at IS NOT NULL)
        ), spent AS (
            INSERT INTO oauth_spent_codes (code_hash, family_id, expires_at)
            SELECT $1, CASE WHEN NOT EXISTS (SELECT 1 FROM usable) THEN NULL
                    WHEN c.refreshes OR $14::text IS NULL THEN $4 ELSE $14 END, $15
            FROM client c
            ON CONFLICT (code_hash) DO NOTHING
            RETURNING family_id
        ), family AS (
            INSERT INTO token_families (\(familyColumns))
            SELECT s.family_id, $8, $10, $11, $12, $13, $3, $2, $9, CASE WHEN c.refreshes THEN $5::bytea END,
                CASE WHEN c.refreshes THEN $3 END,
                CASE WHEN c.refreshes THEN $3 + c.refresh_token_ttl * interval '1 second' END
            FROM spent s, client c WHERE s.family_id = $4
            RETURNING refresh_token_hash IS NOT NULL AS refreshes
        )
        SELECT s.family_id, u.user_id IS NOT NULL, u.tenant_id, u.email, coalesce(u.email_verified, false),
            u.phone_number, u.display_name, coalesce(u.disabled, false), EXISTS (SELECT 1 FROM family WHERE refreshes),
            EXISTS (SELECT 1 FROM token_families sf WHERE sf.family_id = $14 AND sf.revoked_at IS NOT NULL)
        FROM spent s LEFT JOIN users u ON u.user_id = $8
        """

    /// ``redeemStatement`` for up to 16 codes of clients the server has authenticated against their cached rows,
    /// which it does not read again (a ``GrantWriter`` gathers them): each grant's parameters after its ordinal are
    /// the fifteen of ``redeemStatement`` with $6 the client's tenant (not a secret's digest), $5 NULL when the
    /// client may not refresh, and a sixteenth, its refresh-token lifetime in seconds; every grant's user and
    /// sign-in are read once. Each grant's row is that of ``redeemStatement`` with the grant's ordinal after it
    /// (column 10); a grant whose code was already spent has none. The codes must differ. One statement for several
    /// grants costs the database a commit, its largest cost, for all of them (docs/benchmarks.md, "2026-11-29,
    /// 11:40 UTC"); measured with pgbench for one grant, the statement's form took about a tenth less of the
    /// database's CPU than ``redeemStatement`` (docs/benchmarks.md, "2026-11-28").
    static let cachedClientCodeGrants = BatchedGrantStatement(
        parameterTypes: [
            "bytea", "text", "timestamptz", "text", "bytea", "text", "boolean", "text", "text", "timestamptz", "text",
            "text", "text", "text", "timestamptz", "integer",
        ],
        ordinalColumn: 10, maxBatch: 16
    ) { values in
        """
        WITH grant_request (ordinal, code_hash, client_id, now, family_id, refresh_token_hash, tenant_id, code_ok,
                user_id, scope, auth_time, provider, second_factor, second_factor_id, sign_in_family, expires_at,
                refresh_ttl) AS (
            VALUES \(values)
        ), checked AS (
            SELECT r.ordinal, u.user_id IS NOT NULL AS user_exists, u.tenant_id, u.email,
                coalesce(u.email_verified, false) AS email_verified, u.phone_number, u.display_name,
                coalesce(u.disabled, false) AS disabled,
                coalesce(sign_in.revoked_at IS NOT NULL, false) AS sign_in_revoked
            FROM grant_request r
            LEFT JOIN users u ON u.user_id = r.user_id
            LEFT JOIN token_families sign_in ON sign_in.family_id = r.sign_in_family
        ), spent AS (
            INSERT INTO oauth_spent_codes (code_hash, family_id, expires_at)
            SELECT r.code_hash,
                CASE WHEN NOT (r.code_ok AND k.user_exists AND NOT k.disabled AND NOT k.sign_in_revoked
                        AND k.tenant_id IS NOT DISTINCT FROM r.tenant_id) THEN NULL
                    WHEN r.refresh_token_hash IS NOT NULL OR r.sign_in_family IS NULL THEN r.family_id
                    ELSE r.sign_in_family END,
                r.expires_at
            FROM grant_request r JOIN checked k USING (ordinal)
            ON CONFLICT (code_hash) DO NOTHING
            RETURNING code_hash, family_id
        ), family AS (
            INSERT INTO token_families (\(familyColumns))
            SELECT s.family_id, r.user_id, r.auth_time, r.provider, r.second_factor, r.second_factor_id, r.now,
                r.client_id, r.scope, r.refresh_token_hash,
                CASE WHEN r.refresh_token_hash IS NOT NULL THEN r.now END,
                CASE WHEN r.refresh_token_hash IS NOT NULL THEN r.now + r.refresh_ttl * interval '1 second' END
            FROM spent s JOIN grant_request r ON r.code_hash = s.code_hash
            WHERE s.family_id = r.family_id
        )
        SELECT s.family_id, k.user_exists, k.tenant_id, k.email, k.email_verified, k.phone_number, k.display_name,
            k.disabled, s.family_id IS NOT DISTINCT FROM r.family_id AND r.refresh_token_hash IS NOT NULL,
            k.sign_in_revoked, r.ordinal
        FROM grant_request r JOIN spent s ON s.code_hash = r.code_hash JOIN checked k USING (ordinal)
        """
    }
}

/// A row of ``TokenEndpoint/redeemStatement`` or ``TokenEndpoint/cachedClientCodeGrants``: whether the code
/// became a family, and its user.
private struct SpentCode {
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
        familyID = try row.decode(String?.self, at: 0)
        userExists = try row.decode(Bool.self, at: 1)
        tenantID = try row.decode(String?.self, at: 2)
        email = try row.decode(String?.self, at: 3)
        emailVerified = try row.decode(Bool.self, at: 4)
        phoneNumber = try row.decode(String?.self, at: 5)
        displayName = try row.decode(String?.self, at: 6)
        disabled = try row.decode(Bool.self, at: 7)
        issuedRefreshToken = try row.decode(Bool.self, at: 8)
        signInRevoked = try row.decode(Bool.self, at: 9)
    }

    /// Why the statement refused to issue tokens for a code whose own checks passed.
    func failure(tenantID: String?) -> String {
        if !userExists { return "the user no longer exists" }
        if disabled { return "the user account has been disabled" }
        if self.tenantID != tenantID { return "the user belongs to another tenant than the client" }
        if signInRevoked { return "the sign-in the code was issued from has been revoked" }
        return "the authorization code is invalid"
    }
}
