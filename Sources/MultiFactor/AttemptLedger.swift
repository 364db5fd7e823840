public import FoundationEssentials
public import TesseraCore
import TesseraPostgres

/// The router's brute-force accounting (API §4 rule 7), kept in the database so it holds across a fleet.
///
/// An attempt is taken *before* the code is checked, by an atomic `UPDATE … WHERE attempts < limit`, so parallel
/// guesses cannot slip past the limit between a check and a count; a right code then ends the credential or
/// session anyway. So five wrong codes against one `sessionInfo` or `mfaPendingCredential` burn it (the fifth
/// still answers `INVALID_CODE`, the sixth attempt is refused).
///
/// At one enrolment, whatever credential is used, the count of consecutive failures goes on across locks: every
/// tenth locks the enrolment, for 900 s the first time and twice as long each time after (at most a day), and the
/// hundredth blocks it for good (NIST SP 800-63B §5.2.2), so a holder of the password no longer gets ~960
/// guesses a day forever. Only a right code at another of the user's enrolments (a successful sign-in with
/// another factor) clears the count of all of them, or an administrator removing the enrolment.
///
/// Other single-use code sessions (phone sign-in's `sessionInfo`) apply the same per-handle limit through
/// ``checkOpen(expiresAt:attempts:now:)`` and ``take(_:table:hash:expiresAt:now:)``.
public enum AttemptLedger {
    /// Attempts per pending credential and per factor session.
    public static let perHandle = 5
    /// Consecutive failed attempts at one enrolment between two locks.
    static let perEnrollment = 10
    /// How long the first lock of an enrolment lasts; each later one lasts twice the one before.
    static let enrollmentLock: TimeInterval = 900
    /// The longest lock.
    static let longestEnrollmentLock: TimeInterval = 86_400
    /// Consecutive failed attempts after which an enrolment is blocked until cleared.
    public static let enrollmentCeiling = 100

