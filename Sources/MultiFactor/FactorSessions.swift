import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraPostgres

/// Why a factor session was opened.
enum SessionPurpose: String {
    case enroll
    case signIn = "sign_in"
}

/// A factor session as stored, its state unsealed.
struct StoredSession {
    let hash: [UInt8]
    let userID: String
    let factor: FactorID
    let enrollmentID: String?
    let credentialHash: [UInt8]?
    let state: [UInt8]
    let expiresAt: Date
    let attempts: Int
}

/// The sessions of factors' start steps (`sessionInfo`): an opaque 256-bit handle stored as its SHA-256, the
/// factor's state sealed under the master key (bound to the handle's hash), the owner, and for sign-in the
/// enrolment and pending credential it belongs to. A session is deleted when its code is accepted.
enum FactorSessions {
    /// Makes a new handle and its session description, valid for `lifetime` from `now`.
    static func handle(lifetime: TimeInterval, now: Date) throws -> (session: FactorSession, hash: [UInt8]) {
        let handle = try SecretDigest.make()
        return (FactorSession(sessionInfo: handle.secret, expiresAt: now.addingTimeInterval(lifetime)), handle.digest)
    }

    /// Stores a session whose start step produced `state`.
    static func store(
        _ db: some SQLRunner, keyRing: KeyRing, hash: [UInt8], session: FactorSession, purpose: SessionPurpose,
        userID: String, factor: FactorID, enrollmentID: String? = nil, credentialHash: [UInt8]? = nil,
        state: [UInt8]
    ) async throws {
        try await db.query(
            """
            INSERT INTO mfa_sessions (handle_hash, user_id, purpose, factor, enrollment_id, credential_hash,
                sealed_state, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """,
            [
                hash, userID, purpose.rawValue, factor.rawValue, enrollmentID, credentialHash,
                try keyRing.seal(state, associatedData: hash), session.expiresAt,
            ])
    }

    /// The session `sessionInfo` opened for `purpose`, when it belongs to `userID` and passes `isBound` (factor,
    /// enrolment, credential): else `INVALID_SESSION_INFO`, as for an unknown or used one. Then `SESSION_EXPIRED`
    /// after its lifetime and `TOO_MANY_ATTEMPTS_TRY_LATER` when its attempts are spent.
    static func open(
        _ db: some SQLRunner, keyRing: KeyRing, sessionInfo: String, purpose: SessionPurpose, userID: String,
        now: Date, isBound: (StoredSession) -> Bool
    ) async throws -> StoredSession {
        let hash = try SecretDigest.of(sessionInfo)
        let found = try await db.query(
            """
            SELECT user_id, factor, enrollment_id, credential_hash, sealed_state, expires_at, attempts
            FROM mfa_sessions WHERE handle_hash = $1 AND purpose = $2
            """, [hash, purpose.rawValue])
        let invalid = AuthError(.invalidSessionInfo, "The sessionInfo is invalid or has been used.")
        guard let row = found.rows.first, try row.decode(String.self, at: 0) == userID else { throw invalid }
        let session = StoredSession(
            hash: hash, userID: userID, factor: FactorID(rawValue: try row.decode(String.self, at: 1)),
            enrollmentID: try row.decode(String?.self, at: 2), credentialHash: try row.decode([UInt8]?.self, at: 3),
            state: try keyRing.open(try row.decode([UInt8].self, at: 4), associatedData: hash),
            expiresAt: try row.decode(Date.self, at: 5), attempts: try row.decode(Int.self, at: 6))
        guard isBound(session) else { throw invalid }
        try AttemptLedger.checkOpen(expiresAt: session.expiresAt, attempts: session.attempts, now: now)
        return session
    }

    /// Deletes `session` as its code is accepted; `INVALID_SESSION_INFO` when a concurrent call used it first.
    static func consume(_ db: some SQLRunner, _ session: StoredSession) async throws {
        let deleted = try await db.query("DELETE FROM mfa_sessions WHERE handle_hash = $1 RETURNING 1", [session.hash])
        guard deleted.rowCount == 1 else {
            throw AuthError(.invalidSessionInfo, "The sessionInfo is invalid or has been used.")
        }
    }
}
