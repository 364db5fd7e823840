public import Logging
public import TesseraCrypto
public import TesseraPostgres

/// Every domain service of the core module, built once at start-up over one database and clock.
public struct CoreServices: Sendable {
    /// The database every service works on.
    public let database: PostgresClient
    /// Seals secrets at rest (signing keys, factor secrets).
    public let keyRing: KeyRing
    /// Seals authorization codes (DESIGN §4: short-lived values that only travel): keys derived from the master
    /// keys for that one purpose, so a code never opens as anything else and rotates with the master key.
    public let codeKeys: KeyRing
    /// Seals the session cookies of the login pages, the same way for that one purpose.
    public let sessionKeys: KeyRing
    /// Seals the envelopes of the OAuth grants' refresh tokens, the same way for that one purpose.
    public let refreshTokenKeys: KeyRing
    public let clock: any WallClock
    /// Fleet-wide change notices, which keep the caches of the token path fresh (clients, configuration, keys).
    public let changes: ChangeFeed
    public let configs: ConfigStore
    public let signingKeys: SigningKeys
    public let tokens: Tokens
    public let accounts: Accounts
    public let adminKeys: AdminKeys
    public let configAdmin: ConfigAdmin
    public let usersAdmin: UsersAdmin

    /// Builds the services. `keyRing` seals secrets at rest; `enrollments` is the multi-factor module's view of the
    /// users' enrolments; `hasher` sets the scrypt cost; `hashing` bounds the scrypt jobs of the whole server; a
    /// client address may check or set `passwordsPerClientMinute` passwords a minute.
    public init(
        database: PostgresClient, issuer: String, keyRing: KeyRing, email: any EmailSender,
        enrollments: any UserEnrollments,
        clock: any WallClock = SystemWallClock(), hasher: PasswordHasher = PasswordHasher(),
        changes: ChangeFeed = ChangeFeed(), hashing: PasswordHashingQueue = .forThreadPool(),
        passwordsPerClientMinute: Int = 600
    ) throws {
        self.database = database
        self.keyRing = keyRing
        codeKeys = try keyRing.derived(purpose: "authorization code")
        sessionKeys = try keyRing.derived(purpose: "browser session")
        refreshTokenKeys = try keyRing.derived(purpose: "refresh token")
        self.clock = clock
        self.changes = changes
        configs = ConfigStore(changes: changes) { tenantID in
            try await database.withPool { pool in try await ConfigStore.texts(pool, tenantID: tenantID) }
        }
        let signingKeys = SigningKeys(database: database, keyRing: keyRing, clock: clock)
        changes.onChange(SigningKeys.changes) { _ in signingKeys.invalidate() }
        self.signingKeys = signingKeys
        tokens = Tokens(issuer: issuer, keys: signingKeys, clock: clock)
        accounts = try Accounts(
            database: database, tokens: tokens, configs: configs, email: email, clock: clock, hasher: hasher,
            hashing: hashing, passwordsPerClientMinute: passwordsPerClientMinute)
        adminKeys = AdminKeys(database: database, clock: clock)
        configAdmin = ConfigAdmin(database: database, configs: configs, clock: clock)
        usersAdmin = UsersAdmin(
            database: database, configs: configs, clock: clock, enrollments: enrollments, hasher: hasher,
            hashing: hashing)
    }

    /// Start-up work that needs the database: listening for change notices, the first signing key, and the bootstrap
    /// admin key when given.
    public func prepare(bootstrapAdminKey: String?, logger: Logger) async throws {
        changes.start(database)
        try await signingKeys.prepare()
        if let bootstrapAdminKey, !(try await adminKeys.ensureBootstrap(key: bootstrapAdminKey)) {
            logger.warning("the bootstrap admin key was revoked; it stays revoked (give a new one to regain access)")
        }
    }
}
