import FoundationEssentials
import TesseraPostgres

/// A cap on messages one key (a user, a mailbox) may cause per window, so that nobody can make Tessera flood a
/// mailbox: `accounts.sendOobCode` in a batch of 100 would otherwise send 100 mails to whoever the account's
/// address names.
///
/// A send is counted *before* it happens, in one atomic upsert of `send_limits`, so parallel requests cannot slip
/// past the cap; a send that then fails still counts. Each count also deletes two rows whose window has passed, so
/// the table holds about one window of keys.
struct SendLimit: Sendable {
    /// Names the kind of key in `send_limits.limit_key` (`verify_email_user`, …).
    let name: String
    /// Sends allowed per window.
    let limit: Int
    /// The window, in seconds.
    let window: TimeInterval

    /// Verification mails per user and per hour.
    static let verificationMailsPerUser = SendLimit(name: "verify_email_user", limit: 5, window: 3600)
    /// Verification mails per address (whatever the account or tenant) and per hour.
    static let verificationMailsPerAddress = SendLimit(name: "verify_email_address", limit: 5, window: 3600)

    /// Counts a send for `key`; throws `TOO_MANY_ATTEMPTS_TRY_LATER` (with `retryAfter`) when the window already
    /// holds ``limit`` sends.
    func admit(_ pool: PostgresPool, key: String, now: Date) async throws {
        let result = try await pool.query(
            """
            WITH counted AS (
                INSERT INTO send_limits AS l (limit_key, window_start, sends) VALUES ($1, $2, 1)
                ON CONFLICT (limit_key) DO UPDATE SET
                    sends = CASE WHEN l.window_start > $3 THEN l.sends + 1 ELSE 1 END,
                    window_start = CASE WHEN l.window_start > $3 THEN l.window_start ELSE $2 END
                RETURNING sends, window_start
            ), pruned AS (
                DELETE FROM send_limits WHERE limit_key IN (
                    SELECT limit_key FROM send_limits WHERE window_start <= $4 AND limit_key <> $1
                    ORDER BY window_start LIMIT 2 FOR UPDATE SKIP LOCKED)
            )
            SELECT sends, window_start FROM counted
            """, ["\(name):\(key)", now, now.addingTimeInterval(-window), now.addingTimeInterval(-Self.longestWindow)])
        guard let row = result.rows.first else { return }
        guard try row.decode(Int.self, at: 0) > limit else { return }
        let windowEnd = try row.decode(Date.self, at: 1).addingTimeInterval(window)
        throw AuthError(
            .tooManyAttemptsTryLater, "Too many messages were sent recently; try again later.",
            retryAfter: max(1, Int(windowEnd.timeIntervalSince(now).rounded(.up))))
    }

    /// The longest window of any limit: rows older than this are of no use to any of them.
    static let longestWindow: TimeInterval = 3600
}
