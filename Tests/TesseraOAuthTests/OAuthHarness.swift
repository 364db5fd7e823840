import FoundationEssentials
import Logging
import MultiFactor
import PhoneCodes
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraPostgres
import TesseraServer
import TesseraTestSupport
import Testing

@testable import TesseraCore
@testable import TesseraOAuth

/// The OAuth endpoints over the test database with a manual clock, and the set-up their tests repeat: clients and
/// users as plain rows, codes issued as the authorize endpoint issues them, requests as in-process HTTP requests.
struct OAuthHarness {
    let core: CoreHarness
    let environment: OAuthEnvironment
    let token: TokenEndpoint
    let revocation: RevocationEndpoint
    let introspection: IntrospectionEndpoint
    /// Whether ``client(_:redirectURIs:grantTypes:scopes:defaultScopes:tenantID:accessTokenTTL:refreshTokenTTL:)``
    /// reads each new client into the environment's cache (its own: ``privateChanges``), as a server's first request
    /// of a client does, so that ``redeem(_:client:redirectURI:verifier:)`` and ``refresh(_:client:scope:)`` take the
    /// paths of a cached client; without, each of them finds the cache empty and reads the client in its round trip.
    let clientsCached: Bool

    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    /// The change feed of a harness whose clients are cached: never started and with an hour's staleness, so that a
    /// client cached by the test stays cached however slow the run, and no other test's notice drops it (a
    /// configuration notice drops the whole client cache).
    static var privateChanges: ChangeFeed { ChangeFeed(staleness: .seconds(3600)) }
    static let redirectURI = "com.example.app:/oauth2redirect"

