import FactorServices
import Logging
import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraMetrics
import TesseraOAuth
import TesseraRPC

/// Builds the routers of the two listeners, every route counted and timed by ``RouteMetrics``.
struct Routes: Sendable {
    /// `public` or `admin`: the `listener` label of the metrics.
    let listener: String
    let instruments: Instruments
    let logger: Logger
    /// The proxies whose forwarding headers are believed when they are the peer (`--trusted-proxy`).
    let trustedProxies: [IPNetwork]

    private var metrics: RouteMetrics { RouteMetrics(instruments: instruments, listener: listener) }

    /// `/healthz`, `/oauth2/jwks`, `/verify-email`, the authorization endpoint with the login pages, the other
    /// OAuth endpoints and metadata (the `amr` of their tokens from `factors`), and `/rpc` with the public method
    /// table.
    func publicRouter(
        methods: RPCMethodTable, services: CoreServices, factors: FactorDirectory, clients: FleetCache<OAuthClient?>,
        login: OAuthLogin
    ) -> HTTPRouter {
        var router = HTTPRouter(middleware: [metrics])
        addHealth(to: &router)
        addLogin(login, to: &router)
        let signingKeys = services.signingKeys
        let verifyEmail = VerifyEmailPage(accounts: services.accounts)
        router.on(.get, "/verify-email", immediate: verifyEmail.show)
        router.on(.post, "/verify-email", handler: verifyEmail.confirm)
        let logger = logger
        router.on(
            .get, "/oauth2/jwks",
            handler: { _ in
                var response: HTTPResponse
                do {
                    let body = try JSONValueEncoder().encode(try await signingKeys.jwks()).serialized()
                    response = HTTPResponse(status: .ok, body: body)
                    response.headers.add(name: "Content-Type", value: "application/jwk-set+json")
                    response.headers.add(name: "Cache-Control", value: "public, max-age=60")
                } catch {
                    logger.error("JWKS unavailable", metadata: ["error": .string(String(describing: error))])
                    response = HTTPResponse.text("signing keys unavailable\n", status: .serviceUnavailable)
                }
                return response
            })
        addOAuth(to: &router, services: services, factors: factors, clients: clients)
        addRPC(methods, to: &router)
        return router
    }

    /// `POST /oauth2/token`, `/oauth2/revoke`, `/oauth2/introspect` and the two metadata documents.
    private func addOAuth(
        to router: inout HTTPRouter, services: CoreServices, factors: FactorDirectory,
        clients: FleetCache<OAuthClient?>
    ) {
        let environment = OAuthEnvironment(services: services, directory: factors, clients: clients, logger: logger)
        let endpoints: [(String, @Sendable (HTTPRequest) async -> HTTPResponse)] = [
            ("/oauth2/token", TokenEndpoint(environment: environment).respond(to:)),
            ("/oauth2/revoke", RevocationEndpoint(environment: environment).respond(to:)),
            ("/oauth2/introspect", IntrospectionEndpoint(environment: environment).respond(to:)),
        ]
        for (path, respond) in endpoints {
            router.on(.post, path, handler: respond)
        }
        let metadata = ServerMetadata(issuer: services.tokens.issuer)
        for path in ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"] {
            router.on(.get, path, immediate: { _ in metadata.response() })
        }
    }

    /// `/healthz`, `/readyz`, `/metrics` and `/rpc` with the admin method table.
    func adminRouter(
        methods: RPCMethodTable, isReady: @escaping @Sendable () -> Bool, factorServices: FactorServiceHealth,
        metrics registry: MetricsRegistry
    ) -> HTTPRouter {
        var router = HTTPRouter(middleware: [metrics])
        addHealth(to: &router)
        router.on(
            .get, "/readyz",
            immediate: { _ in
                // A factor service that is down fails its own steps only, so it is listed but never makes the server
                // unready (a load balancer would otherwise take every server out for one factor).
                let factors = factorServices.states().map { "factor service \($0.factor): \($0.up ? "up" : "down")\n" }
                return isReady()
                    ? HTTPResponse.text("ready\n" + factors.joined())
                    : HTTPResponse.text("database unavailable\n" + factors.joined(), status: .serviceUnavailable)
            })
        router.on(
            .get, "/metrics",
            immediate: { _ in
                var response = HTTPResponse(status: .ok, body: Array(registry.render().utf8))
                response.headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
                return response
            })
        addRPC(methods, to: &router)
        return router
    }

    /// `/oauth2/authorize` and the login pages, each route counted on its own.
    private func addLogin(_ login: OAuthLogin, to router: inout HTTPRouter) {
        for route in OAuthLogin.Route.allCases {
            for method in route.methods {
                router.on(method, route.rawValue, handler: { request in await login.respond(to: request, at: route) })
            }
        }
    }

    private func addHealth(to router: inout HTTPRouter) {
        router.on(.get, "/healthz", immediate: { _ in HTTPResponse.text("ok") })
    }

    private func addRPC(_ methods: RPCMethodTable, to router: inout HTTPRouter) {
        let calls = instruments.methods(methods.methodNames, on: listener)
        let dispatcher = RPCDispatcher(methods: methods) { call in calls.record(call) }
        let logger = logger
        let trustedProxies = trustedProxies
        router.mount(
            "/rpc",
            .async { request in
                let context = RPCContext(
                    requestID: request.id, headers: request.headers, peerAddress: request.remoteAddress,
                    trustedProxies: trustedProxies, logger: logger)
                return await dispatcher.respond(to: request, context: context)
            })
    }
}
