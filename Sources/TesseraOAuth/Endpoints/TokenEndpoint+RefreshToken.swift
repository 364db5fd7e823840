import FoundationEssentials
import TesseraCore
import TesseraHTTP
import TesseraPostgres

extension TokenEndpoint {
    /// The `refresh_token` grant (RFC 6749 §6) in one round trip: one statement that replaces the family's current
    /// refresh token by a new one (valid the client's `refreshTokenTTL`) in the family's row, and returns the family
    /// and its user. A client the server has cached is authenticated against its cached row first and the statement
    /// is one `UPDATE` (``cachedClientRefreshGrants``), which this loop's ``GrantWriter`` may share with other refresh
    /// grants that arrive meanwhile (one transaction for them all; each commits before its answer); otherwise the
    /// client's row is read in the same pipeline and the statement checks it (``refreshStatement``). Only families
    /// of the authenticated client are refreshed; `scope` may narrow the new access token's scope, never widen it
    /// (`invalid_scope`); the family keeps its scope.
    /// A token of before ``GrantRefreshToken`` (a row of `refresh_tokens`) takes a round trip more to find its family,
    /// and is spent in its row, by ``refreshStatement``, as the family moves to the new form.
    ///
    /// When nothing was refreshed a second round trip finds out why, and revokes the family when its own client
    /// presented a token issued for it that was already replaced (reuse means theft, or a client racing itself).
    func refresh(_ form: OAuthForm, credentials: ClientCredentials) async throws -> HTTPResponse {
        let token = try form.required("refresh_token")
        let requested = try form["scope"].map { text throws(OAuthError) in try Scope(parsing: text) }
        let now = environment.clock.now()
        let digest = try SecretDigest.of(token)
        let clientID = credentials.clientID
        let parsed = GrantRefreshToken.parse(token)
        let familyID: String
        if let parsed {
            familyID = parsed.familyID
        } else if let legacyFamilyID = try await legacyFamily(digest) {
            familyID = legacyFamilyID
        } else {
            try require(.refreshToken, by: try credentials.authenticate(try await environment.client(clientID)))
            throw OAuthError(.invalidGrant, "the refresh token is invalid, expired or revoked")
        }
        let replacement = try GrantRefreshToken.make(familyID: familyID, keys: environment.refreshTokenKeys)
        let (client, found) = try await grantRow(
            .refreshToken, credentials: credentials, cached: parsed == nil ? nil : environment.cachedClient(clientID),
            writers: environment.refreshGrants, key: Array(familyID.utf8),
            trusted: { client in
                [digest, clientID, now, replacement.digest, requested?.text, client.refreshTokenTTL, familyID]
            },
            checking: {
                PostgresQuery(
                    Self.refreshStatement,
                    [
                        digest, clientID, now, replacement.digest, requested?.text, try credentials.secretDigest(),
                        familyID, parsed == nil,
                    ])
            })
        guard let row = found else {
            throw try await refreshFailure(
                digest, parsed: parsed, clientID: clientID, requested: requested, now: now)
        }
        let familyScope = Scope(try row.decode(String.self, at: 0).split(separator: " ").map(String.init))
        let subject = IssuedGrant.Subject(
            userID: try row.decode(String.self, at: 4), tenantID: try row.decode(String?.self, at: 5),
            email: try row.decode(String?.self, at: 6), emailVerified: try row.decode(Bool.self, at: 7),
            phoneNumber: try row.decode(String?.self, at: 8), displayName: try row.decode(String?.self, at: 9),
            authTime: try row.decode(Date.self, at: 1),
            amr: AuthenticationMethods.references(
                provider: try row.decode(String.self, at: 2), secondFactor: try row.decode(String?.self, at: 3),
                factors: environment.factors),
            familyID: familyID)
        let grant = IssuedGrant(
            client: client, scope: requested ?? familyScope, subject: subject, identityScope: familyScope, nonce: nil,
            refreshToken: replacement.secret)
        return try await environment.tokenResponse(grant, now: now)
    }

    /// The family of the token of before ``GrantRefreshToken`` that hashes to `digest`, used or not; nil when none.
    private func legacyFamily(_ digest: [UInt8]) async throws -> String? {
        let result = try await environment.database.withPool { pool in
            try await pool.query("SELECT family_id FROM refresh_tokens WHERE token_hash = $1", [digest])
        }
        return try result.rows.first?.decode(String.self, at: 0)
    }

