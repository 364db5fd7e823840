import FoundationEssentials
import TesseraCore
import TesseraCrypto
import Testing

@testable import TesseraOAuth

/// The session cookie sealed with its sign-in, and the revocation list that lets an SSO authorization trust it
/// (``SessionCookie``, ``SSORevocationList``): fed events, asked verdicts.
struct SSORevocationListTests {
    static let start = ContinuousClock.now
    static let wallStart = Date(timeIntervalSince1970: 1_800_000_000)
    static let session = SSORevocationList.session([UInt8](repeating: 0xAB, count: 32))

    static func list(capacity: Int = 10) -> SSORevocationList {
        SSORevocationList(staleness: .seconds(5), capacity: capacity)
    }

    static func row(_ subject: String, revoked: Bool = true, changedAt: TimeInterval = 0) -> SSORevocationList.Row {
        SSORevocationList.Row(
            subject: subject, revoked: revoked, changedAt: wallStart.addingTimeInterval(changedAt),
            expiresAt: wallStart.addingTimeInterval(3600))
    }

    /// The list after a first read of `rows` at the start.
    static func read(_ rows: [SSORevocationList.Row], capacity: Int = 10) throws -> SSORevocationList {
        var list = list(capacity: capacity)
        let readDue = list.dueRead(at: start, wallNow: wallStart)
        let read = try #require(readDue)
        list.apply(rows, of: read, wallNow: wallStart)
        return list
    }

