import FoundationEssentials
import TesseraCore
import TesseraPostgres

/// The `oauth_browser_sessions` table: signed-in browsers (SSO). The cookie holds a 256-bit secret, sealed with the
/// sign-in (``SessionCookie``); the row holds its SHA-256 and the token family of the sign-in, so whatever revokes
/// the user's tokens (`users.revokeTokens`, a password change, an MFA withdraw) or disables the user ends the session
/// too (read here, or learnt through ``SSORevocations``).
enum BrowserSessions {
    /// Absolute lifetime of a browser session (12 hours).
    static let lifetime: TimeInterval = 12 * 3600

    /// A session just stored: the secret its cookie carries, and when it ends.
    struct Stored {
        let secret: String
        let expiresAt: Date
    }

    /// A new session on `familyID`.
    static func create(_ db: any SQLRunner, familyID: String, now: Date) async throws -> Stored {
        let session = try SecretDigest.make()
        let expiresAt = now.addingTimeInterval(lifetime)
        try await db.query(
            """
            INSERT INTO oauth_browser_sessions (session_hash, family_id, created_at, expires_at)
            VALUES ($1, $2, $3, $4)
            """,
            [session.digest, familyID, now, expiresAt])
        return Stored(secret: session.secret, expiresAt: expiresAt)
    }

    /// The statement finding the sign-in of the live session whose cookie hashes to `hash`: unexpired, its family
    /// not revoked, its user enabled. No row otherwise; a row decodes with ``family(row:)``.
    static func find(hash: [UInt8], now: Date) -> PostgresQuery {
        PostgresQuery(
            """
            SELECT \(SignInFamily.columns)
            FROM oauth_browser_sessions s JOIN token_families f ON f.family_id = s.family_id
                JOIN users u ON u.user_id = f.user_id
            WHERE s.session_hash = $1 AND s.expires_at > $2 AND f.revoked_at IS NULL AND f.client_id IS NULL
                AND NOT f.mfa_enrollment_required AND NOT u.disabled
            """, [hash, now])
    }

    /// Replaces the session whose cookie hashes to `hash` by a new one on the family of a sign-in that passed a
    /// second factor (SSO upgraded), and returns the new one: a change of authentication level always gets a new
    /// session id, so a session id seen before the step-up (fixed by an attacker, say) never carries it.
    /// The lifetime does not grow: the new session ends when the old one would have (now plus ``lifetime`` when
    /// the old one is gone).
    static func upgrade(_ db: any SQLRunner, hash: [UInt8], to familyID: String, now: Date) async throws -> Stored {
        let ended = try await db.query(
            "DELETE FROM oauth_browser_sessions WHERE session_hash = $1 RETURNING expires_at", [hash])
        let session = try SecretDigest.make()
        let expiresAt = try ended.rows.first?.decode(Date.self, at: 0) ?? now.addingTimeInterval(lifetime)
        try await db.query(
            """
            INSERT INTO oauth_browser_sessions (session_hash, family_id, created_at, expires_at)
            VALUES ($1, $2, $3, $4)
            """,
            [session.digest, familyID, now, expiresAt])
        return Stored(secret: session.secret, expiresAt: expiresAt)
    }

    /// Ends the session whose cookie hashes to `hash` (sign-out): deletes it and revokes the sign-in it rests on,
    /// with its refresh tokens. Nothing when there is no such session.
    static func end(_ db: any SQLRunner, hash: [UInt8], now: Date) async throws {
        let ended = try await db.query(
            "DELETE FROM oauth_browser_sessions WHERE session_hash = $1 RETURNING family_id", [hash])
        if let familyID = try ended.rows.first?.decode(String.self, at: 0) {
            try await TokenFamilies.revoke(db, familyID: familyID, now: now)
        }
    }

    /// The sign-in that issued `refreshToken`.
    static func family(_ db: any SQLRunner, refreshToken: String) async throws -> SignInFamily? {
        let result = try await db.query(
            """
            SELECT \(SignInFamily.columns)
            FROM refresh_tokens r JOIN token_families f ON f.family_id = r.family_id
                JOIN users u ON u.user_id = f.user_id
            WHERE r.token_hash = $1
            """, [try SecretDigest.of(refreshToken)])
        return try result.rows.first.map(family(row:))
    }

    /// The sign-in of a row selected with ``SignInFamily/columns``.
    static func family(row: PostgresRow) throws -> SignInFamily {
        SignInFamily(
            familyID: try row.decode(String.self, at: 0), userID: try row.decode(String.self, at: 1),
            tenantID: try row.decode(String?.self, at: 2), authTime: try row.decode(Date.self, at: 3),
            provider: try row.decode(String.self, at: 4), secondFactor: try row.decode(String?.self, at: 5),
            secondFactorID: try row.decode(String?.self, at: 6))
    }
}