    /// Why the token that hashes to `digest` refreshed nothing, as the error to answer; revokes the family of a reused
    /// token of this client.
    private func refreshFailure(
        _ digest: [UInt8], parsed: GrantRefreshToken?, clientID: String, requested: Scope?, now: Date
    ) async throws -> OAuthError {
        // One row: whether the token was replaced (a reuse), whether the family could still refresh, its scope.
        let result = try await environment.database.withPool { pool in
            guard let parsed else {
                try await TokenFamilies.revoke(
                    pool, refreshTokenHash: digest, clientID: clientID, onlyIfUsed: true, now: now)
                return try await pool.query(
                    """
                    SELECT r.used_at IS NOT NULL, r.expires_at > $3 AND f.revoked_at IS NULL, f.scope
                    FROM refresh_tokens r JOIN token_families f ON f.family_id = r.family_id
                    WHERE r.token_hash = $1 AND f.client_id = $2
                    """, [digest, clientID, now])
            }
            let issuedForFamily = parsed.opens(with: environment.refreshTokenKeys)
            if issuedForFamily {
                try await TokenFamilies.revokeOnReuse(
                    pool, grant: parsed.familyID, clientID: clientID, refreshTokenHash: digest, now: now)
            }
            return try await pool.query(
                """
                SELECT $5 AND refresh_token_hash IS DISTINCT FROM $1, refresh_expires_at > $3 AND revoked_at IS NULL,
                    scope
                FROM token_families WHERE family_id = $4 AND client_id = $2
                    AND ($5 OR refresh_token_hash = $1)
                """, [digest, clientID, now, parsed.familyID, issuedForFamily])
        }
        guard let row = result.rows.first else {
            return OAuthError(.invalidGrant, "the refresh token is invalid, expired or revoked")
        }
        if try row.decode(Bool.self, at: 0) {
            return OAuthError(.invalidGrant, "the refresh token was already used; the grant has been revoked")
        }
        let familyScope = Scope(try row.decode(String.self, at: 2).split(separator: " ").map(String.init))
        if try row.decode(Bool.self, at: 1), let requested, !requested.isSubset(of: familyScope) {
            return OAuthError(.invalidScope, "scope may only narrow the granted scope \(familyScope.text)")
        }
        return OAuthError(.invalidGrant, "the refresh token is invalid, expired or revoked")
    }

    /// Parameters: $1 token digest, $2 client id, $3 now, $4 replacement digest, $5 narrowed scope (NULL: keep),
    /// $6 digest of the client secret presented (NULL for none), $7 the family, $8 whether the token is of before
    /// ``GrantRefreshToken`` (then valid while its `refresh_tokens` row is unused and unexpired and the family has no
    /// token of the new form; the row is locked, so a server of the previous version cannot spend it at the same
    /// time, and spent here).
    static let refreshStatement = """
        WITH client AS (
            SELECT client_id, refresh_token_ttl FROM oauth_clients
            WHERE client_id = $2
                AND CASE WHEN client_type = 'public' THEN $6::bytea IS NULL ELSE secret_hash = $6::bytea END
                AND ' ' || grant_types || ' ' LIKE '% refresh_token %'
        ), legacy AS (
            SELECT token_hash FROM refresh_tokens
            WHERE $8 AND token_hash = $1 AND family_id = $7 AND used_at IS NULL AND expires_at > $3
            FOR UPDATE
        ), used AS (
            UPDATE token_families f SET refresh_token_hash = $4, refresh_issued_at = $3,
                refresh_expires_at = $3 + c.refresh_token_ttl * interval '1 second'
            FROM client c, users u
            WHERE f.family_id = $7 AND f.revoked_at IS NULL AND f.client_id = c.client_id
                AND CASE WHEN $8 THEN f.refresh_token_hash IS NULL AND EXISTS (SELECT 1 FROM legacy)
                    ELSE f.refresh_token_hash = $1 AND f.refresh_expires_at > $3 END
                AND u.user_id = f.user_id AND NOT u.disabled
                AND ($5::text IS NULL OR string_to_array($5::text, ' ') <@ string_to_array(f.scope, ' '))
            RETURNING f.scope, f.auth_time, f.sign_in_provider, f.second_factor, u.user_id, u.tenant_id,
                u.email, u.email_verified, u.phone_number, u.display_name
        ), spent_legacy AS (
            UPDATE refresh_tokens SET used_at = $3 WHERE $8 AND token_hash = $1 AND EXISTS (SELECT 1 FROM used)
        )
        SELECT * FROM used
        """

    /// ``refreshStatement`` for up to 16 tokens of ``GrantRefreshToken``'s form, each of a client the server has
    /// authenticated against its cached row, which it does not read again (a ``GrantWriter`` gathers them): one
    /// `UPDATE` of the families' rows over a `VALUES` row of each grant's parameters. A grant's parameters after its
    /// ordinal are the first seven of ``refreshStatement``, with $6 the client's refresh-token lifetime in seconds
    /// (not a secret's digest). Each grant refreshed has the row of ``refreshStatement`` with its ordinal after it
    /// (column 10). The families must differ (an `UPDATE` changes a row once, whichever of two grants of it
    /// joined). Measured with pgbench on the durable benchmark cluster, its form for one grant takes about a sixth less
    /// of the database's CPU than ``refreshStatement`` (docs/benchmarks.md, "2026-11-28"); several grants share a
    /// commit, the database's largest cost a grant.
    static let cachedClientRefreshGrants = BatchedGrantStatement(
        parameterTypes: ["bytea", "text", "timestamptz", "bytea", "text", "integer", "text"], ordinalColumn: 10,
        maxBatch: 16
    ) { values in
        """
        UPDATE token_families f SET refresh_token_hash = r.replacement_hash, refresh_issued_at = r.now,
            refresh_expires_at = r.now + r.refresh_ttl * interval '1 second'
        FROM (VALUES \(values))
                AS r (ordinal, token_hash, client_id, now, replacement_hash, scope, refresh_ttl, family_id),
            users u
        WHERE f.family_id = r.family_id AND f.client_id = r.client_id AND f.revoked_at IS NULL
            AND f.refresh_token_hash = r.token_hash AND f.refresh_expires_at > r.now
            AND u.user_id = f.user_id AND NOT u.disabled
            AND (r.scope IS NULL OR string_to_array(r.scope, ' ') <@ string_to_array(f.scope, ' '))
        RETURNING f.scope, f.auth_time, f.sign_in_provider, f.second_factor, u.user_id, u.tenant_id, u.email,
            u.email_verified, u.phone_number, u.display_name, r.ordinal
        """
    }
}
