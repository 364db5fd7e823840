import Logging
import TesseraHTTP
import TesseraMetrics
import TesseraRPC

/// Builds the routers of the two listeners, every handler counted and timed.
struct Routes: Sendable {
    /// `public` or `admin`: the `listener` label of the metrics.
    let listener: String
    let instruments: Instruments
    let logger: Logger

    /// `/healthz` and `/rpc` with the public method table.
    func publicRouter(methods: RPCMethodTable) -> HTTPRouter {
        var router = HTTPRouter()
        addHealth(to: &router)
        addRPC(methods, to: &router)
        return router
    }

    /// `/healthz`, `/readyz`, `/metrics` and `/rpc` with the admin method table.
    func adminRouter(
        methods: RPCMethodTable, isReady: @escaping @Sendable () -> Bool, metrics: MetricsRegistry
    ) -> HTTPRouter {
        var router = HTTPRouter()
        addHealth(to: &router)
        let readyLabels = [listener, "/readyz"]
        router.on(.get, "/readyz", immediate: { [instruments] _ in
            let start = ContinuousClock.now
            let response = isReady()
                ? HTTPResponse.text("ready\n")
                : HTTPResponse.text("database unavailable\n", status: .serviceUnavailable)
            instruments.record(readyLabels, status: response.status.code, since: start)
            return response
        })
        let metricsLabels = [listener, "/metrics"]
        router.on(.get, "/metrics", immediate: { [instruments] _ in
            let start = ContinuousClock.now
            var response = HTTPResponse(status: .ok, body: Array(metrics.render().utf8))
            response.headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            instruments.record(metricsLabels, status: 200, since: start)
            return response
        })
        addRPC(methods, to: &router)
        return router
    }

    private func addHealth(to router: inout HTTPRouter) {
        let labels = [listener, "/healthz"]
        router.on(.get, "/healthz", immediate: { [instruments] _ in
            let start = ContinuousClock.now
            let response = HTTPResponse.text("ok")
            instruments.record(labels, status: 200, since: start)
            return response
        })
    }

    private func addRPC(_ methods: RPCMethodTable, to router: inout HTTPRouter) {
        let listener = listener
        let instruments = instruments
        let dispatcher = RPCDispatcher(methods: methods) { call in
            instruments.rpcCalls.increment([listener, call.method, call.reason ?? "OK"])
            instruments.rpcLatency.observe([listener, call.method], call.duration)
        }
        let logger = logger
        let labels = [listener, "/rpc"]
        router.mount("/rpc", .async { request in
            let start = ContinuousClock.now
            let context = RPCContext(
                requestID: RequestID.make(), headers: request.headers, remoteAddress: request.remoteAddress,
                logger: logger)
            let response = await dispatcher.respond(to: request, context: context)
            instruments.record(labels, status: response.status.code, since: start)
            return response
        })
    }
}
