public import FoundationEssentials
import TesseraCrypto
public import TesseraPostgres

/// Issues and checks the tokens of the JSON-RPC API (API §3): ES256 ID tokens, and opaque refresh tokens that
/// are stored hashed, used once, and rotate within their sign-in (`token_families`).
///
/// Revocation works on whole seconds: revoking sets the user's `tokens_valid_after` to the current second, and an
/// ID token is good only when its `iat` is after it. A token issued in that same second after the revocation
/// would then be refused, so issuance dates `iat` one second after `tokens_valid_after` when needed.
public final class Tokens: Sendable {
    /// ID token lifetime (API §9).
    public static let idTokenLifetime: Int64 = 3600
    /// How long a refresh token is good for after it is issued; each rotation starts a new one.
    public static let refreshTokenLifetime: TimeInterval = 30 * 86_400
    /// The `aud` of every ID token.
    public static let audience = "tessera"

    /// `iss` of every token.
    public let issuer: String
    let signingKeys: SigningKeys
    let clock: any WallClock

    /// Tokens issued as `issuer`, signed with `keys`.
    public init(issuer: String, keys: SigningKeys, clock: any WallClock) {
        self.issuer = issuer
        self.signingKeys = keys
        self.clock = clock
    }

    /// Starts a new token family for `session` and returns its first ID and refresh token (one round trip).
    /// `leading` runs first in the same pipeline, one implicit transaction with the family: all take effect or
    /// none (the user a sign-up creates).
    public func issue(
        _ pool: PostgresPool, session: SignInSession, user: UserRecord, leading: [PostgresQuery] = []
    ) async throws -> TokenResult {
        let now = clock.now()
        let familyID = try SecureRandom.identifier()
        let refresh = try SecretDigest.make()
        _ = try await pool.pipeline(
            leading + [
                TokenFamilies.create(
                    TokenFamilies.NewFamily(
                        familyID: familyID, userID: user.userID, authTime: session.authTime, provider: session.provider,
                        secondFactor: session.secondFactor, secondFactorID: session.secondFactorID,
                        mfaEnrollmentRequired: session.mfaEnrollmentRequired, createdAt: now)),
                insertRefreshToken(digest: refresh.digest, familyID: familyID, now: now),
            ])
        return try await result(
            for: user, session: session, familyID: familyID, refreshToken: refresh.secret, now: now)
    }

    /// Uses `refreshToken` once: returns new tokens of the same sign-in. A token that was already used revokes
    /// its whole family (reuse means it was stolen, or a client raced itself) and fails like an unknown one:
    /// `INVALID_REFRESH_TOKEN`. So do expired and revoked tokens, tokens of deleted users, and refresh tokens of
    /// OAuth clients, which only the token endpoint redeems.
    public func refresh(_ pool: PostgresPool, refreshToken: String, tenantID: String?) async throws -> TokenResult {
        let now = clock.now()
        let digest = try SecretDigest.of(refreshToken)
        let used = try await pool.query(
            """
            UPDATE refresh_tokens r SET used_at = $2 FROM token_families f
            WHERE r.token_hash = $1 AND r.used_at IS NULL AND r.expires_at > $2
                AND f.family_id = r.family_id AND f.revoked_at IS NULL AND f.client_id IS NULL
            RETURNING f.family_id, f.user_id, f.auth_time, f.sign_in_provider, f.second_factor, f.second_factor_id,
                f.mfa_enrollment_required
            """, [digest, now])
        guard let row = used.rows.first else {
            try await TokenFamilies.revoke(
                pool, refreshTokenHash: digest, clientID: nil, onlyIfUsed: true, now: now)
            throw AuthError(.invalidRefreshToken, "The refresh token is invalid, expired or revoked.")
        }
        let familyID = try row.decode(String.self, at: 0)
        let userID = try row.decode(String.self, at: 1)
        let replacement = try SecretDigest.make()
        let results = try await pool.pipeline([
            insertRefreshToken(digest: replacement.digest, familyID: familyID, now: now),
            PostgresQuery("SELECT \(UserRecord.columns) FROM users WHERE user_id = $1", [userID]),
        ])
        guard let userRow = results[1].rows.first else {
            throw AuthError(.invalidRefreshToken, "The refresh token is invalid, expired or revoked.")
        }
        let user = try UserRecord(row: userRow)
        guard user.tenantID == tenantID else {
            throw AuthError(.tenantIDMismatch, "The refresh token belongs to another tenant.")
        }
        guard !user.disabled else { throw AuthError(.userDisabled, "The user account has been disabled.") }
        let session = SignInSession(
            userID: userID, tenantID: user.tenantID, authTime: try row.decode(Date.self, at: 2),
            provider: try row.decode(String.self, at: 3), secondFactor: try row.decode(String?.self, at: 4),
            secondFactorID: try row.decode(String?.self, at: 5),
            mfaEnrollmentRequired: try row.decode(Bool.self, at: 6))
        return try await result(
            for: user, session: session, familyID: familyID, refreshToken: replacement.secret, now: now)
    }

