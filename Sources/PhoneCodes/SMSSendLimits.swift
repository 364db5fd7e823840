public import FoundationEssentials
public import TesseraCore
import TesseraPostgres

/// The SMS send limits of API §4, kept in the database so they hold across a fleet: per phone number 5 sends and
/// per client 50 sends in any sliding hour, and per tenant (or the project level) `smsDailyQuota` sends per UTC
/// day. A send refused by a limit is not counted. Test numbers never reach these limits.
///
/// Clients are counted by their key (`IPAddress.rateLimitKey`): an IPv4 address, or the /64 network of an IPv6
/// address (one subscriber usually holds a whole /64). Numbers and clients are counted across tenants, since one
/// phone or one client abusing several tenants is still one abuser; the quota is each tenant's own.
public struct SMSSendLimits: Sendable {
    /// Sends per phone number per window.
    public var perNumber: Int
    /// Sends per client per window.
    public var perClient: Int
    /// The sliding window of the two limits above.
    public var window: TimeInterval
    /// How long sends are remembered (longer than the window, as a record of abuse).
    public static let retention: TimeInterval = 7 * 24 * 3600

    /// The limits of API §4: 5 per number and 50 per client per hour.
    public init(perNumber: Int = 5, perClient: Int = 50, window: TimeInterval = 3600) {
        self.perNumber = perNumber
        self.perClient = perClient
        self.window = window
    }

    /// Records one send to `phoneNumber` for `clientKey` in `tenantID` at `now` when every limit allows it.
    /// Otherwise throws `TOO_MANY_ATTEMPTS_TRY_LATER` (number or client) or `QUOTA_EXCEEDED` (the tenant's day),
    /// with `retryAfter`: the seconds until the oldest counted send leaves the window, or until the next UTC day.
    public func reserve(
        _ db: some SQLRunner, tenantID: String?, phoneNumber: String, clientKey: String?, quota: Int, now: Date
    ) async throws {
        let result = try await db.query(
            """
            SELECT refused_by, retry_at FROM sms_reserve_send($1, $2, $3, $4, $5 * interval '1 second', $6::integer,
                $7::integer, $8::integer, $9 * interval '1 second')
            """,
            [
                UserStore.key(tenantID), phoneNumber, clientKey, now, Int(window), perNumber, perClient, quota,
                Int(Self.retention),
            ])
        guard let row = result.rows.first, let refusedBy = try row.decode(String?.self, at: 0) else { return }
        let retryAt = try row.decode(Date.self, at: 1)
        let retryAfter = max(1, Int(retryAt.timeIntervalSince(now).rounded(.up)))
        switch refusedBy {
        case "quota":
            throw AuthError(
                .quotaExceeded, "The daily SMS quota is used up; try again tomorrow.", retryAfter: retryAfter)
        case "client":
            throw AuthError(
                .tooManyAttemptsTryLater, "Too many SMS from this client; try again later.", retryAfter: retryAfter)
        default:
            throw AuthError(
                .tooManyAttemptsTryLater, "Too many SMS to this number; try again later.", retryAfter: retryAfter)
        }
    }
}
