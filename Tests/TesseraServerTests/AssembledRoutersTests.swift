import FoundationEssentials
import Logging
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraLoop
import TesseraMetrics
import TesseraOAuth
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraServer

/// The public and admin routers exactly as `tessera serve` assembles them (routes, middleware, method tables),
/// driven in process with request values: no socket, no listener.
@Suite struct AssembledRoutersTests {
    /// A server over the test database whose listeners are never bound, and the database's harness.
    static func withServer(_ body: (TesseraServer, CoreHarness) async throws -> Void) async throws {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            var options = ServerConfiguration.Options()
            options.databaseURL = "postgresql:///unused"
            let configuration = try ServerConfiguration.resolve(options, environment: [:], processorCount: 1)
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            let server = TesseraServer(
                configuration: configuration, group: group, database: core.database, services: core.services,
                sms: LogSMSSender(logger: logger, revealsCodes: false),
                factorServiceClient: try HTTPClient(group: group), metrics: MetricsRegistry(), logger: logger)
            try await body(server, core)
        }
    }

    static func respond(_ router: HTTPRouter, _ request: HTTPRequest) async -> HTTPResponse {
        switch router.handler(for: request) {
        case .immediate(let handler): return handler(request)
        case .async(let handler): return await handler(request)
        }
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func eachListenerServesItsRoutesAndCountsThemByRouteAndStatus() async throws {
        try await Self.withServer { server, _ in
            let form: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
            let json: HTTPHeaders = ["Content-Type": "application/json"]
            let publicRouter = server.publicRouter
            #expect(Self.text(await Self.respond(publicRouter, HTTPRequest(method: .get, target: "/healthz"))) == "ok")
            let metadata = await Self.respond(
                publicRouter, HTTPRequest(method: .get, target: "/.well-known/openid-configuration"))
            #expect(metadata.status.code == 200 && Self.text(metadata).contains("\"token_endpoint\""))
            let token = await Self.respond(
                publicRouter,
                HTTPRequest(method: .post, target: "/oauth2/token", headers: form, body: Array("x=1".utf8)))
            #expect(token.status.code == 400 && Self.text(token).contains("invalid_request"))
            let authorize = await Self.respond(publicRouter, HTTPRequest(method: .get, target: "/oauth2/authorize"))
            #expect(authorize.status.code == 400)
            let call = #"{"jsonrpc":"2.0","id":1,"method":"no.such","params":{}}"#
            let rpc = await Self.respond(
                publicRouter, HTTPRequest(method: .post, target: "/rpc", headers: json, body: Array(call.utf8)))
            #expect(rpc.status.code == 200 && Self.text(rpc).contains("-32601"))
            #expect(await Self.respond(publicRouter, HTTPRequest(method: .get, target: "/nope")).status.code == 404)
            // Admin routes are not public, and the other way round.
            #expect(await Self.respond(publicRouter, HTTPRequest(method: .get, target: "/metrics")).status.code == 404)
            #expect(
                await Self.respond(server.adminRouter, HTTPRequest(method: .get, target: "/oauth2/authorize"))
                    .status.code == 404)

            let ready = await Self.respond(server.adminRouter, HTTPRequest(method: .get, target: "/readyz"))
            #expect(ready.status.code == 200 && Self.text(ready).hasPrefix("ready"))
            let metrics = Self.text(
                await Self.respond(server.adminRouter, HTTPRequest(method: .get, target: "/metrics")))
            for line in [
                #"tessera_http_requests_total{listener="public",route="/healthz",status="200"} 1"#,
                #"tessera_http_requests_total{listener="public",route="/oauth2/token",status="400"} 1"#,
                #"tessera_http_requests_total{listener="public",route="/oauth2/authorize",status="400"} 1"#,
                #"tessera_http_requests_total{listener="public",route="/rpc",status="200"} 1"#,
                #"tessera_http_requests_total{listener="admin",route="/readyz",status="200"} 1"#,
                #"tessera_http_request_duration_seconds_count{listener="public",route="/oauth2/token"} 1"#,
            ] {
                #expect(metrics.contains(line), "\(line)")
            }
            // Unknown paths are not routes: no series of their own.
            #expect(!metrics.contains(#"route="/nope""#))
        }
    }

    /// The login pages and the OAuth endpoints look clients up in one cache, so a server caches each client, and
    /// reads it again, once: a client the authorization endpoint has read is the token endpoint's too, which is
    /// seen when its row changes behind the server's back (no notice comes; the staleness bound still holds). Tests
    /// that run meanwhile on the same database announce changes too, and a configuration notice drops every cached
    /// client: a probe cache built like the server's, on the same feed, tells when that happened, and the attempt is
    /// made again with a new client.
    @Test func theLoginPagesAndTheTokenEndpointShareOneCacheOfClients() async throws {
        try await Self.withServer { server, core in
            try await waitUntil { core.services.changes.isListening }
            let probe = OAuthClients.cache(core.services.changes, database: core.database)
            for _ in 0..<5 {
                let (clientID, token) = try await Self.tokenForAClientDeletedAfterItsAuthorization(server, core, probe)
                guard probe.cached(clientID).value != nil else { continue }
                #expect(token.status.code == 200, "\(Self.text(token))")
                #expect(Self.text(token).contains("\"access_token\""))
                return
            }
            Issue.record("other tests' notices dropped the cached clients in each of five attempts")
        }
    }

    /// Creates a client, has the authorization endpoint read it (and `probe` hold it), deletes its row without a
    /// notice, and asks the token endpoint for a `client_credentials` token with it.
    static func tokenForAClientDeletedAfterItsAuthorization(
        _ server: TesseraServer, _ core: CoreHarness, _ probe: FleetCache<OAuthClient?>
    ) async throws -> (clientID: String, token: HTTPResponse) {
        let admin = OAuthClientsAdmin(
            database: core.database, configs: core.services.configs, clock: core.clock,
            changes: core.services.changes)
        let created = try await admin.create(
            tenantID: nil,
            [
                "clientName": "Shared", "type": "confidential", "redirectUris": ["https://app.example.com/cb"],
                "grantTypes": ["authorization_code", "client_credentials"], "scopes": ["openid", "read"],
            ],
            actor: AuditLog.Actor(
                principal: AdminPrincipal(keyID: "routers-test", scope: .project), method: "oauthClients.create",
                requestID: "req-create"))
        let clientID = created.clientId
        let secret = try #require(created.clientSecret)
        try await hearEveryNoticeSoFar(core)
        probe.store(nil, for: clientID, loadedAt: .now, epoch: probe.epoch)
        let authorize = await respond(
            server.publicRouter,
            HTTPRequest(
                method: .get,
                target: "/oauth2/authorize?response_type=code&client_id=\(clientID)"
                    + "&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=openid&state=s"
                    + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"))
        #expect(authorize.status.code == 303, "to the login page: \(text(authorize))")
        #expect(authorize.headers["Location"]?.hasPrefix("/oauth2/login") == true)
        // Gone from the database without a notice: only a cache that the authorization endpoint filled still knows
        // the client.
        try await core.database.withPool { pool in
            _ = try await pool.query("DELETE FROM oauth_clients WHERE client_id = $1", [clientID])
        }
        let headers: HTTPHeaders = [
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": "Basic " + Base64.encode(Array("\(clientID):\(secret)".utf8)),
        ]
        let token = await respond(
            server.publicRouter,
            HTTPRequest(
                method: .post, target: "/oauth2/token", headers: headers,
                body: Array("grant_type=client_credentials&scope=read".utf8)))
        return (clientID, token)
    }

    /// Returns once `core`'s change feed has heard every notice committed before the call (the client's creation
    /// announces it, and its notice must not drop what the test caches after): notices arrive in commit order, so
    /// one of the test's own, seen dropping a value a cache of the test's held, comes after them.
    static func hearEveryNoticeSoFar(_ core: CoreHarness) async throws {
        let probe: FleetCache<Bool> = core.services.changes.cache(OAuthClients.changes) { _ in false }
        probe.store(true, for: "barrier", loadedAt: .now, epoch: probe.epoch)
        try await core.database.withPool { pool in
            try await ChangeFeed.announce(OAuthClients.changes, key: "barrier", in: pool)
        }
        try await waitUntil { probe.count == 0 }
    }
}
