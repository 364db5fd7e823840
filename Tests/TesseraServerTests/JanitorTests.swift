import FoundationEssentials
import Logging
import TesseraCore
import TesseraCrypto
import TesseraPostgres
import TesseraServer
import TesseraTestSupport
import Testing

/// The janitor over the real retention rules. The test database is shared with other tests, so the rows here live
/// in 2001–2003 and the janitor's clock shows 2002: only these rows are old enough for it. (`rate_limits`, which
/// requests also prune as they go, would lose such rows to other tests, so the rows checked are in tables only the
/// janitor sweeps.)
@Suite(.serialized) struct JanitorTests {
    static let past = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01
    static let now = Date(timeIntervalSince1970: 1_009_843_200)  // 2002-01-01
    static let future = Date(timeIntervalSince1970: 1_041_379_200)  // 2003-01-01

    static func janitor(_ core: CoreHarness, batchSize: Int = 500) -> Janitor {
        Janitor(
            database: core.database, clock: ManualWallClock(now), batchSize: batchSize,
            logger: Logger(label: "janitor-test"))
    }

    @Test func aPassDeletesWhatExpiredAndKeepsTheRest() async throws {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            let tag = "janitor-\(UInt32.random(in: 0...UInt32.max))"
            let user = try await core.services.usersAdmin.create(
                tenantID: nil, UserChanges(email: CoreHarness.email("janitor")),
                actor: AuditLog.Actor(
                    principal: AdminPrincipal(keyID: "janitor", scope: .project), method: "users.create",
                    requestID: "r"))
            for (suffix, time) in [("old", Self.past), ("live", Self.future)] {
                try await core.sql(
                    """
                    INSERT INTO phone_sign_in_sessions (handle_hash, phone_number, code_digest, expires_at)
                    VALUES ($1, '+15555550100', $2, $3)
                    """, [Array("\(tag)-\(suffix)".utf8), [1, 2, 3] as [UInt8], time])
                try await core.sql(
                    """
                    INSERT INTO mfa_pending_credentials (handle_hash, user_id, auth_time, sign_in_provider, expires_at)
                    VALUES ($1, $2, $3, 'password', $3)
                    """, [Array("\(tag)-\(suffix)".utf8), user.localId, time])
                try await core.sql(
                    "INSERT INTO oauth_spent_codes (code_hash, expires_at) VALUES ($1, $2)",
                    [Array("\(tag)-\(suffix)".utf8), time])
            }
            // Families: one without refresh tokens, created long ago (goes); one whose refresh token is still valid
            // (stays, with its token); one whose only token expired (the token goes, then the family).
            for (family, created, tokenExpiry) in [
                ("\(tag)-bare", Self.past, nil), ("\(tag)-live", Self.past, Self.future),
                ("\(tag)-spent", Self.past, Self.past) as (String, Date, Date?),
            ] {
                try await core.sql(
                    """
                    INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, created_at)
                    VALUES ($1, $2, $3, 'password', $3)
                    """, [family, user.localId, created])
                if let tokenExpiry {
                    try await core.sql(
                        "INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)",
                        [Array(family.utf8), family, created, tokenExpiry])
                }
            }
            // Grants whose refresh token is in their own row: still valid (stays), expired less than a day ago (stays:
            // the access tokens it issued may still be introspected), expired long ago (goes).
            for (family, tokenExpiry) in [
                ("\(tag)-grant-live", Self.future), ("\(tag)-grant-recent", Self.now.addingTimeInterval(-12 * 3600)),
                ("\(tag)-grant-spent", Self.past),
            ] {
                try await core.sql(
                    """
                    INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, created_at, client_id,
                        scope, refresh_token_hash, refresh_issued_at, refresh_expires_at)
                    VALUES ($1, $2, $3, 'password', $3, 'janitor-client', 'openid', $4, $3, $5)
                    """, [family, user.localId, Self.past, Array(family.utf8), tokenExpiry])
            }

            let pass = try await Self.janitor(core, batchSize: 1).runPass()
            #expect(pass.ranAlone)
            #expect(Set(pass.deleted.keys) == Set(SchemaRetention.all.map(\.table)))
            for table in ["phone_sign_in_sessions", "mfa_pending_credentials", "refresh_tokens", "token_families"] {
                #expect(pass.deleted[table, default: 0] >= 1, "\(table)")
            }
            for table in ["phone_sign_in_sessions", "oauth_spent_codes"] {
                let key = table == "oauth_spent_codes" ? "code_hash" : "handle_hash"
                #expect(
                    try await core.sql(
                        "SELECT 1 FROM \(table) WHERE \(key) = $1", [Array("\(tag)-live".utf8)]) == 1, "\(table)")
                #expect(
                    try await core.sql(
                        "SELECT 1 FROM \(table) WHERE \(key) = $1", [Array("\(tag)-old".utf8)]) == 0, "\(table)")
            }
            #expect(
                try await core.sql(
                    "SELECT 1 FROM token_families WHERE family_id LIKE $1 ORDER BY 1", ["\(tag)%"]) == 3)
            for family in ["live", "grant-live", "grant-recent"] {
                #expect(
                    try await core.sql("SELECT 1 FROM token_families WHERE family_id = $1", ["\(tag)-\(family)"]) == 1,
                    "\(family)")
            }
            #expect(
                try await core.sql("SELECT 1 FROM refresh_tokens WHERE family_id LIKE $1", ["\(tag)%"]) == 1)
            #expect(
                try await core.sql("SELECT 1 FROM mfa_pending_credentials WHERE user_id = $1", [user.localId]) == 1)
        }
    }

    @Test func aPassThatCannotDeleteEverythingSaysSo() async throws {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            let tag = "janitor-behind-\(UInt32.random(in: 0...UInt32.max))"
            let handles = (0..<3).map { Array("\(tag)-\($0)".utf8) }
            for handle in handles {
                try await core.sql(
                    """
                    INSERT INTO phone_sign_in_sessions (handle_hash, phone_number, code_digest, expires_at)
                    VALUES ($1, '+15555550100', $2, $3)
                    """, [handle, [1] as [UInt8], Self.past])
            }
            // Two batches of one row a table per pass: three expired rows take two passes.
            let janitor = Janitor(
                database: core.database, rules: SchemaRetention.all.filter { $0.table == "phone_sign_in_sessions" },
                clock: ManualWallClock(Self.now), batchSize: 1, batchesPerTable: 2,
                logger: Logger(label: "janitor-test"))
            let first = try await janitor.runPass()
            #expect(first.deleted["phone_sign_in_sessions"] == 2)
            #expect(!first.complete)
            let second = try await janitor.runPass()
            #expect(second.complete)
            for handle in handles {
                #expect(
                    try await core.sql("SELECT 1 FROM phone_sign_in_sessions WHERE handle_hash = $1", [handle]) == 0)
            }
        }
    }

    @Test func onlyOneServerSweepsAtATime() async throws {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            let tag = "janitor-lock-\(UInt32.random(in: 0...UInt32.max))"
            let handle = Array(tag.utf8)
            try await core.sql(
                """
                INSERT INTO phone_sign_in_sessions (handle_hash, phone_number, code_digest, expires_at)
                VALUES ($1, '+15555550100', $2, $3)
                """, [handle, [1] as [UInt8], Self.past])
            // Another server's janitor holds the lock for as long as its transaction runs.
            let pass = try await core.database.withPool { pool in
                try await pool.transaction { other in
                    try await other.query("SELECT pg_advisory_xact_lock($1)", [0x7465_7373_6a61_6e31])
                    return try await Self.janitor(core).runPass()
                }
            }
            #expect(!pass.ranAlone)
            #expect(pass.deleted.values.reduce(0, +) == 0)
            #expect(try await core.sql("SELECT 1 FROM phone_sign_in_sessions WHERE handle_hash = $1", [handle]) == 1)
            let free = try await Self.janitor(core).runPass()
            #expect(free.ranAlone)
            #expect(try await core.sql("SELECT 1 FROM phone_sign_in_sessions WHERE handle_hash = $1", [handle]) == 0)
        }
    }
}
