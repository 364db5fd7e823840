import FoundationEssentials
import Logging
import MultiFactor
import Synchronization
public import TesseraCore
public import TesseraCrypto
public import TesseraJSON
import TesseraLoop
public import TesseraPostgres

/// Core services over the test database (`TESSERA_TEST_DATABASE_URL`, migrated here), a manual clock, cheap
/// scrypt and a recording e-mail sender: the set-up of every test that needs the domain layer.
public struct CoreHarness: Sendable {
    public let services: CoreServices
    public let clock: ManualWallClock
    public let mail: RecordingEmailSender
    public let database: PostgresClient

    /// The issuer of the harness's tokens.
    public static let issuer = "https://tessera.test"
    /// scrypt at a cost tests can afford.
    public static let cheapHasher = PasswordHasher(parameters: try! ScryptParameters(logN: 10, r: 8, p: 1))

    /// Runs `body` with fresh services after applying `migrations`; the database is shared, so tests use unique
    /// addresses and tenants.
    public static func run<T>(
        migrations: [Migration] = CoreMigrations.all, mailFails: Bool = false, _ body: (CoreHarness) async throws -> T
    ) async throws -> T {
        let url = try TestDatabaseURL.required()
        await HarnessSlots.shared.acquire()
        do {
            let value = try await run(url: url, migrations: migrations, mailFails: mailFails, body)
            await HarnessSlots.shared.release()
            return value
        } catch {
            await HarnessSlots.shared.release()
            throw error
        }
    }

    private static func run<T>(
        url: String, migrations: [Migration], mailFails: Bool, _ body: (CoreHarness) async throws -> T
    ) async throws -> T {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        // On the thread pool: the migrations wait for their advisory lock, which a test of the migrator may hold
        // while it waits for a transaction that another task ends, and Swift's cooperative pool has a thread a core.
        _ = try await group.loops[0].offload { try Migrator.migrate(url: url, migrations: migrations) }
        let database = PostgresClient(configuration: PostgresConfiguration(url: url), group: group)
        try await database.start(timeout: .seconds(5))
        return try await database.shuttingDown {
            // A whole second, so times survive the database's microsecond precision unchanged.
            let clock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
            let mail = RecordingEmailSender(fails: mailFails)
            // The e2e server shares this database and seals its signing keys under the dev master key: use it too.
            let masterKey = try ProcessInfo.processInfo.environment["TESSERA_TEST_MASTER_KEY_FILE"].map {
                try MasterKey.load(fromFile: $0)
            }
            let services = try CoreServices(
                database: database, issuer: issuer, keyRing: try SecretsKeyRing.make(masterKey: masterKey),
                email: mail, enrollments: StoredEnrollments(), clock: clock, hasher: cheapHasher)
            try await services.prepare(bootstrapAdminKey: nil, logger: Logger(label: "test"))
            return try await body(CoreHarness(services: services, clock: clock, mail: mail, database: database))
        }
    }

    /// Runs `body` with the services of a second server over the same database (its own connections, loop and
    /// change listener, caches serving values for at most `staleness`, sessions named `applicationName` when
    /// given): for tests of what a fleet shares.
    public func withSecondServer<T>(
        staleness: Duration = .seconds(60), applicationName: String? = nil, _ body: (CoreServices) async throws -> T
    ) async throws -> T {
        var url = try TestDatabaseURL.required()
        if let applicationName { url += (url.contains("?") ? "&" : "?") + "application_name=\(applicationName)" }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let database = PostgresClient(configuration: PostgresConfiguration(url: url), group: group)
        try await database.start(timeout: .seconds(5))
        return try await database.shuttingDown {
            let masterKey = try ProcessInfo.processInfo.environment["TESSERA_TEST_MASTER_KEY_FILE"].map {
                try MasterKey.load(fromFile: $0)
            }
            let services = try CoreServices(
                database: database, issuer: Self.issuer, keyRing: try SecretsKeyRing.make(masterKey: masterKey),
                email: mail, enrollments: StoredEnrollments(), clock: clock, hasher: Self.cheapHasher,
                changes: ChangeFeed(staleness: staleness))
            try await services.prepare(bootstrapAdminKey: nil, logger: Logger(label: "test-second-server"))
            return try await body(services)
        }
    }

    /// Checks a password of `tenantID` (the project's by default) the way a sign-in does.
    public func checkPassword(email: String, password: String, tenantID: String? = nil) async throws {
        let accounts = services.accounts
        try await database.withPool { pool in
            _ = try await accounts.checkPassword(pool, email: email, password: password, tenantID: tenantID)
        }
    }

    /// Checks an ID token of the project level as user methods do.
    public func verify(idToken: String, tenantID: String? = nil) async throws {
        let tokens = services.tokens
        try await database.withPool { pool in
            _ = try await tokens.verify(pool, idToken: idToken, tenantID: tenantID)
        }
    }

    /// Runs SQL on the test database, for set-up a public method cannot do.
    @discardableResult
    public func sql(_ text: String, _ parameters: [any PostgresEncodable & Sendable] = []) async throws -> Int {
        try await database.withPool { pool in try await pool.query(text, parameters).rowCount }
    }

    /// Drops this server's cached configuration of `tenantID`, for tests that change a tenant's row straight in the
    /// table (the admin methods announce their changes themselves).
    public func tenantChanged(_ tenantID: String) {
        services.changes.drop(ConfigStore.changes, key: tenantID)
    }

    /// Stores tenant `id` configured by `json` (a `Tenant` document, read as `tenants.create` reads it), straight in
    /// the table, for tests that need a tenant without the admin methods.
    public func insertTenant(_ id: String, _ json: JSONObject) async throws {
        let text = JSONValue.object(try Tenant(json: json, tenantId: id).json).description
        try await sql(
            """
            INSERT INTO tenants (tenant_id, config, created_at, updated_at) VALUES ($1, $2::text::jsonb, now(), now())
            """, [id, text])
    }

    /// A fresh address.
    public static func email(_ prefix: String = "core") -> String {
        "\(prefix)-\(UInt64.random(in: 0 ... .max))@example.com"
    }
}

/// Keeps every message; fails with `DELIVERY_FAILED` when told to.
public final class RecordingEmailSender: EmailSender {
    let fails: Bool
    private let messages = Mutex<[EmailMessage]>([])

    init(fails: Bool) { self.fails = fails }

    /// Records `message`, or fails.
    public func send(_ message: EmailMessage) async throws {
        guard !fails else { throw AuthError(.deliveryFailed, "the test webhook is down") }
        messages.withLock { $0.append(message) }
    }

    /// The messages sent so far.
    public var sent: [EmailMessage] { messages.withLock { $0 } }
}

/// The reason `body` fails with, or nil when it succeeds; an error that is not an ``AuthError`` is rethrown, so the
/// test fails with it.
public func reason(_ body: () async throws -> Void) async throws -> AuthReason? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        return error.reason
    }
}

/// The error `body` fails with, or nil when it succeeds; other errors are rethrown.
public func authError(_ body: () async throws -> Void) async throws -> AuthError? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        return error
    }
}
