import FoundationEssentials
import Logging
import Synchronization
import Testing
import TesseraCore
import TesseraCrypto
import TesseraLoop
import TesseraPostgres

/// Core services over the test database (`TESSERA_TEST_DATABASE_URL`, migrated here), a manual clock, cheap
/// scrypt and a recording e-mail sender.
struct CoreHarness {
    let services: CoreServices
    let clock: ManualWallClock
    let mail: RecordingEmailSender
    let database: PostgresClient

    static let issuer = "https://tessera.test"
    static let cheapHasher = PasswordHasher(parameters: try! ScryptParameters(logN: 10, r: 8, p: 1))

    /// Runs `body` with fresh services; the database is shared, so tests use unique addresses and tenants.
    static func run<T>(mailFails: Bool = false, _ body: (CoreHarness) async throws -> T) async throws -> T {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"], !url.isEmpty else {
            Issue.record("TESSERA_TEST_DATABASE_URL is not set: run the tests with `make test`")
            throw CancellationError()
        }
        _ = try Migrator.migrate(url: url, migrations: CoreMigrations.all)
        let group = try EventLoopGroup(loopCount: 1)
        let database = PostgresClient(configuration: PostgresConfiguration(url: url), group: group)
        try await database.start(timeout: .seconds(5))
        defer { group.shutdown() }
        // A whole second, so times survive the database's microsecond precision unchanged.
        let clock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        let mail = RecordingEmailSender(fails: mailFails)
        // The e2e server shares this database and seals its signing keys under the dev master key: use it too.
        let masterKey = try ProcessInfo.processInfo.environment["TESSERA_TEST_MASTER_KEY_FILE"].map {
            try MasterKey.load(fromFile: $0)
        }
        let services = try CoreServices(
            database: database, issuer: issuer, keyRing: try SecretsKeyRing.make(masterKey: masterKey), email: mail,
            clock: clock, hasher: cheapHasher)
        try await services.prepare(bootstrapAdminKey: nil, logger: Logger(label: "test"))
        let harness = CoreHarness(services: services, clock: clock, mail: mail, database: database)
        do {
            let value = try await body(harness)
            await database.shutdown()
            return value
        } catch {
            await database.shutdown()
            throw error
        }
    }

    /// A fresh address.
    static func email(_ prefix: String = "core") -> String {
        "\(prefix)-\(UInt64.random(in: 0 ... .max))@example.com"
    }
}

/// Keeps every message; fails with `DELIVERY_FAILED` when told to.
final class RecordingEmailSender: EmailSender {
    let fails: Bool
    private let messages = Mutex<[EmailMessage]>([])

    init(fails: Bool) { self.fails = fails }

    func send(_ message: EmailMessage) async throws {
        guard !fails else { throw AuthError(.deliveryFailed, "the test webhook is down") }
        messages.withLock { $0.append(message) }
    }

    var sent: [EmailMessage] { messages.withLock { $0 } }
}

/// The reason `body` fails with, or nil when it succeeds.
func reason(_ body: () async throws -> Void) async -> AuthReason? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        return error.reason
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
