public import FoundationEssentials
public import TesseraCore
import TesseraPostgres

/// Issuing authorization codes (API §6): 256-bit random, stored only as their SHA-256 in `oauth_codes` with the
/// grant they stand for, valid 60 seconds. Redeeming them is the token endpoint's job.
public enum AuthorizationCodes {
    /// How long a code may be redeemed after it is issued (API §9).
    public static let lifetime: TimeInterval = 60

    /// Stores `grant` behind a new code and returns the code.
    public static func issue(_ db: any SQLRunner, _ grant: AuthorizationGrant, now: Date) async throws -> String {
        let code = try SecretDigest.make()
        try await db.query(
            """
            INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, scope, nonce,
                auth_time, sign_in_provider, second_factor, second_factor_id, expires_at, sign_in_family_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
            """,
            [
                code.digest, grant.clientID, grant.userID, grant.redirectURI, grant.codeChallenge, grant.scope,
                grant.nonce, grant.authTime, grant.provider, grant.secondFactor, grant.secondFactorID,
                now.addingTimeInterval(lifetime), grant.signInFamilyID,
            ])
        return code.secret
    }
}
