public import FoundationEssentials
public import TesseraCore
public import TesseraPostgres

/// The router's brute-force accounting (API §4 rule 7), kept in the database so it holds across a fleet.
///
/// An attempt is taken *before* the code is checked, by an atomic `UPDATE … WHERE attempts < limit`, so parallel
/// guesses cannot slip past the limit between a check and a count; a right code then ends the credential or
/// session anyway. So five wrong codes against one `sessionInfo` or `mfaPendingCredential` burn it (the fifth
/// still answers `INVALID_CODE`, the sixth attempt is refused), and the tenth consecutive attempt at one enrolment
/// locks it for 900 s whatever credential is used; a right code clears the count.
///
/// Other single-use code sessions (phone sign-in's `sessionInfo`) apply the same per-handle limit through
/// ``checkOpen(expiresAt:attempts:now:)`` and ``take(_:table:hash:expiresAt:now:)``.
public enum AttemptLedger {
    /// Attempts per pending credential and per factor session.
    public static let perHandle = 5
    /// Consecutive failed attempts at one enrolment before it locks.
    static let perEnrollment = 10
    /// How long a locked enrolment stays locked.
    static let enrollmentLock: TimeInterval = 900

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

    /// `TOO_MANY_ATTEMPTS_TRY_LATER` while `enrollmentID` is locked.
    static func checkUnlocked(lockedUntil: Date?, now: Date) throws(AuthError) {
        guard let lockedUntil, lockedUntil > now else { return }
        throw locked(until: lockedUntil, now: now)
    }

    /// Counts one attempt at `enrollmentID`; the tenth in a row locks it (and still goes on to be checked).
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` when it is locked. Returns whether this attempt locked it, for
    /// ``giveBack(_:enrollmentID:locked:)``.
    @discardableResult
    static func take(_ db: some SQLRunner, enrollmentID: String, now: Date) async throws -> Bool {
        let taken = try await db.query(
            """
            UPDATE mfa_enrollments SET
                failures = CASE WHEN failures + 1 >= $3 THEN 0 ELSE failures + 1 END,
                locked_until = CASE WHEN failures + 1 >= $3 THEN $2::timestamptz + $4 * interval '1 second' END
            WHERE enrollment_id = $1 AND (locked_until IS NULL OR locked_until <= $2)
            RETURNING locked_until IS NOT NULL
            """, [enrollmentID, now, perEnrollment, Int(enrollmentLock)])
        if let row = taken.rows.first { return try row.decode(Bool.self, at: 0) }
        let lock = try await db.query(
            "SELECT locked_until FROM mfa_enrollments WHERE enrollment_id = $1", [enrollmentID])
        throw locked(until: try lock.rows.first?.decode(Date?.self, at: 0) ?? now, now: now)
    }

    /// Gives back an attempt at `enrollmentID` taken by ``take(_:enrollmentID:now:)`` (which said whether it
    /// `locked` the enrolment) when the factor could not answer.
    static func giveBack(_ db: some SQLRunner, enrollmentID: String, locked: Bool) async throws {
        try await db.query(
            """
            UPDATE mfa_enrollments SET
                failures = CASE WHEN $2 THEN $3 - 1 ELSE greatest(failures - 1, 0) END,
                locked_until = CASE WHEN $2 THEN NULL ELSE locked_until END
            WHERE enrollment_id = $1
            """, [enrollmentID, locked, perEnrollment])
    }

    /// Clears the count of `enrollmentID` after a right code.
    static func succeeded(_ db: some SQLRunner, enrollmentID: String) async throws {
        try await db.query(
            "UPDATE mfa_enrollments SET failures = 0, locked_until = NULL WHERE enrollment_id = $1", [enrollmentID])
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
