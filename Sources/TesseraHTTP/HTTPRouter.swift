/// Chooses a handler by method and exact path. Unknown paths answer 404; known paths asked with a method they do
/// not serve answer 405 with `Allow`. `HEAD` falls back to the `GET` route (the server then omits the body).
///
/// Paths are compared as received (still percent-encoded) and the query is ignored. Registering a route twice
/// replaces the earlier handler. Every route added goes through the router's middleware, the first outermost; the
/// 404 and 405 answers do not.
public struct HTTPRouter: Sendable {
    /// The handlers of one path.
    struct PathRoutes: Sendable {
        var byMethod: [HTTPMethod: HTTPHandler] = [:]
        var anyMethod: HTTPHandler?
    }

    var routes: [String: PathRoutes] = [:]
    let middleware: [any HTTPMiddleware]

    /// Creates a router with no routes (everything answers 404) whose routes will go through `middleware`, the
    /// first outermost.
    public init(middleware: [any HTTPMiddleware] = []) {
        self.middleware = middleware
    }

    /// Routes `method` on `path` to `handler`.
    public mutating func add(_ method: HTTPMethod, _ path: String, _ handler: HTTPHandler) {
        routes[path, default: PathRoutes()].byMethod[method] = wrapped(handler, path: path)
    }

    /// `handler` inside the router's middleware.
    private func wrapped(_ handler: HTTPHandler, path: String) -> HTTPHandler {
        middleware.reversed().reduce(handler) { inner, layer in layer.wrap(inner, path: path) }
    }

    /// Routes `method` on `path` to a handler answered inline on the event loop; keep it tiny.
    public mutating func on(
        _ method: HTTPMethod, _ path: String, immediate handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) {
        add(method, path, .immediate(handler))
    }

    /// Routes `method` on `path` to an async handler that runs on the connection's event loop.
    public mutating func on(
        _ method: HTTPMethod, _ path: String, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        add(method, path, .async(handler))
    }

    /// Routes every method on `path` to `handler`, which answers wrong methods itself. Method-specific routes on the
    /// same path take precedence.
    public mutating func mount(_ path: String, _ handler: HTTPHandler) {
        routes[path, default: PathRoutes()].anyMethod = wrapped(handler, path: path)
    }

    /// The handler for `request`: its route's, or one answering 404 or 405.
    public func handler(for request: HTTPRequest) -> HTTPHandler {
        guard let pathRoutes = routes[request.path] else {
            return .immediate { _ in HTTPResponse.text("not found\n", status: .notFound) }
        }
        if let handler = pathRoutes.byMethod[request.method] ?? pathRoutes.anyMethod {
            return handler
        }
        if request.method == .head, let handler = pathRoutes.byMethod[.get] {
            return handler
        }
        let allowed = HTTPRouter.allowHeader(for: pathRoutes)
        return .immediate { _ in
            var response = HTTPResponse.text("method not allowed\n", status: .methodNotAllowed)
            response.headers.add(name: "Allow", value: allowed)
            return response
        }
    }

    /// The `Allow` value of a path: its methods in alphabetical order, `HEAD` included when `GET` is served.
    static func allowHeader(for routes: PathRoutes) -> String {
        var methods = Set(routes.byMethod.keys.map(\.description))
        if methods.contains("GET") {
            methods.insert("HEAD")
        }
        return methods.sorted().joined(separator: ", ")
    }
}
