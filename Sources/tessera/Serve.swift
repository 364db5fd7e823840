import ArgumentParser
import FactorServices
import FoundationEssentials
import Logging
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraLoop
import TesseraMetrics
import TesseraPostgres
import TesseraServer

#if canImport(Glibc)
import Glibc
#endif

/// `tessera serve`: runs both listeners until SIGTERM or SIGINT, then stops gracefully (API §1).
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (all listeners).",
        discussion: """
            Every option may also come from the environment variable named in its help. TESSERA_LOG_LEVEL sets \
            the log level (trace, debug, info, notice, warning, error, critical; default info).
            """
    )

    @Option(help: "libpq connection string or URI (TESSERA_DATABASE_URL). Required.")
    var databaseURL: String?
    @Option(help: "Public listener HOST:PORT or none (TESSERA_LISTEN; default 127.0.0.1:8080).")
    var listen: String?
    @Option(help: "Admin listener HOST:PORT or none (TESSERA_ADMIN_LISTEN; default 127.0.0.1:8081).")
    var adminListen: String?
    @Option(help: "Issuer URL of tokens and OAuth responses (TESSERA_ISSUER; default http://127.0.0.1:8080).")
    var issuer: String?
    @Option(help: "Event loops serving connections (TESSERA_LOOPS; default the number of cores).")
    var loops: String?
    @Option(help: "A project-scope admin key ensured at start (TESSERA_BOOTSTRAP_ADMIN_KEY).")
    var bootstrapAdminKey: String?
    @Option(help: "File with the 32-byte master key (TESSERA_MASTER_KEY_FILE).")
    var masterKeyFile: String?
    @Option(
        help: """
            File with a master key of before a rotation, which still opens what it sealed but seals nothing; \
            repeatable (TESSERA_PREVIOUS_MASTER_KEY_FILES, comma-separated).
            """)
    var previousMasterKeyFile: [String] = []
    @Option(help: "Where SMS are delivered (TESSERA_SMS_WEBHOOK_URL; default: the log).")
    var smsWebhookURL: String?
    @Option(help: "Where e-mail is delivered (TESSERA_EMAIL_WEBHOOK_URL; default: the log).")
    var emailWebhookURL: String?
    @Option(help: "enforced or disabled-for-testing (TESSERA_APP_VERIFICATION; default enforced).")
    var appVerification: String?
    @Option(help: "A peer CIDR whose forwarding headers are believed; repeatable (TESSERA_TRUSTED_PROXIES).")
    var trustedProxy: [String] = []
    @Flag(help: "Do not apply pending migrations at start.")
    var noMigrate = false
    @Option(
        help:
            "A built-in factor (phone, totp) that runs as a factor service instead; repeatable (TESSERA_REMOTE_FACTORS)."
    )
    var remoteFactor: [String] = []
    @Option(help: "The most connections each listener keeps open at once (TESSERA_MAX_CONNECTIONS; default 10000).")
    var maxConnections: String?
    @Option(
        help: """
            The most connections one client address keeps open on each listener; trusted proxies are exempt \
            (TESSERA_MAX_CONNECTIONS_PER_CLIENT; default 256).
            """)
    var maxConnectionsPerClient: String?
    @Option(
        help: """
            The passwords one client address may check or set a minute, after trusted proxies \
            (TESSERA_MAX_PASSWORD_ATTEMPTS_PER_CLIENT; default 600).
            """)
    var maxPasswordAttemptsPerClient: String?
    @Flag(
        help: """
            Allow running without --master-key-file on an issuer that is not loopback (TESSERA_DEV=1): secrets are \
            then sealed with a public key and codes written to the log. Never in production.
            """)
    var dev = false
    @Option(
        help: """
            Seconds between two passes of the janitor, which deletes expired rows, one server of a fleet at a time \
            (TESSERA_RETENTION_INTERVAL; default 60; 0 = off).
            """)
    var retentionInterval: String?

    func run() async throws {
        var options = ServerConfiguration.Options()
        options.databaseURL = databaseURL
        options.listen = listen
        options.adminListen = adminListen
        options.issuer = issuer
        options.loops = loops
        options.bootstrapAdminKey = bootstrapAdminKey
        options.masterKeyFile = masterKeyFile
        options.previousMasterKeyFiles = previousMasterKeyFile
        options.smsWebhookURL = smsWebhookURL
        options.emailWebhookURL = emailWebhookURL
        options.appVerification = appVerification
        options.trustedProxies = trustedProxy
        options.noMigrate = noMigrate
        options.remoteFactors = remoteFactor
        options.maxConnections = maxConnections
        options.maxConnectionsPerClient = maxConnectionsPerClient
        options.dev = dev
        options.retentionInterval = retentionInterval
        options.maxPasswordAttemptsPerClient = maxPasswordAttemptsPerClient
        let environment = ProcessInfo.processInfo.environment
        let configuration = try ServerConfiguration.resolve(
            options, environment: environment, processorCount: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let masterKey = try configuration.masterKeyFile.map { try MasterKey.load(fromFile: $0) }
        let keyRing = try SecretsKeyRing.make(
            masterKey: masterKey, previous: try configuration.previousMasterKeyFiles.map(MasterKey.load(fromFile:)))
        let logger = makeLogger(environment: environment)
        if configuration.migrateAtStart {
            let applied = try Migrator.migrate(url: configuration.databaseURL, migrations: SchemaMigrations.all)
            for migration in applied { logger.info("applied migration \(migration.label)") }
        }

        // scrypt is CPU-bound: one pool thread per core, and at least libuv's 4, since name lookups share the pool.
        // The hashing queue then admits 4 jobs per thread. An operator's UV_THREADPOOL_SIZE wins.
        setenv("UV_THREADPOOL_SIZE", String(max(4, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))), 0)
        let group = try EventLoopGroup(loopCount: configuration.loops)
        let database = PostgresClient(
            configuration: PostgresConfiguration(url: configuration.databaseURL), group: group)
        let metrics = MetricsRegistry()
        let webhook = try WebhookClient(client: HTTPClient(group: group))
        let email: any EmailSender =
            configuration.emailWebhookURL.map { WebhookEmailSender(webhook: webhook, url: $0, logger: logger) }
            ?? LogEmailSender(logger: logger, revealsLinks: masterKey == nil)
        let sms: any SMSSender =
            configuration.smsWebhookURL.map { WebhookSMSSender(webhook: webhook, url: $0, logger: logger) }
            ?? LogSMSSender(logger: logger, revealsCodes: masterKey == nil)
        let services = try CoreServices(
            database: database, issuer: configuration.issuer, keyRing: keyRing,
            email: CountingEmailSender(wrapping: email, registry: metrics), enrollments: StoredEnrollments(),
            passwordsPerClientMinute: configuration.maxPasswordAttemptsPerClient)
        let factorServiceClient = try HTTPClient(
            group: group,
            configuration: HTTPClientConfiguration(maxResponseBodyBytes: FactorServiceClient.maxResponseBytes))
        let server = TesseraServer(
            configuration: configuration, group: group, database: database, services: services,
            sms: CountingSMSSender(wrapping: sms, registry: metrics), factorServiceClient: factorServiceClient,
            metrics: metrics, logger: logger)
        do {
            try await database.start(timeout: .seconds(10))
            try await services.prepare(bootstrapAdminKey: configuration.bootstrapAdminKey, logger: logger)
            try await server.start()
        } catch {
            await database.shutdown()
            group.shutdown()
            throw (error as? PostgresError).map { ValidationError($0.message) } ?? error
        }
        if let allocator = MemoryAllocator.mimalloc {
            logger.info("memory allocator: \(allocator)")
        } else {
            logger.warning("memory allocator: glibc's malloc, not mimalloc (docs/operations.md, \"Memory allocator\")")
        }
        if let masterKey, keyRing.keyIDs.count > 1 {
            let previous = keyRing.keyIDs.filter { $0 != masterKey.keyID }.joined(separator: ", ")
            logger.info("master key \(masterKey.keyID) seals; previous master keys \(previous) only open")
        }
        if masterKey == nil {
            logger.warning(
                "no --master-key-file: development mode; secrets at rest are sealed with a public development key")
        }
        let signal = await ShutdownSignal.wait(on: group.loops[0])
        logger.info("received \(signal), stopping: finishing requests in flight for up to 10 s")
        await server.shutdown(gracePeriod: .seconds(10))
        await database.shutdown()
        group.shutdown()
        logger.info("stopped")
    }
}

/// The process's logger: swift-log to stderr through ``LineLogHandler`` (`StreamLogHandler`'s format, for less), level
/// from `TESSERA_LOG_LEVEL` (default `info`); every line logged while a request is handled carries its `request-id`
/// (``RequestScope``).
func makeLogger(environment: [String: String]) -> Logger {
    LoggingSystem.bootstrap(
        { label, metadataProvider in
            var handler = LineLogHandler(label: label, metadataProvider: metadataProvider)
            handler.logLevel = environment["TESSERA_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }, metadataProvider: RequestScope.metadataProvider)
    return Logger(label: "tessera")
}
