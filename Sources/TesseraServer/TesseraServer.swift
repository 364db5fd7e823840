import FactorServices
public import Logging
import MultiFactor
import PhoneCodes
import PhoneSignIn
import Synchronization
public import TesseraCore
public import TesseraHTTP
public import TesseraLoop
public import TesseraMetrics
import TesseraOAuth
public import TesseraPostgres

/// The running server: the public and the admin listener on one event loop group, each with its routes and
/// its JSON-RPC method table, over one database client and the core services (DESIGN §1).
public final class TesseraServer: Sendable {
    /// What the server was started with.
    public let configuration: ServerConfiguration
    /// The metrics both listeners record and the admin listener serves at `/metrics`.
    public let metrics: MetricsRegistry
    /// What the public listener serves (also when it is off: in-process tests drive it with request values).
    let publicRouter: HTTPRouter
    /// What the admin listener serves.
    let adminRouter: HTTPRouter
    private let publicServer: HTTPServer?
    private let adminServer: HTTPServer?
    private let multiFactor: MultiFactorRouter
    /// Deletes expired rows every ``ServerConfiguration/retentionInterval`` seconds (one server of a fleet at a time).
    public let janitor: Janitor
    private let janitorLoop: EventLoop
    private let janitorTask = Mutex<Task<Void, Never>?>(nil)
    /// How late each event loop runs what falls due (`tessera_event_loop_lag_seconds`), while the server runs.
    private let loopLag: LoopLagMonitor

    /// Prepares both listeners on `group`; nothing is bound until ``start()``. `database` must be started by
    /// the caller; the server reads its readiness for `/readyz`. SMS codes go through `sms`; both listeners record
    /// into `metrics`, which the caller may share with its senders. Registered factor services are called through
    /// `factorServiceClient`, whose answers must be limited to ``FactorServiceClient/maxResponseBytes``.
    public init(
        configuration: ServerConfiguration, group: EventLoopGroup, database: PostgresClient, services: CoreServices,
        sms: any SMSSender, factorServiceClient: HTTPClient, metrics: MetricsRegistry, logger: Logger,
        http: HTTPServerConfiguration = HTTPServerConfiguration()
    ) {
        self.configuration = configuration
        self.metrics = metrics
        janitor = Janitor(database: database, clock: services.clock, metrics: metrics, logger: logger)
        janitorLoop = group.loops[0]
        loopLag = LoopLagMonitor(loops: group.loops, metrics: metrics, logger: logger)
        var http = http
        http.maxConnections = configuration.maxConnections
        http.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        http.connectionLimitExemptions = configuration.trustedProxies
        let instruments = Instruments(registry: metrics, database: database, changes: services.changes)
        let phoneCodes = SMSCodeIssuer(
            sender: sms,
            appVerification: configuration.appVerification == .enforced
                ? .enforced(AcceptingAppVerifier()) : .disabledForTesting)
        let factorHealth = FactorServiceHealth(metrics: metrics)
        let registeredFactors = RegisteredFactorServices(
            keyRing: services.keyRing, http: factorServiceClient, health: factorHealth, logger: logger)
        let directory = FactorDirectory(
            builtIn: StandardFactors.registry(phoneCodes: phoneCodes, remote: configuration.remoteFactors),
            source: registeredFactors)
        let multiFactor = MultiFactorRouter(services: services, directory: directory, logger: logger, metrics: metrics)
        self.multiFactor = multiFactor
        let factorServices = FactorServicesAdmin(
            services: services, registered: registeredFactors, directory: directory)
        let phoneSignIn = PhoneSignIn(services: services, router: multiFactor, codes: phoneCodes)
        let clients = OAuthClients.cache(services.changes, database: database)
        let publicRouter = Routes(
            listener: "public", instruments: instruments, logger: logger, trustedProxies: configuration.trustedProxies
        ).publicRouter(
            methods: PublicMethods.table(services, router: multiFactor, phoneSignIn: phoneSignIn),
            services: services, factors: directory, clients: clients,
            login: OAuthLogin(
                services: services, router: multiFactor, issuer: configuration.issuer,
                trustedProxies: configuration.trustedProxies, clients: clients, logger: logger,
                phoneSignIn: phoneSignIn))
        let adminRouter = Routes(
            listener: "admin", instruments: instruments, logger: logger, trustedProxies: configuration.trustedProxies
        ).adminRouter(
            methods: AdminMethods.table(services, factorServices: factorServices), isReady: { database.isReady },
            factorServices: factorHealth, metrics: metrics)
        self.publicRouter = publicRouter
        self.adminRouter = adminRouter
        publicServer = configuration.publicListen.map { address in
            HTTPServer(
                name: "public", loops: group.loops, host: address.host, port: address.port, configuration: http,
                router: publicRouter, logger: logger)
        }
        adminServer = configuration.adminListen.map { address in
            HTTPServer(
                name: "admin", loops: group.loops, host: address.host, port: address.port, configuration: http,
                router: adminRouter, logger: logger)
        }
    }

    /// Binds the enabled listeners (one socket per loop each) and starts serving. Throws when an address
    /// cannot be bound; nothing stays bound then.
    public func start() async throws {
        // Read the registered factor services once, so `/readyz` and the metrics list them from the start; a
        // database that is not answering yet is no reason not to start (they are read again on first use).
        _ = try? await multiFactor.factors()
        do {
            try await publicServer?.start()
            try await adminServer?.start()
        } catch {
            await shutdown(gracePeriod: .zero)
            throw error
        }
        loopLag.start()
        if configuration.retentionInterval > 0 {
            let task = janitor.start(every: .seconds(configuration.retentionInterval), on: janitorLoop)
            janitorTask.withLock { $0 = task }
        }
    }

    /// Stops accepting, lets requests in flight finish for up to `gracePeriod`, then closes what is left.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        janitorTask.withLock { task in
            task?.cancel()
            task = nil
        }
        loopLag.stop()
        async let publicDone: Void? = publicServer?.shutdown(gracePeriod: gracePeriod)
        async let adminDone: Void? = adminServer?.shutdown(gracePeriod: gracePeriod)
        _ = await (publicDone, adminDone)
    }
}