    /// `SESSION_EXPIRED` when a handle (pending credential or session) is past `expiresAt`, else
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` when its attempts are spent (with the seconds until it would have expired:
    /// after that a new sign-in starts afresh).
    public static func checkOpen(expiresAt: Date, attempts: Int, now: Date) throws(AuthError) {
        guard expiresAt > now else { throw AuthError(.sessionExpired, "The session has expired; start again.") }
        guard attempts < perHandle else { throw spent(expiresAt: expiresAt, now: now) }
    }

    /// Takes one attempt of the handle whose hash is `hash` in `table` (`mfa_pending_credentials`,
    /// `mfa_sessions`, or another table with `handle_hash` and `attempts` columns); `TOO_MANY_ATTEMPTS_TRY_LATER`
    /// when none is left.
    public static func take(
        _ db: some SQLRunner, table: StaticString, hash: [UInt8], expiresAt: Date, now: Date
    ) async throws {
        let taken = try await db.query(
            "UPDATE \(table) SET attempts = attempts + 1 WHERE handle_hash = $1 AND attempts < $2 RETURNING attempts",
            [hash, perHandle])
        guard taken.rowCount == 1 else { throw spent(expiresAt: expiresAt, now: now) }
    }

    /// Gives back an attempt taken with ``take(_:table:hash:expiresAt:now:)`` when the factor could not answer
    /// (`FACTOR_SERVICE_UNAVAILABLE`): an outage of a factor service never counts against the user.
    static func giveBack(_ db: some SQLRunner, table: StaticString, hash: [UInt8]) async throws {
        try await db.query(
            "UPDATE \(table) SET attempts = attempts - 1 WHERE handle_hash = $1 AND attempts > 0", [hash])
    }

    /// The attempts one code at sign-in takes, in one statement: one of the pending credential whose hash is
    /// `credential`, then one of the start step's session (`session`, when the factor has one), then one at
    /// `enrollmentID`, each only when the ones before it were taken. `TOO_MANY_ATTEMPTS_TRY_LATER` names the first
    /// that was refused (a spent credential or session, a locked or blocked enrolment); the attempts taken before it
    /// stay taken, as a refused code's do. Returns whether this attempt locked the enrolment, for
    /// ``giveBack(_:enrollmentID:locked:)``.
    static func takeForSignIn(
        _ db: some SQLRunner, credential: (hash: [UInt8], expiresAt: Date), session: (hash: [UInt8], expiresAt: Date)?,
        enrollmentID: String, now: Date
    ) async throws -> Bool {
        let taken = try await db.query(
            """
            WITH credential AS (
                UPDATE mfa_pending_credentials SET attempts = attempts + 1
                WHERE handle_hash = $1 AND attempts < $3 RETURNING 1
            ), session AS (
                UPDATE mfa_sessions SET attempts = attempts + 1
                WHERE handle_hash = $2 AND attempts < $3 AND EXISTS (SELECT FROM credential) RETURNING 1
            ), enrollment AS (
                UPDATE mfa_enrollments SET
                    failures = failures + 1,
                    locked_until = CASE WHEN (failures + 1) % $6 = 0
                        THEN $5::timestamptz + least($7 * power(2, (failures + 1) / $6 - 1), $8) * interval '1 second'
                        ELSE locked_until END
                WHERE enrollment_id = $4 AND (locked_until IS NULL OR locked_until <= $5) AND failures < $9
                    AND EXISTS (SELECT FROM credential) AND ($2::bytea IS NULL OR EXISTS (SELECT FROM session))
                RETURNING failures % $6 = 0 AS locked
            )
            SELECT EXISTS (SELECT FROM credential), EXISTS (SELECT FROM session), (SELECT locked FROM enrollment),
                e.locked_until, e.failures
            FROM (VALUES (1)) AS one LEFT JOIN mfa_enrollments e ON e.enrollment_id = $4
            """,
            [
                credential.hash, session?.hash, perHandle, enrollmentID, now, perEnrollment, Int(enrollmentLock),
                Int(longestEnrollmentLock), enrollmentCeiling,
            ])
        let row = taken[0]
        guard try row.decode(Bool.self, at: 0) else { throw spent(expiresAt: credential.expiresAt, now: now) }
        if let session, try !row.decode(Bool.self, at: 1) { throw spent(expiresAt: session.expiresAt, now: now) }
        if let locked = try row.decode(Bool?.self, at: 2) { return locked }
        // Refused at the enrolment: its lock as the statement found it.
        if let failures = try row.decode(Int?.self, at: 4) {
            try checkUnlocked(lockedUntil: try row.decode(Date?.self, at: 3), failures: failures, now: now)
        }
        throw locked(until: now, now: now)
    }

    /// `TOO_MANY_ATTEMPTS_TRY_LATER` while an enrolment with `failures` consecutive failures is locked or blocked.
    static func checkUnlocked(lockedUntil: Date?, failures: Int, now: Date) throws(AuthError) {
        guard failures < enrollmentCeiling else { throw blocked }
        guard let lockedUntil, lockedUntil > now else { return }
        throw locked(until: lockedUntil, now: now)
    }

    /// Gives back an attempt at `enrollmentID` taken by ``takeForSignIn(_:credential:session:enrollmentID:now:)``
    /// (which said whether it `locked` the enrolment) when the factor could not answer.
    static func giveBack(_ db: some SQLRunner, enrollmentID: String, locked: Bool) async throws {
        try await db.query(
            """
            UPDATE mfa_enrollments SET
                failures = greatest(failures - 1, 0),
                locked_until = CASE WHEN $2 THEN NULL ELSE locked_until END
            WHERE enrollment_id = $1
            """, [enrollmentID, locked])
    }

    private static var blocked: AuthError {
        AuthError(
            .tooManyAttemptsTryLater,
            "This second factor is blocked after \(enrollmentCeiling) wrong codes in a row: sign in with another "
                + "second factor, or ask an administrator to remove it and enrol again.")
    }

    private static func spent(expiresAt: Date, now: Date) -> AuthError {
        AuthError(
            .tooManyAttemptsTryLater, "Too many wrong codes for this session; sign in again.",
            retryAfter: seconds(from: now, to: expiresAt))
    }

    private static func locked(until: Date, now: Date) -> AuthError {
        AuthError(
            .tooManyAttemptsTryLater, "Too many wrong codes for this second factor; try again later.",
            retryAfter: seconds(from: now, to: until))
    }

    private static func seconds(from now: Date, to end: Date) -> Int {
        max(1, Int(end.timeIntervalSince(now).rounded(.up)))
    }
}
