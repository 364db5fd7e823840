import FoundationEssentials
import Synchronization
import TesseraCore
import TesseraPostgres

/// What ended browser sessions before their cookies' expiry, as this server knows it, so that an SSO authorization
/// can trust a ``SessionCookie`` without reading its session.
///
/// The table `oauth_sso_revocations` is written by triggers only (OAuth migration 9), so that no code path can miss
/// it: a session deleted before its expiry (sign-out, the step-up, its user or tenant deleted), the sign-in of a live
/// session revoked (`users.revokeTokens`, a password change, a replayed code), a user disabled or enabled again.
/// Each row is a subject, `session:` and the hex of the session's hash or `user:` and a user id, kept until no
/// session it can concern is alive; each change is announced on the ``ChangeFeed`` in the same transaction.
///
/// A server learns of a change from its notice, in milliseconds, and also re-reads the rows changed lately once the
/// list is older than half its staleness bound, piggybacked on an authorization's round trip: a lost notice delays
/// a revocation by at most the bound. A list that is older than the bound, or never read since the listener last
/// (re)started, or that outgrew its capacity, vouches for nothing: the authorization then reads the session
/// (``BrowserSessions/find(hash:now:)``). The token endpoint stays the authority: it refuses the code of a revoked
/// sign-in or a disabled user whatever the authorization decided.
final class SSORevocations: Sendable {
    /// The change notices of the table.
    static let changes = ChangeTopic("sso_revocations")
    private let list: Mutex<SSORevocationList>

    /// A list fed by `changes`, vouching for sessions for at most its staleness bound, holding at most `capacity`
    /// subjects; a subject a notice revokes is kept for a session's lifetime by `clock` (or as its row says, once
    /// read).
    init(changes: ChangeFeed, clock: any WallClock, capacity: Int = 100_000) {
        list = Mutex(SSORevocationList(staleness: changes.staleness, capacity: capacity))
        changes.onChange(Self.changes) { [self] key in
            let until = clock.now().addingTimeInterval(BrowserSessions.lifetime)
            let change = key.map { SSORevocationList.Change(notice: $0, until: until) } ?? .restarted
            list.withLock { $0.hear(change) }
        }
    }

    /// The read the list is due for, if any (at most one at a time): run its ``SSORevocationList/Read/query`` and
    /// hand the result to ``apply(_:of:now:)`` (or call ``failed(_:)``).
    func dueRead(now: Date) -> SSORevocationList.Read? {
        list.withLock { $0.dueRead(at: .now, wallNow: now) }
    }

    /// Takes in the rows of `read`.
    func apply(_ result: PostgresResult, of read: SSORevocationList.Read, now: Date) throws {
        let rows = try result.rows.map(SSORevocationList.Row.init(row:))
        list.withLock { $0.apply(rows, of: read, wallNow: now) }
    }

    /// Gives up `read` (it failed), so that another request reads.
    func failed(_ read: SSORevocationList.Read) {
        list.withLock { $0.failed(read) }
    }

    /// Whether the session of `cookie` (whose row is keyed by `hash`) is known to be live, known to be ended, or
    /// unknown here.
    func verdict(_ cookie: SessionCookie, hash: [UInt8]) -> SSORevocationList.Verdict {
        list.withLock {
            $0.verdict(session: SSORevocationList.session(hash), user: cookie.family.userID, at: .now)
        }
    }

    /// Notes at once that this server ended the session keyed by `hash` (its own next authorization must not wait
    /// for the notice).
    func ended(hash: [UInt8], now: Date) {
        list.withLock {
            $0.hear(.revoked(SSORevocationList.session(hash), until: now.addingTimeInterval(BrowserSessions.lifetime)))
        }
    }
}

/// The revocation list as a value: fed events (a notice, a restart of the listener, a read's rows) and asked
/// whether a session is live. See ``SSORevocations``.
struct SSORevocationList: Sendable {
    /// A change heard from the feed.
    enum Change: Equatable {
        /// `subject` is revoked, until at least `until`.
        case revoked(String, until: Date)
        /// `subject` is not revoked any more (a user enabled again).
        case restored(String)
        /// The listener (re)started: notices may have been lost.
        case restarted

        /// The change a notice's key announces: `+` or `-` and the subject; a revoked subject kept until `until`.
        init(notice key: String, until: Date) {
            if key.hasPrefix("-") {
                self = .restored(String(key.dropFirst()))
            } else {
                self = .revoked(String(key.dropFirst()), until: until)
            }
        }
    }

    /// A row of `oauth_sso_revocations`.
    struct Row: Equatable, Sendable {
        var subject: String
        var revoked: Bool
        var changedAt: Date
        var expiresAt: Date

        init(subject: String, revoked: Bool, changedAt: Date, expiresAt: Date) {
            self.subject = subject
            self.revoked = revoked
            self.changedAt = changedAt
            self.expiresAt = expiresAt
        }

        init(row: PostgresRow) throws {
            self.init(
                subject: try row.decode(String.self, at: 0), revoked: try row.decode(Bool.self, at: 1),
                changedAt: try row.decode(Date.self, at: 2), expiresAt: try row.decode(Date.self, at: 3))
        }
    }