    /// Runs `body` with fresh endpoints over the whole schema; with `clientsCached`, every client it makes is
    /// cached before the test uses it.
    static func run<T>(clientsCached: Bool = false, _ body: (OAuthHarness) async throws -> T) async throws -> T {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            try await body(OAuthHarness(core: core, clientsCached: clientsCached))
        }
    }

    /// Endpoints over `core`; codes are sealed and opened with `codeKeys`, refresh tokens with `refreshTokenKeys`
    /// (default: the services').
    init(core: CoreHarness, codeKeys: KeyRing? = nil, refreshTokenKeys: KeyRing? = nil, clientsCached: Bool = false) {
        self.core = core
        self.clientsCached = clientsCached
        let factors = StandardFactors.registry(
            phoneCodes: SMSCodeIssuer(sender: LoginSMSSender(), appVerification: .disabledForTesting))
        environment = OAuthEnvironment(
            database: core.database, signingKeys: core.services.signingKeys, issuer: core.services.tokens.issuer,
            clock: core.clock, directory: FactorDirectory(builtIn: factors),
            codeKeys: codeKeys ?? core.services.codeKeys,
            refreshTokenKeys: refreshTokenKeys ?? core.services.refreshTokenKeys,
            clients: OAuthClients.cache(
                clientsCached ? Self.privateChanges : core.services.changes, database: core.database),
            logger: Logger(label: "oauth-test"))
        token = TokenEndpoint(environment: environment)
        revocation = RevocationEndpoint(environment: environment)
        introspection = IntrospectionEndpoint(environment: environment)
    }

    var clock: ManualWallClock { core.clock }

    /// A registered client as a test sees it: its id and, for a confidential one, its secret.
    struct Client {
        let id: String
        let secret: String?
        /// `client_secret_post` members, or `client_id` alone for a public client.
        var formCredentials: [(String, String)] {
            [("client_id", id)] + (secret.map { [("client_secret", $0)] } ?? [])
        }
    }

    /// Inserts a client row directly (the admin API has its own tests). Confidential secrets contain
    /// characters that must be form-encoded inside Basic.
    func client(
        _ type: OAuthClientType = .public, redirectURIs: [String] = [OAuthHarness.redirectURI],
        grantTypes: [OAuthGrantType] = OAuthClient.defaultGrantTypes, scopes: [String] = OAuthClient.defaultScopes,
        defaultScopes: [String]? = nil, tenantID: String? = nil, accessTokenTTL: Int = 900,
        refreshTokenTTL: Int = 86_400
    ) async throws -> Client {
        let id = try SecureRandom.identifier()
        let secret = type == .confidential ? "s3cret+/:=%" + (try SecureRandom.token(byteCount: 16)) : nil
        let digest = try secret.map { try SecretDigest.of($0) }
        try await core.sql(
            """
            INSERT INTO oauth_clients (client_id, tenant_id, client_name, client_type, redirect_uris, grant_types,
                scopes, default_scopes, access_token_ttl, refresh_token_ttl, secret_hash, created_at, updated_at)
            VALUES ($1, $2, 'Test app', $3, $4, $5, $6, $7, $8, $9, $10, now(), now())
            """,
            [
                id, tenantID, type.rawValue, OAuthClients.joined(redirectURIs),
                OAuthClients.joined(grantTypes.map(\.rawValue)), OAuthClients.joined(scopes),
                defaultScopes.map(OAuthClients.joined), accessTokenTTL, refreshTokenTTL, digest,
            ])
        if clientsCached { #expect(try await environment.client(id) != nil) }
        return Client(id: id, secret: secret)
    }

    /// A new tenant.
    func tenant() async throws -> String {
        let id = "oauth-\(UInt32.random(in: 0 ... .max))"
        try await core.sql(
            """
            INSERT INTO tenants (tenant_id, config, created_at, updated_at)
            VALUES ($1, '{"displayName": "OAuth Test"}'::jsonb, now(), now())
            """, [id])
        return id
    }

    /// A new user row.
    func user(tenantID: String? = nil, phoneNumber: String? = nil) async throws -> (id: String, email: String) {
        let id = try SecureRandom.identifier()
        let email = CoreHarness.email("oauth")
        try await core.sql(
            """
            INSERT INTO users (user_id, tenant_id, email, email_verified, phone_number, display_name, created_at,
                tokens_valid_after)
            VALUES ($1, $2, $3, true, $4, 'Ada Lovelace', now(), '1970-01-01')
            """, [id, tenantID, email, phoneNumber])
        return (id, email)
    }

    /// A code for `userID` and `client`, issued as `/oauth2/authorize` issues them.
    func code(
        for userID: String, client: Client, redirectURI: String = OAuthHarness.redirectURI,
        scope: String = "openid email profile offline_access", nonce: String? = "n-0S6_WzA2Mj",
        secondFactor: String? = nil, verifier: String = OAuthHarness.verifier, signInFamilyID: String? = nil
    ) async throws -> String {
        let grant = AuthorizationGrant(
            clientID: client.id, userID: userID, redirectURI: redirectURI,
            codeChallenge: try PKCE.challenge(of: verifier), scope: scope, nonce: nonce,
            authTime: clock.now().addingTimeInterval(-5), provider: "password", secondFactor: secondFactor,
            secondFactorID: secondFactor.map { _ in "enrollment-1" }, signInFamilyID: signInFamilyID)
        let now = clock.now()
        return try AuthorizationCodes.issue(grant, now: now, keys: environment.codeKeys)
    }

    /// POSTs `form` to `endpoint`, with Basic credentials when given.
    func post(
        _ endpoint: Endpoint, _ form: [(String, String)], basic: (String, String)? = nil,
        contentType: String = "application/x-www-form-urlencoded", headers extra: [String: String] = [:]
    ) async -> Answer {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        for (name, value) in extra { headers.add(name: name, value: value) }
        if let (id, secret) = basic {
            let pair = PercentEncoding.encode(id) + ":" + PercentEncoding.encode(secret)
            headers.add(name: "Authorization", value: "Basic " + Base64.encode(Array(pair.utf8)))
        }
        let body = URLEncodedForm(fields: form.map { (name: $0.0, value: $0.1) }).encoded
        let request = HTTPRequest(method: .post, target: endpoint.path, headers: headers, body: Array(body.utf8))
        let response: HTTPResponse
        switch endpoint {
        case .token: response = await token.respond(to: request)
        case .revoke: response = await revocation.respond(to: request)
        case .introspect: response = await introspection.respond(to: request)
        }
        return Answer(response: response)
    }

    /// Redeems `code` at the token endpoint as `client` (form credentials).
    func redeem(
        _ code: String, client: Client, redirectURI: String = OAuthHarness.redirectURI,
        verifier: String = OAuthHarness.verifier
    ) async -> Answer {
        if !clientsCached { environment.clients.invalidate(key: nil) }
        return await post(
            .token,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier),
            ] + client.formCredentials)
    }

    /// Uses `refreshToken` as `client`.
    func refresh(_ refreshToken: String, client: Client, scope: String? = nil) async -> Answer {
        if !clientsCached { environment.clients.invalidate(key: nil) }
        return await post(
            .token,
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)] + (scope.map { [("scope", $0)] } ?? [])
                + client.formCredentials)
    }

    /// Introspects `token` as the confidential `client`.
    func introspect(_ token: String, as client: Client) async -> Answer {
        await post(.introspect, [("token", token)] + client.formCredentials)
    }

    /// A fresh user with tokens of `client`, by default a fresh public one: the usual start of a test.
    func signedIn(client given: Client? = nil) async throws -> (client: Client, user: String, tokens: Answer) {
        let client = if let given { given } else { try await client() }
        let user = try await user()
        let answer = await redeem(try await code(for: user.id, client: client), client: client)
        #expect(answer.status == 200, "\(answer.json)")
        return (client, user.id, answer)
    }

    /// The verified header and claims of a JWT of the server, checked with the published JWKS.
    func verify<Claims: Decodable>(
        _ jwt: String, as type: Claims.Type, typ: JWTType
    ) async throws
        -> VerifiedJWT<Claims>
    {
        let keys = try ES256KeySet(jwks: try await core.services.signingKeys.jwks())
        let verifier = JWTVerifier(keys: keys, expectedType: typ)
        return try verifier.verify(jwt, as: type, now: Int64(clock.now().timeIntervalSince1970))
    }
}

/// The three POST endpoints.
enum Endpoint {
    case token, revoke, introspect

    var path: String {
        switch self {
        case .token: "/oauth2/token"
        case .revoke: "/oauth2/revoke"
        case .introspect: "/oauth2/introspect"
        }
    }
}

/// A response with its JSON body decoded.
struct Answer {
    let response: HTTPResponse

    var status: Int { response.status.code }
    var json: JSONObject { (try? JSONValue(parsing: response.body))?.objectValue ?? [:] }
    var error: String? { json["error"]?.stringValue }
    subscript(_ key: String) -> String? { json[key]?.stringValue }
    func header(_ name: String) -> String? { response.headers[name] }
}
