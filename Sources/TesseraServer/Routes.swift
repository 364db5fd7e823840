import FactorServices
import Logging
import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraMetrics
import TesseraOAuth
import TesseraRPC

/// Builds the routers of the two listeners, every handler counted and timed.
struct Routes: Sendable {
    /// `public` or `admin`: the `listener` label of the metrics.
    let listener: String
    let instruments: Instruments
    let logger: Logger
    /// The proxies whose forwarding headers are believed when they are the peer (`--trusted-proxy`).
    let trustedProxies: [IPNetwork]

    /// `/healthz`, `/oauth2/jwks`, `/verify-email`, the authorization endpoint with the login pages, the other
    /// OAuth endpoints and metadata (the `amr` of their tokens from `factors`), and `/rpc` with the public method
    /// table.
    func publicRouter(
        methods: RPCMethodTable, services: CoreServices, factors: FactorDirectory, login: OAuthLogin
    ) -> HTTPRouter {
        var router = HTTPRouter()
        addHealth(to: &router)
        addLogin(login, to: &router)
        let signingKeys = services.signingKeys
        let verifyEmail = VerifyEmailPage(accounts: services.accounts)
        let verifyRoute = instruments.route("/verify-email", on: listener)
        router.on(
            .get, "/verify-email",
            immediate: { request in
                let start = ContinuousClock.now
                let response = verifyEmail.show(request)
                verifyRoute.record(status: response.status.code, since: start)
                return response
            })
        router.on(
            .post, "/verify-email",
            handler: { request in
                let start = ContinuousClock.now
                let response = await verifyEmail.confirm(request)
                verifyRoute.record(status: response.status.code, since: start)
                return response
            })
        let jwks = instruments.route("/oauth2/jwks", on: listener)
        let logger = logger
        router.on(
            .get, "/oauth2/jwks",
            handler: { _ in
                let start = ContinuousClock.now
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
                jwks.record(status: response.status.code, since: start)
                return response
            })
        addOAuth(to: &router, services: services, factors: factors)
        addRPC(methods, to: &router)
        return router
    }

    /// `POST /oauth2/token`, `/oauth2/revoke`, `/oauth2/introspect` and the two metadata documents.
    private func addOAuth(to router: inout HTTPRouter, services: CoreServices, factors: FactorDirectory) {
        let environment = OAuthEnvironment(services: services, directory: factors, logger: logger)
        let endpoints: [(String, @Sendable (HTTPRequest) async -> HTTPResponse)] = [
            ("/oauth2/token", TokenEndpoint(environment: environment).respond(to:)),
            ("/oauth2/revoke", RevocationEndpoint(environment: environment).respond(to:)),
            ("/oauth2/introspect", IntrospectionEndpoint(environment: environment).respond(to:)),
        ]
        for (path, respond) in endpoints {
            let route = instruments.route(path, on: listener)
            router.on(
                .post, path,
                handler: { request in
                    let start = ContinuousClock.now
                    let response = await respond(request)
                    route.record(status: response.status.code, since: start)
                    return response
                })
        }
        let metadata = ServerMetadata(issuer: services.tokens.issuer)
        for path in ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"] {
            let route = instruments.route(path, on: listener)
            router.on(
                .get, path,
                immediate: { _ in
                    let start = ContinuousClock.now
                    let response = metadata.response()
                    route.record(status: response.status.code, since: start)
                    return response
                })
        }
    }

    /// `/healthz`, `/readyz`, `/metrics` and `/rpc` with the admin method table.
    func adminRouter(
        methods: RPCMethodTable, isReady: @escaping @Sendable () -> Bool, factorServices: FactorServiceHealth,
        metrics: MetricsRegistry
    ) -> HTTPRouter {
        var router = HTTPRouter()
        addHealth(to: &router)
        let ready = instruments.route("/readyz", on: listener)
        router.on(
            .get, "/readyz",
            immediate: { _ in
                let start = ContinuousClock.now
                // A factor service that is down fails its own steps only, so it is listed but never makes the server
                // unready (a load balancer would otherwise take every server out for one factor).
                let factors = factorServices.states().map { "factor service \($0.factor): \($0.up ? "up" : "down")\n" }
                let response =
                    isReady()
                    ? HTTPResponse.text("ready\n" + factors.joined())
                    : HTTPResponse.text("database unavailable\n" + factors.joined(), status: .serviceUnavailable)
                ready.record(status: response.status.code, since: start)
                return response
            })
        let scrape = instruments.route("/metrics", on: listener)
        router.on(
            .get, "/metrics",
            immediate: { _ in
                let start = ContinuousClock.now
                var response = HTTPResponse(status: .ok, body: Array(metrics.render().utf8))
                response.headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
                scrape.record(status: 200, since: start)
                return response
            })
        addRPC(methods, to: &router)
        return router
    }

    /// `/oauth2/authorize` and the login pages, each route counted on its own.
    private func addLogin(_ login: OAuthLogin, to router: inout HTTPRouter) {
        for route in OAuthLogin.Route.allCases {
            let counted = instruments.route(route.rawValue, on: listener)
            for method in route.methods {
                router.on(
                    method, route.rawValue,
                    handler: { request in
                        let start = ContinuousClock.now
                        let response = await login.respond(to: request, at: route)
                        counted.record(status: response.status.code, since: start)
                        return response
                    })
            }
        }
    }

    private func addHealth(to router: inout HTTPRouter) {
        let health = instruments.route("/healthz", on: listener)
        router.on(
            .get, "/healthz",
            immediate: { _ in
                let start = ContinuousClock.now
                let response = HTTPResponse.text("ok")
                health.record(status: 200, since: start)
                return response
            })
    }

    private func addRPC(_ methods: RPCMethodTable, to router: inout HTTPRouter) {
        let calls = instruments.methods(methods.methodNames, on: listener)
        let dispatcher = RPCDispatcher(methods: methods) { call in calls.record(call) }
        let logger = logger
        let trustedProxies = trustedProxies
        let route = instruments.route("/rpc", on: listener)
        router.mount(
            "/rpc",
            .async { request in
                let start = ContinuousClock.now
                let context = RPCContext(
                    requestID: RequestID.make(), headers: request.headers, peerAddress: request.remoteAddress,
                    trustedProxies: trustedProxies, logger: logger)
                let response = await dispatcher.respond(to: request, context: context)
                route.record(status: response.status.code, since: start)
                return response
            })
    }
}