    /// A read of the rows changed since `since` (all of them when nil), begun at `startedAt` (`wallTime` by the
    /// server's clock).
    struct Read: Sendable {
        let since: Date?
        let startedAt: ContinuousClock.Instant
        let wallTime: Date
        let epoch: UInt64
        let restarts: Int
        let query: PostgresQuery
    }

    /// What the list says of a session.
    enum Verdict: Equatable {
        /// Not revoked as of a read younger than the staleness bound, and no notice since said otherwise.
        case live
        /// Revoked (its session ended, or its user is disabled).
        case revoked
        /// The list cannot tell: read the session.
        case unknown
    }

    /// How far before the latest change already read the next read starts: a transaction that stamped its change
    /// up to this long before it committed is still read (and its notice, at commit, is the main path anyway).
    static let overlap: TimeInterval = 60

    let staleness: Duration
    let capacity: Int
    /// Revoked subjects and until when they matter.
    private(set) var revoked: [String: Date] = [:]
    /// When the latest read began; nil: none since the listener (re)started or the list overflowed.
    private var readAt: ContinuousClock.Instant?
    /// The latest `changed_at` read.
    private var watermark: Date?
    private var reading = false
    /// Moved by every notice: a read that began before one does not undo it.
    private var epoch: UInt64 = 0
    /// How many times the listener restarted: a read that began before a restart does not make the list vouch.
    private var restarts = 0
    /// The table held more than `capacity` subjects at the latest read.
    private(set) var overflowed = false

    init(staleness: Duration, capacity: Int) {
        precondition(capacity > 0)
        self.staleness = staleness
        self.capacity = capacity
    }

    private static let sessionPrefix = Array("session:".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The subject of the session whose row is keyed by `hash`.
    static func session(_ hash: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: sessionPrefix.count + hash.count * 2) { buffer in
            var index = 0
            for byte in sessionPrefix {
                buffer[index] = byte
                index += 1
            }
            for byte in hash {
                buffer[index] = hexDigits[Int(byte >> 4)]
                buffer[index + 1] = hexDigits[Int(byte & 15)]
                index += 2
            }
            return index
        }
    }

    /// A read when the list is older than half the staleness bound (or was never read) and none is under way.
    mutating func dueRead(at now: ContinuousClock.Instant, wallNow: Date) -> Read? {
        guard !reading else { return nil }
        if let readAt, now - readAt < staleness / 2 { return nil }
        reading = true
        let since = watermark.map { $0.addingTimeInterval(-Self.overlap) }
        let query = PostgresQuery(
            """
            SELECT subject, revoked, changed_at, expires_at FROM oauth_sso_revocations
            WHERE changed_at >= $1 AND expires_at > $2 LIMIT $3
            """, [since ?? Date(timeIntervalSince1970: 0), wallNow, capacity + 1])
        return Read(
            since: since, startedAt: now, wallTime: wallNow, epoch: epoch, restarts: restarts, query: query)
    }

    /// Takes in the rows of `read`; a subject restored by a read that began before a notice stays as the notice left
    /// it.
    mutating func apply(_ rows: [Row], of read: Read, wallNow: Date) {
        reading = false
        guard rows.count <= capacity else { return overflow(readAt: read.startedAt) }
        for row in rows {
            if row.revoked {
                revoked[row.subject] = row.expiresAt
            } else if read.epoch == epoch {
                revoked[row.subject] = nil
            }
            watermark = max(watermark ?? row.changedAt, row.changedAt)
        }
        revoked = revoked.filter { $0.value > wallNow }
        guard revoked.count <= capacity else { return overflow(readAt: read.startedAt) }
        guard read.restarts == restarts else { return }
        overflowed = false
        readAt = read.startedAt
    }

    /// A read that failed: the next request reads again.
    mutating func failed(_ read: Read) {
        reading = false
    }

    /// Takes in a notice, or a restart of the listener.
    mutating func hear(_ change: Change) {
        epoch &+= 1
        switch change {
        case .revoked(let subject, let until):
            revoked[subject] = max(revoked[subject] ?? until, until)
            if revoked.count > capacity { overflow(readAt: nil) }
        case .restored(let subject):
            revoked[subject] = nil
        case .restarted:
            restarts += 1
            readAt = nil
            watermark = nil
        }
    }

    /// What the list says of the session `session` of `user` at `now`.
    func verdict(session: String, user: String, at now: ContinuousClock.Instant) -> Verdict {
        if revoked[session] != nil || revoked["user:" + user] != nil { return .revoked }
        guard !overflowed, let readAt, now - readAt < staleness else { return .unknown }
        return .live
    }

    /// Too many subjects to hold: forget them and vouch for nothing until a whole read fits again (one every half
    /// staleness bound, from `readAt`).
    private mutating func overflow(readAt: ContinuousClock.Instant?) {
        overflowed = true
        revoked = [:]
        watermark = nil
        self.readAt = readAt
    }
}
