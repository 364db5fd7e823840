public import FoundationEssentials
public import TesseraPostgres

/// The `token_families` table: one row per sign-in (a JSON-RPC sign-in, the sign-in a browser session rests on)
/// and per OAuth grant (with its `client_id` and `scope`). A revoked family ends its refresh tokens, the ID tokens
/// that name it in `sid`, the codes issued from it and the access tokens that name it at introspection.
///
/// An OAuth grant's family keeps its current refresh token in its row (`refresh_token_hash`, `refresh_issued_at`,
/// `refresh_expires_at`: a rotation updates that one row); a sign-in's tokens, and grants' tokens issued before,
/// are rows of `refresh_tokens`.
///
/// Every module creates and revokes families through these statements. The exceptions are the OAuth grants, which
/// create their family inside the single statement that spends the code (`TokenEndpoint.redeemStatement`, with the
/// columns of ``create(_:)``) and rotate its refresh token inside the one that checks the client
/// (`TokenEndpoint.refreshStatement`): a grant takes one round trip.
public enum TokenFamilies {
    /// A family to create.
    public struct NewFamily: Sendable {
        public var familyID: String
        public var userID: String
        public var authTime: Date
        /// The first factor: `password` or `phone`.
        public var provider: String
        public var secondFactor: String?
        public var secondFactorID: String?
        public var mfaEnrollmentRequired: Bool
        public var createdAt: Date

        /// A family of a sign-in.
        public init(
            familyID: String, userID: String, authTime: Date, provider: String, secondFactor: String?,
            secondFactorID: String?, mfaEnrollmentRequired: Bool, createdAt: Date
        ) {
            self.familyID = familyID
            self.userID = userID
            self.authTime = authTime
            self.provider = provider
            self.secondFactor = secondFactor
            self.secondFactorID = secondFactorID
            self.mfaEnrollmentRequired = mfaEnrollmentRequired
            self.createdAt = createdAt
        }
    }

    /// The statement that creates `family` (a sign-in: no client).
    public static func create(_ family: NewFamily) -> PostgresQuery {
        PostgresQuery(
            """
            INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, second_factor,
                second_factor_id, mfa_enrollment_required, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """,
            [
                family.familyID, family.userID, family.authTime, family.provider, family.secondFactor,
                family.secondFactorID, family.mfaEnrollmentRequired, family.createdAt,
            ])
    }

    /// Revokes the family `familyID` of `userID` (signing out of one sign-in); a family already revoked keeps its
    /// time.
    public static func revoke(_ db: some SQLRunner, familyID: String, userID: String, now: Date) async throws {
        try await db.query(
            "UPDATE token_families SET revoked_at = $3 WHERE family_id = $1 AND user_id = $2 AND revoked_at IS NULL",
            [familyID, userID, now])
    }

    /// Revokes the family `familyID`, whoever it belongs to (the grant of a replayed code, the sign-in of a browser
    /// session that signed out).
    public static func revoke(_ db: some SQLRunner, familyID: String, now: Date) async throws {
        try await db.query(
            "UPDATE token_families SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL", [familyID, now])
    }

    /// Revokes every family of `userID` (`users.revokeTokens` and whatever implies it).
    public static func revokeAll(_ db: some SQLRunner, userID: String, now: Date) async throws {
        try await db.query(
            "UPDATE token_families SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL", [userID, now])
    }

    /// The statement that revokes the family `familyID` when it is a grant of `clientID` (RFC 7009, an access
    /// token of the grant revoked by its client); a sign-in's family is never revoked this way.
    public static func revokeGrant(familyID: String, clientID: String, now: Date) -> PostgresQuery {
        PostgresQuery(
            """
            UPDATE token_families SET revoked_at = $3
            WHERE family_id = $1 AND client_id = $2 AND revoked_at IS NULL
            """, [familyID, clientID, now])
    }

    /// Revokes the grant `familyID` of `clientID` on behalf of its client (RFC 7009) presenting a refresh token that
    /// hashes to `tokenHash`, while the family's refresh token is unexpired: when that is the family's current token,
    /// or whatever it is when `issuedForFamily` (the caller opened its envelope: Tessera issued it for this family).
    public static func revoke(
        _ db: some SQLRunner, grant familyID: String, clientID: String, refreshTokenHash tokenHash: [UInt8],
        issuedForFamily: Bool, now: Date
    ) async throws {
        try await db.query(
            """
            UPDATE token_families SET revoked_at = $3
            WHERE family_id = $1 AND client_id = $2 AND revoked_at IS NULL AND refresh_expires_at > $3
                AND ($5 OR refresh_token_hash = $4)
            """, [familyID, clientID, now, tokenHash, issuedForFamily])
    }

    /// Revokes the grant `familyID` of `clientID` when its current refresh token does not hash to `tokenHash`: the
    /// caller opened the token's envelope (Tessera issued it for this family), so a token that is not the current
    /// one was already replaced, and its use means it was stolen or the client raced itself.
    public static func revokeOnReuse(
        _ db: some SQLRunner, grant familyID: String, clientID: String, refreshTokenHash tokenHash: [UInt8], now: Date
    ) async throws {
        try await db.query(
            """
            UPDATE token_families SET revoked_at = $3
            WHERE family_id = $1 AND client_id = $2 AND revoked_at IS NULL
                AND refresh_token_hash IS DISTINCT FROM $4
            """, [familyID, clientID, now, tokenHash])
    }

    /// Revokes the family of the refresh token (a row of `refresh_tokens`) that hashes to `tokenHash`: a grant of
    /// `clientID`, or a JSON-RPC sign-in when `clientID` is nil. With `onlyIfUsed`, only when that token was already
    /// used (its reuse means it was stolen, or a client raced itself); otherwise only while it is unexpired (RFC
    /// 7009). Returns whether a family was revoked.
    @discardableResult
    public static func revoke(
        _ db: some SQLRunner, refreshTokenHash tokenHash: [UInt8], clientID: String?, onlyIfUsed: Bool, now: Date
    ) async throws -> Bool {
        let revoked = try await db.query(
            """
            UPDATE token_families f SET revoked_at = $3 FROM refresh_tokens r
            WHERE r.token_hash = $1 AND f.family_id = r.family_id AND f.revoked_at IS NULL
                AND f.client_id IS NOT DISTINCT FROM $2
                AND CASE WHEN $4 THEN r.used_at IS NOT NULL ELSE r.expires_at > $3 END
            """, [tokenHash, clientID, now, onlyIfUsed])
        return revoked.affectedRows > 0
    }
}
