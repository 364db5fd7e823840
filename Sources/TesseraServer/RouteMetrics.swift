import TesseraHTTP

/// The middleware that counts every answered request of a route by status and times it
/// (`tessera_http_requests_total`, `tessera_http_request_duration_seconds`), labelled with the listener and the route as
/// registered.
struct RouteMetrics: HTTPMiddleware {
    let instruments: Instruments
    /// `public` or `admin`.
    let listener: String

    func wrap(_ handler: HTTPHandler, path: String) -> HTTPHandler {
        let route = instruments.route(path, on: listener)
        return handler.observed { _, response, start in route.record(status: response.status.code, since: start) }
    }
}
