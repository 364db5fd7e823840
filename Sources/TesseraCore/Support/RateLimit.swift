public import FoundationEssentials
import TesseraPostgres

/// A cap on what one key (a user, a mailbox, a test phone number) may do per window: mails sent, so that nobody can
/// make Tessera flood a mailbox (`accounts.sendOobCode` in a batch of 100 would otherwise send 100 mails to whoever
/// the account's address names), or codes tried, so that nobody can guess a test number's fixed code session after
/// session.
///
/// An event is counted *before* it happens, in one atomic upsert of `rate_limits`, so parallel requests cannot
/// slip past the cap; an event that then fails still counts. Each count also deletes two rows whose window has
/// passed, so the table holds about one window of keys; passed by the database's clock too, so that a server whose
/// clock runs ahead cannot reset the live counts of the others.
public struct RateLimit: Sendable {
    /// Names the kind of key in `rate_limits.limit_key` (`verify_email_user`, …).
    public let name: String
    /// Events allowed per window.
    public let limit: Int
    /// The window, in seconds (at most ``longestWindow``).
    public let window: TimeInterval
    /// What the refusal says.
    public let refusal: String

    /// A limit of `limit` events of kind `name` per `window` seconds (at most ``longestWindow``).
    public init(name: String, limit: Int, window: TimeInterval, refusal: String) {
        precondition(window <= Self.longestWindow)
        self.name = name
        self.limit = limit
        self.window = window
        self.refusal = refusal
    }

    /// Verification mails per user and per hour.
    static let verificationMailsPerUser = RateLimit(
        name: "verify_email_user", limit: 5, window: 3600,
        refusal: "Too many messages were sent recently; try again later.")
    /// Verification mails per address (whatever the account or tenant) and per hour.
    static let verificationMailsPerAddress = RateLimit(
        name: "verify_email_address", limit: 5, window: 3600,
        refusal: "Too many messages were sent recently; try again later.")

    /// Counts an event for `key`; throws `TOO_MANY_ATTEMPTS_TRY_LATER` (with `retryAfter`) when the window already
    /// holds ``limit`` events.
    public func admit(_ db: some SQLRunner, key: String, now: Date) async throws {
        let result = try await db.query(
            """
            WITH counted AS (
                INSERT INTO rate_limits AS l (limit_key, window_start, sends) VALUES ($1, $2, 1)
                ON CONFLICT (limit_key) DO UPDATE SET
                    sends = CASE WHEN l.window_start > $3 THEN l.sends + 1 ELSE 1 END,
                    window_start = CASE WHEN l.window_start > $3 THEN l.window_start ELSE $2 END
                RETURNING sends, window_start
            ), pruned AS (
                DELETE FROM rate_limits WHERE limit_key IN (
                    SELECT limit_key FROM rate_limits
                    WHERE window_start <= LEAST($4, now() - \(Int(Self.longestWindow)) * interval '1 second')
                        AND limit_key <> $1
                    ORDER BY window_start LIMIT 2 FOR UPDATE SKIP LOCKED)
            )
            SELECT sends, window_start FROM counted
            """, ["\(name):\(key)", now, now.addingTimeInterval(-window), now.addingTimeInterval(-Self.longestWindow)])
        guard let row = result.rows.first else { return }
        guard try row.decode(Int.self, at: 0) > limit else { return }
        let windowEnd = try row.decode(Date.self, at: 1).addingTimeInterval(window)
        throw AuthError(
            .tooManyAttemptsTryLater, refusal, retryAfter: max(1, Int(windowEnd.timeIntervalSince(now).rounded(.up))))
    }

    /// The longest window of any limit: rows older than this are of no use to any of them.
    public static let longestWindow: TimeInterval = 3600
}
