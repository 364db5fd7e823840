/// Something every route of an ``HTTPRouter`` goes through (metrics, timing): it wraps each route's handler once,
/// when the route is added, and keeps the handler's kind, so an immediate handler stays inline on the loop.
public protocol HTTPMiddleware: Sendable {
    /// `handler`, serving the route `path` (as registered: the label of its metrics), wrapped.
    func wrap(_ handler: HTTPHandler, path: String) -> HTTPHandler
}

extension HTTPHandler {
    /// This handler with `observe` called after it answers, given the request, the response and when it started
    /// (on the loop, in the same call or task as the handler).
    public func observed(
        by observe: @escaping @Sendable (HTTPRequest, HTTPResponse, ContinuousClock.Instant) -> Void
    ) -> HTTPHandler {
        switch self {
        case .immediate(let respond):
            return .immediate { request in
                let start = ContinuousClock.now
                let response = respond(request)
                observe(request, response, start)
                return response
            }
        case .async(let respond):
            return .async { request in
                let start = ContinuousClock.now
                let response = await respond(request)
                observe(request, response, start)
                return response
            }
        }
    }
}
