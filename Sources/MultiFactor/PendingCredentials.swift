import FoundationEssentials
import TesseraCore
import TesseraPostgres

/// A pending credential as stored: who passed which first factor when, and how many attempts it has left.
struct PendingCredential {
    let hash: [UInt8]
    let userID: String
    let tenantID: String?
    let authTime: Date
    let provider: String
    let expiresAt: Date
    let attempts: Int
}

/// `mfaPendingCredential` (API §4 rule 6): an opaque 256-bit handle, stored as its SHA-256, bound to the user and
/// tenant, valid 600 s, deleted when the sign-in succeeds.
enum PendingCredentials {
    /// The lifetime of a pending credential (API §9).
    static let lifetime: TimeInterval = 600

    /// Stores a new credential for a first-factor sign-in and returns its handle.
    static func create(
        _ db: some SQLRunner, userID: String, tenantID: String?, authTime: Date, provider: String, now: Date
    ) async throws -> String {
        let handle = try SecretDigest.make()
        try await db.query(
            """
            INSERT INTO mfa_pending_credentials (handle_hash, user_id, tenant_id, auth_time, sign_in_provider, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """, [handle.digest, userID, tenantID, authTime, provider, now.addingTimeInterval(lifetime)])
        return handle.secret
    }

    /// The statement reading the credential whose handle hashes to `hash`, for a pipeline; ``open(_:hash:tenantID:now:)``
    /// checks its result.
    static func find(hash: [UInt8]) -> PostgresQuery {
        PostgresQuery(
            """
            SELECT user_id, tenant_id, auth_time, sign_in_provider, expires_at, attempts
            FROM mfa_pending_credentials WHERE handle_hash = $1
            """, [hash])
    }

    /// The SQL expression of the user id of the credential whose handle hash is `$1`, for the owner's reads in the
    /// same pipeline as ``find(hash:)``.
    static let owner = "SELECT user_id FROM mfa_pending_credentials WHERE handle_hash = $1"

    /// The open credential of tenant `tenantID` in `found` (a result of ``find(hash:)``):
    /// `INVALID_MFA_PENDING_CREDENTIAL` when unknown (tampered, or used), `TENANT_ID_MISMATCH` for another tenant's,
    /// `SESSION_EXPIRED` after 600 s, and `TOO_MANY_ATTEMPTS_TRY_LATER` when its attempts are spent.
    static func open(_ found: PostgresResult, hash: [UInt8], tenantID: String?, now: Date) throws -> PendingCredential {
        guard let row = found.rows.first else {
            throw AuthError(.invalidMFAPendingCredential, "The pending credential is invalid or has been used.")
        }
        let credential = PendingCredential(
            hash: hash, userID: try row.decode(String.self, at: 0), tenantID: try row.decode(String?.self, at: 1),
            authTime: try row.decode(Date.self, at: 2), provider: try row.decode(String.self, at: 3),
            expiresAt: try row.decode(Date.self, at: 4), attempts: try row.decode(Int.self, at: 5))
        guard credential.tenantID == tenantID else {
            throw AuthError(.tenantIDMismatch, "The pending credential belongs to another tenant.")
        }
        try AttemptLedger.checkOpen(expiresAt: credential.expiresAt, attempts: credential.attempts, now: now)
        return credential
    }
}
