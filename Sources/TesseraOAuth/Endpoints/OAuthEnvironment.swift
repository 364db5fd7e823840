import FoundationEssentials
public import Logging
public import MultiFactor
public import TesseraCore
public import TesseraCrypto
public import TesseraPostgres

/// What the OAuth endpoints share: the database (every piece of state lives there), the signing keys, the
/// issuer, the clock that dates every token and expiry, the factors (whose descriptors give the `amr` of a second
/// factor), and the log.
public struct OAuthEnvironment: Sendable {
    public let database: PostgresClient
    public let signingKeys: SigningKeys
    /// `iss` of every token, and the base of every endpoint URL in the metadata.
    public let issuer: String
    public let clock: any WallClock
    /// The factors offered (built-in ones and registered factor services).
    public let directory: FactorDirectory
    /// Open the sealed authorization codes (`CoreServices.codeKeys`).
    public let codeKeys: KeyRing
    /// Seal and open the envelopes of the grants' refresh tokens (`CoreServices.refreshTokenKeys`).
    public let refreshTokenKeys: KeyRing
    public let logger: Logger
    /// The clients by id (nil: none), kept fresh by change notices (``OAuthClients/cache(_:database:)``), so that a
    /// token request need not read its client.
    let clients: FleetCache<OAuthClient?>
    /// The writers that share a statement among the code grants of cached clients, one for each loop.
    let codeGrants: GrantWriters
    /// The writers that share a statement among the refresh grants of cached clients, one for each loop.
    let refreshGrants: GrantWriters

    /// The factors whose descriptors give the `amr` of a second factor: the directory's latest copy, read without
    /// a database round trip on the token path (a factor unknown there is named by its id).
    public var factors: FactorRegistry { directory.latest }

    /// The environment of `services`' database, keys, issuer and clock, with the built-in factors of `factors`.
    public init(services: CoreServices, factors: FactorRegistry, logger: Logger) {
        self.init(services: services, directory: FactorDirectory(builtIn: factors), logger: logger)
    }

    /// The environment of `services`' database, keys, issuer and clock, with the factors of `directory` and the
    /// client cache `clients` (the server's, which its login pages share; nil: a cache of its own).
    public init(
        services: CoreServices, directory: FactorDirectory, clients: FleetCache<OAuthClient?>? = nil, logger: Logger
    ) {
        self.init(
            database: services.database, signingKeys: services.signingKeys, issuer: services.tokens.issuer,
            clock: services.clock, directory: directory, codeKeys: services.codeKeys,
            refreshTokenKeys: services.refreshTokenKeys,
            clients: clients ?? OAuthClients.cache(services.changes, database: services.database), logger: logger)
    }

    /// An environment given member by member.
    public init(
        database: PostgresClient, signingKeys: SigningKeys, issuer: String, clock: any WallClock,
        directory: FactorDirectory, codeKeys: KeyRing, refreshTokenKeys: KeyRing, clients: FleetCache<OAuthClient?>,
        logger: Logger
    ) {
        self.database = database
        self.signingKeys = signingKeys
        self.issuer = issuer
        self.clock = clock
        self.directory = directory
        self.codeKeys = codeKeys
        self.refreshTokenKeys = refreshTokenKeys
        self.logger = logger
        self.clients = clients
        codeGrants = GrantWriters(database: database, statement: TokenEndpoint.cachedClientCodeGrants)
        refreshGrants = GrantWriters(database: database, statement: TokenEndpoint.cachedClientRefreshGrants)
    }

    /// The client `clientID`, nil when there is none: cached, or read on the calling loop's pool.
    func client(_ clientID: String) async throws -> OAuthClient? {
        try await clients.value(for: clientID)
    }

    /// The client `clientID` when cached: `.some(nil)` when it is known not to exist, nil when not cached.
    func cachedClient(_ clientID: String) -> OAuthClient?? {
        clients.cached(clientID).value
    }

    /// Runs `query` on the calling loop's pool in one pipeline (one round trip, one implicit transaction) after the
    /// read of client `clientID`, which it keeps in the cache; returns the client (nil when there is none) and the
    /// result of `query`.
    func readingClient(_ clientID: String, then query: PostgresQuery) async throws -> (OAuthClient?, PostgresResult) {
        let epoch = clients.epoch
        let readAt = ContinuousClock.now
        let results = try await database.withPool { pool in
            try await pool.pipeline([OAuthClients.find(clientID: clientID), query])
        }
        let client = try results[0].rows.first.map(OAuthClients.client(row:))
        clients.store(client, for: clientID, loadedAt: readAt, epoch: epoch)
        return (client, results[1])
    }

    /// The claims of `token` when it is an access token of this issuer with a valid signature that has not
    /// expired (to the second, without leeway); nil otherwise. Says nothing about revocation: that is the database's.
    func verifiedAccessToken(_ token: String) async -> AccessTokenClaims? {
        guard let keys = try? await signingKeys.keys(verifying: token) else { return nil }
        let verifier = JWTVerifier(keys: keys, expectedType: .accessToken)
        let now = Int64(clock.now().timeIntervalSince1970)
        // The verifier's leeway forgives other servers' clocks for `iat`; our own `exp` is exact.
        guard let claims = try? verifier.verify(token, as: AccessTokenClaims.self, now: now).claims,
            claims.iss == issuer, now < claims.exp
        else { return nil }
        return claims
    }

    /// The answer to a failure that is not the client's fault: logged (without secrets), 503 when the database
    /// is unavailable, 500 otherwise.
    func failure(_ error: any Error, endpoint: String) -> OAuthError {
        if let error = error as? OAuthError { return error }
        logger.error("\(endpoint) failed", metadata: ["error": .string(String(describing: error))])
        if let error = error as? PostgresError, error.isTemporary {
            return OAuthError(.temporarilyUnavailable, "the database is unavailable; try again")
        }
        return OAuthError(.serverError, "the request could not be completed")
    }
}
