import FoundationEssentials
import TesseraPostgres

/// The password-failure limit (API §9): 10 failed attempts per account per 15 minutes, then
/// `TOO_MANY_ATTEMPTS_TRY_LATER` until the window ends.
///
/// Attempts are counted by tenant and e-mail address, whether an account exists or not, so the limit itself does
/// not reveal which addresses have accounts. An attempt is counted *before* the password is checked (one atomic
/// upsert), so parallel guesses cannot slip past the limit; a correct password clears the count.
enum LoginThrottle {
    /// Failed attempts allowed per window.
    static let limit = 10
    /// The window, in seconds.
    static let window: TimeInterval = 15 * 60

    /// Counts an attempt; throws `TOO_MANY_ATTEMPTS_TRY_LATER` (with `retryAfter`) when the window already holds
    /// ``limit`` attempts.
    static func admit(_ pool: PostgresPool, tenantID: String?, email: String, now: Date) async throws {
        let result = try await pool.query(
            """
            INSERT INTO login_failures AS f (tenant_id, email, window_start, failures) VALUES ($1, $2, $3, 1)
            ON CONFLICT ((coalesce(tenant_id, '')), email) DO UPDATE SET
                failures = CASE WHEN f.window_start > $4 THEN f.failures + 1 ELSE 1 END,
                window_start = CASE WHEN f.window_start > $4 THEN f.window_start ELSE $3 END
            RETURNING failures, window_start
            """, [tenantID, email, now, now.addingTimeInterval(-window)])
        guard let row = result.rows.first else { return }
        let failures = try row.decode(Int.self, at: 0)
        guard failures > limit else { return }
        let windowEnd = try row.decode(Date.self, at: 1).addingTimeInterval(window)
        throw AuthError(
            .tooManyAttemptsTryLater, "Too many failed sign-in attempts; try again later.",
            retryAfter: max(1, Int(windowEnd.timeIntervalSince(now).rounded(.up))))
    }

    /// Clears the count after a correct password.
    static func reset(_ pool: PostgresPool, tenantID: String?, email: String) async throws {
        try await pool.query(
            "DELETE FROM login_failures WHERE coalesce(tenant_id, '') = $1 AND email = $2",
            [UserStore.key(tenantID), email])
    }
}
