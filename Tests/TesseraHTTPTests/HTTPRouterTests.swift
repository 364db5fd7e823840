import Synchronization
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

    /// Writes `name` before and after the handler into the response body, and names the route it wraps.
    struct Tag: HTTPMiddleware {
        let name: String

        func wrap(_ handler: HTTPHandler, path: String) -> HTTPHandler {
            let name = name
            let mark: @Sendable (HTTPResponse) -> HTTPResponse = { response in
                var response = response
                response.body = Array("\(name)(\(path):".utf8) + response.body + Array(")".utf8)
                return response
            }
            switch handler {
            case .immediate(let respond): return .immediate { mark(respond($0)) }
            case .async(let respond): return .async { mark(await respond($0)) }
            }
        }
    }

    @Test func everyRouteGoesThroughTheMiddlewareTheFirstOutermostKeepingItsKind() async {
        var router = HTTPRouter(middleware: [Tag(name: "outer"), Tag(name: "inner")])
        router.on(.get, "/healthz", immediate: { _ in .text("ok") })
        router.on(.post, "/oauth2/token", handler: { _ in .text("token") })
        router.mount("/rpc", .async { _ in .text("rpc") })
        #expect(body(await respond(router, .get, "/healthz")) == "outer(/healthz:inner(/healthz:ok))")
        #expect(
            body(await respond(router, .post, "/oauth2/token")) == "outer(/oauth2/token:inner(/oauth2/token:token))")
        #expect(body(await respond(router, .put, "/rpc")) == "outer(/rpc:inner(/rpc:rpc))")
        guard case .immediate = router.handler(for: HTTPRequest(method: .get, target: "/healthz")) else {
            Issue.record("middleware must keep an immediate handler inline")
            return
        }
        // The router's own 404 and 405 answers are not routes.
        #expect(body(await respond(router, .get, "/nope")) == "not found\n")
        #expect(body(await respond(router, .delete, "/healthz")) == "method not allowed\n")
    }

    @Test func anObservedHandlerSeesTheRequestTheResponseAndItsStart() async {
        let seen = Mutex<[String]>([])
        let before = ContinuousClock.now
        let observe: @Sendable (HTTPRequest, HTTPResponse, ContinuousClock.Instant) -> Void = {
            request, response, start in
            seen.withLock { $0.append("\(request.path) \(response.status.code) \(start >= before)") }
        }
        var router = HTTPRouter()
        router.add(.get, "/a", HTTPHandler.immediate { _ in .text("a") }.observed(by: observe))
        router.add(.get, "/b", HTTPHandler.async { _ in .text("b", status: .notFound) }.observed(by: observe))
        _ = await respond(router, .get, "/a")
        _ = await respond(router, .get, "/b")
        #expect(seen.withLock { $0 } == ["/a 200 true", "/b 404 true"])
    }
}