    /// Checks an ID token and the state of its user: signature, issuer, audience, lifetime, tenant
    /// (`TENANT_ID_MISMATCH`), and that the user still exists (`USER_NOT_FOUND`), is enabled (`USER_DISABLED`)
    /// and has not had their tokens revoked since, nor its sign-in (`sid`) ended (`TOKEN_EXPIRED`).
    ///
    /// A token that carries `mfa_enrollment_required` (API §4 rule 5) is `MFA_ENROLLMENT_REQUIRED` unless
    /// `acceptingEnrollmentRequired`: only the methods that lead to an enrolment accept it.
    public func verify(
        _ pool: PostgresPool, idToken: String, tenantID: String?, acceptingEnrollmentRequired: Bool = false
    ) async throws -> (claims: IDTokenClaims, user: UserRecord) {
        let claims = try await verifiedClaims(idToken)
        guard claims.tenant == tenantID else {
            throw AuthError(.tenantIDMismatch, "The ID token belongs to another tenant.")
        }
        guard acceptingEnrollmentRequired || claims.mfaEnrollmentRequired != true else {
            throw AuthError(.mfaEnrollmentRequired, "Enrol a second factor first; this token allows nothing else.")
        }
        let found = try await pool.query(
            """
            SELECT \(UserRecord.columns),
                (SELECT revoked_at IS NOT NULL FROM token_families WHERE family_id = $3 AND user_id = $2)
            FROM users WHERE coalesce(tenant_id, '') = $1 AND user_id = $2
            """, [tenantID ?? "", claims.sub, claims.sid])
        guard let row = found.rows.first else {
            throw AuthError(.userNotFound, "There is no user for this ID token; it may have been deleted.")
        }
        let user = try UserRecord(row: row)
        guard !user.disabled else { throw AuthError(.userDisabled, "The user account has been disabled.") }
        guard claims.iat > Int64(user.tokensValidAfter.timeIntervalSince1970) else {
            throw AuthError(.tokenExpired, "The ID token has been revoked; sign in again.")
        }
        guard try row.decode(Bool?.self, at: UserRecord.columnCount) != true else {
            throw AuthError(.tokenExpired, "The sign-in of this ID token has ended; sign in again.")
        }
        return (claims, user)
    }

    /// The claims of a well-formed, correctly signed, unexpired ID token of this issuer; no database access.
    func verifiedClaims(_ idToken: String) async throws -> IDTokenClaims {
        let verifier = JWTVerifier(keys: try await signingKeys.keys(verifying: idToken), expectedType: .jwt)
        let claims: IDTokenClaims
        do {
            claims = try verifier.verify(
                idToken, as: IDTokenClaims.self, now: Int64(clock.now().timeIntervalSince1970)
            ).claims
        } catch .expired {
            throw AuthError(.tokenExpired, "The ID token has expired.")
        } catch {
            throw AuthError(.invalidIDToken, "The ID token is not valid: \(error).")
        }
        guard claims.iss == issuer, claims.aud == Self.audience else {
            throw AuthError(.invalidIDToken, "The ID token was not issued for this service.")
        }
        return claims
    }

    /// A signed ID token for `user` in `session`, of the token family `familyID`, issued now.
    func idToken(for user: UserRecord, session: SignInSession, familyID: String, now: Date) async throws -> String {
        let issuedAt = max(Int64(now.timeIntervalSince1970), Int64(user.tokensValidAfter.timeIntervalSince1970) + 1)
        let claims = IDTokenClaims(
            iss: issuer, aud: Self.audience, sub: user.userID, iat: issuedAt, exp: issuedAt + Self.idTokenLifetime,
            authTime: Int64(session.authTime.timeIntervalSince1970), tenant: user.tenantID, email: user.email,
            emailVerified: user.emailVerified, phoneNumber: user.phoneNumber, signInProvider: session.provider,
            signInSecondFactor: session.secondFactor, secondFactorIdentifier: session.secondFactorID,
            mfaEnrollmentRequired: session.mfaEnrollmentRequired ? true : nil, sid: familyID)
        return try await signingKeys.signer().sign(claims)
    }

    private func result(
        for user: UserRecord, session: SignInSession, familyID: String, refreshToken: String, now: Date
    ) async throws -> TokenResult {
        var result = TokenResult(
            localId: user.userID,
            idToken: try await idToken(for: user, session: session, familyID: familyID, now: now),
            refreshToken: refreshToken, expiresIn: Int(Self.idTokenLifetime))
        if session.mfaEnrollmentRequired { result.mfaEnrollmentRequired = true }
        return result
    }

    private func insertRefreshToken(digest: [UInt8], familyID: String, now: Date) -> PostgresQuery {
        PostgresQuery(
            "INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)",
            [digest, familyID, now, now.addingTimeInterval(Self.refreshTokenLifetime)])
    }

}