    @Test func aListVouchesOnlyOnceReadAndOnlyWithinTheStalenessBound() throws {
        var list = Self.list()
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start) == .unknown)
        let readDue = list.dueRead(at: Self.start, wallNow: Self.wallStart)
        let read = try #require(readDue)
        #expect(read.since == nil)
        // One read at a time: others read the session meanwhile.
        let noRead = list.dueRead(at: Self.start, wallNow: Self.wallStart)
        #expect(noRead == nil)
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start) == .unknown)
        list.apply([], of: read, wallNow: Self.wallStart)
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start) == .live)
        // Read again from half the bound on; unknown from the bound on.
        let notYet = list.dueRead(at: Self.start + .seconds(2), wallNow: Self.wallStart)
        #expect(notYet == nil)
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start + .seconds(4.9)) == .live)
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start + .seconds(5)) == .unknown)
        let nextDue = list.dueRead(at: Self.start + .seconds(3), wallNow: Self.wallStart)
        let next = try #require(nextDue)
        // A failed read lets the next request read.
        list.failed(next)
        let aRead = list.dueRead(at: Self.start + .seconds(3), wallNow: Self.wallStart)
        #expect(aRead != nil)
    }

    @Test func revokedSessionsAndDisabledUsersAreRevokedUntilTheirRowsExpire() throws {
        var list = try Self.read([Self.row(Self.session), Self.row("user:u2")])
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start) == .revoked)
        #expect(list.verdict(session: "session:00", user: "u2", at: Self.start) == .revoked)
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start) == .live)
        // Known revocations hold even when the list is too old to vouch for anything.
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start + .seconds(60)) == .revoked)
        let readDue = list.dueRead(at: Self.start + .seconds(3), wallNow: Self.wallStart)
        let read = try #require(readDue)
        list.apply([], of: read, wallNow: Self.wallStart.addingTimeInterval(3601))
        #expect(list.revoked.isEmpty)
    }

    @Test func readsAfterTheFirstStartAnOverlapBeforeTheLatestChange() throws {
        var list = try Self.read([Self.row("user:u2", changedAt: 100), Self.row(Self.session, changedAt: 40)])
        let readDue = list.dueRead(at: Self.start + .seconds(3), wallNow: Self.wallStart)
        let read = try #require(readDue)
        #expect(read.since == Self.wallStart.addingTimeInterval(100 - SSORevocationList.overlap))
    }

    @Test func noticesRevokeAndRestoreAtOnce() throws {
        var list = try Self.read([])
        list.hear(SSORevocationList.Change(notice: "+" + Self.session, until: Self.wallStart.addingTimeInterval(60)))
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start) == .revoked)
        list.hear(SSORevocationList.Change(notice: "+user:u1", until: Self.wallStart.addingTimeInterval(60)))
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start) == .revoked)
        list.hear(SSORevocationList.Change(notice: "-user:u1", until: Self.wallStart))
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start) == .live)
    }

    @Test func aReadThatBeganBeforeANoticeDoesNotUndoIt() throws {
        var list = try Self.read([])
        let readDue = list.dueRead(at: Self.start + .seconds(3), wallNow: Self.wallStart)
        let read = try #require(readDue)
        list.hear(.revoked("user:u1", until: Self.wallStart.addingTimeInterval(60)))
        // The read's snapshot still had the user enabled.
        list.apply([Self.row("user:u1", revoked: false)], of: read, wallNow: Self.wallStart)
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start + .seconds(3)) == .revoked)
    }

    @Test func aRestartedListenerMakesTheListReadEverythingAgainBeforeItVouches() throws {
        var list = try Self.read([Self.row(Self.session, changedAt: 10)])
        list.hear(.restarted)
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start) == .unknown)
        // What it knew stays known.
        #expect(list.verdict(session: Self.session, user: "u1", at: Self.start) == .revoked)
        let readDue = list.dueRead(at: Self.start, wallNow: Self.wallStart)
        let read = try #require(readDue)
        #expect(read.since == nil)
        // A read that began before another restart does not make the list vouch when it ends.
        list.hear(.restarted)
        list.apply([], of: read, wallNow: Self.wallStart)
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start) == .unknown)
        let againDue = list.dueRead(at: Self.start, wallNow: Self.wallStart)
        let again = try #require(againDue)
        list.apply([], of: again, wallNow: Self.wallStart)
        #expect(list.verdict(session: "session:00", user: "u1", at: Self.start) == .live)
    }

    @Test func anOverflowingListVouchesForNothingUntilAWholeReadFits() throws {
        let rows = (0..<3).map { Self.row("session:\($0)") }
        var list = try Self.read(rows, capacity: 2)
        #expect(list.overflowed)
        #expect(list.revoked.isEmpty)
        #expect(list.verdict(session: "session:9", user: "u1", at: Self.start) == .unknown)
        // Not read again at once: every half bound.
        let noRead = list.dueRead(at: Self.start + .seconds(1), wallNow: Self.wallStart)
        #expect(noRead == nil)
        let readDue = list.dueRead(at: Self.start + .seconds(3), wallNow: Self.wallStart)
        let read = try #require(readDue)
        #expect(read.since == nil)
        list.apply(Array(rows.prefix(2)), of: read, wallNow: Self.wallStart)
        #expect(!list.overflowed)
        #expect(list.verdict(session: "session:9", user: "u1", at: Self.start + .seconds(3)) == .live)
        // Notices past the capacity overflow it too.
        list.hear(.revoked("session:7", until: Self.wallStart.addingTimeInterval(60)))
        #expect(list.overflowed)
        #expect(list.verdict(session: "session:9", user: "u1", at: Self.start + .seconds(3)) == .unknown)
    }

    @Test func aSessionsSubjectIsTheHexOfItsHash() {
        #expect(SSORevocationList.session([0x00, 0x0F, 0xA0, 0xFF]) == "session:000fa0ff")
    }

    // MARK: - The cookie

    static func cookie() throws -> SessionCookie {
        SessionCookie(
            secret: try SecureRandom.token(byteCount: 32),
            family: SignInFamily(
                familyID: try SecureRandom.token(byteCount: 16), userID: "user-not-of-the-server's-form",
                tenantID: nil, authTime: wallStart, provider: "password", secondFactor: "totp",
                secondFactorID: try SecureRandom.token(byteCount: 16)),
            enrollmentRequired: false, expiresAt: wallStart.addingTimeInterval(BrowserSessions.lifetime))
    }

    static func keys() throws -> KeyRing {
        try KeyRing(current: try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32))))
            .derived(purpose: "browser session")
    }

    @Test func aSealedCookieOpensAsSealedWithItsSecretsHash() throws {
        let keys = try Self.keys()
        var cookie = try Self.cookie()
        #expect(SessionCookie.open(try cookie.sealed(keys: keys), keys: keys) == cookie)
        cookie.family = SignInFamily(
            familyID: cookie.family.familyID, userID: cookie.family.userID, tenantID: "tenant-1",
            authTime: cookie.family.authTime, provider: "phone", secondFactor: nil, secondFactorID: nil)
        cookie.enrollmentRequired = true
        let sealed = try cookie.sealed(keys: keys)
        #expect(SessionCookie.open(sealed, keys: keys) == cookie)
        #expect(try SessionCookie.hash(ofCookie: sealed, keys: keys) == SecretDigest.of(cookie.secret))
        // A cookie of the bare secret (set before sessions were sealed) keys its row by itself.
        #expect(try SessionCookie.hash(ofCookie: cookie.secret, keys: keys) == SecretDigest.of(cookie.secret))
    }

    @Test func aTamperedTruncatedOrForeignCookieDoesNotOpen() throws {
        let ring = try KeyRing(current: try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32))))
        let keys = try ring.derived(purpose: "browser session")
        let cookie = try Self.cookie()
        let sealed = try cookie.sealed(keys: keys)
        var bytes = try Base64URL.decode(sealed)
        bytes[bytes.count / 2] ^= 0x01
        // The same bytes sealed for another purpose, under the master key itself, or under another master key.
        let otherPurpose = try cookie.sealed(keys: try ring.derived(purpose: "authorization code"))
        let underMasterKey = try cookie.sealed(keys: ring)
        let foreign = try cookie.sealed(keys: try Self.keys())
        for broken in [
            Base64URL.encode(bytes), String(sealed.dropLast(4)), String(sealed.prefix(30)), sealed + "A",
            String(repeating: "A", count: 2000), "", cookie.secret, otherPurpose, underMasterKey, foreign,
        ] {
            #expect(SessionCookie.open(broken, keys: keys) == nil)
        }
        #expect(SessionCookie.open(sealed, keys: keys) == cookie)
    }
}
