import TesseraHTTP
import Testing

@Suite struct HTTPRouterTests {
    func respond(_ router: HTTPRouter, _ method: HTTPMethod, _ target: String) async -> HTTPResponse {
        let request = HTTPRequest(method: method, target: target)
        switch router.handler(for: request) {
        case .immediate(let handler): return handler(request)
        case .async(let handler): return await handler(request)
        }
    }

    func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    var router: HTTPRouter {
        var router = HTTPRouter()
        router.on(.get, "/healthz", immediate: { _ in .text("ok") })
        router.on(.post, "/oauth2/token", handler: { request in .text("token \(request.query ?? "-")") })
        router.on(.get, "/oauth2/token", immediate: { _ in .text("get token") })
        router.mount("/rpc", .async { request in .text("rpc \(request.method)") })
        return router
    }

    @Test func routesByMethodAndExactPath() async {
        #expect(body(await respond(router, .get, "/healthz")) == "ok")
        #expect(body(await respond(router, .post, "/oauth2/token?x=1")) == "token x=1")
        #expect(body(await respond(router, .get, "/oauth2/token")) == "get token")
    }

    @Test func immediateHandlersStayImmediate() {
        guard case .immediate = router.handler(for: HTTPRequest(method: .get, target: "/healthz")) else {
            Issue.record("the health check must be answered inline")
            return
        }
    }

    @Test func unknownPathIs404() async {
        for target in ["/nope", "/healthz/", "/HEALTHZ", "/healthz%20", ""] {
            #expect(await respond(router, .get, target).status.code == 404, "\(target)")
        }
    }

    @Test func wrongMethodIs405WithAllow() async {
        let response = await respond(router, .delete, "/oauth2/token")
        #expect(response.status.code == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
        let health = await respond(router, .post, "/healthz")
        #expect(health.headers["Allow"] == "GET, HEAD")
    }

    @Test func headFallsBackToGet() async {
        #expect(body(await respond(router, .head, "/healthz")) == "ok")
    }

    @Test func mountedHandlerTakesEveryMethod() async {
        #expect(body(await respond(router, .post, "/rpc")) == "rpc POST")
        #expect(body(await respond(router, .get, "/rpc")) == "rpc GET")
        #expect(body(await respond(router, .other("BREW"), "/rpc")) == "rpc BREW")
    }

    @Test func laterRegistrationReplaces() async {
        var router = router
        router.on(.get, "/healthz", immediate: { _ in .text("replaced") })
        #expect(body(await respond(router, .get, "/healthz")) == "replaced")
    }
}
