import TesseraMetrics
import TesseraPostgres

/// The metric families the server records (API §7).
struct Instruments: Sendable {
    /// HTTP requests by listener, route and status code.
    let httpRequests: Counter
    /// HTTP request latency by listener and route.
    let httpLatency: Histogram
    /// JSON-RPC calls by listener, method and outcome (`OK` or the error reason).
    let rpcCalls: Counter
    /// JSON-RPC call latency by listener and method.
    let rpcLatency: Histogram

    init(registry: MetricsRegistry, database: PostgresClient) {
        httpRequests = registry.counter(
            "tessera_http_requests_total", help: "HTTP requests answered, by listener, route and status.",
            labels: ["listener", "route", "status"])
        httpLatency = registry.histogram(
            "tessera_http_request_duration_seconds", help: "Time to answer an HTTP request, by listener and route.",
            labels: ["listener", "route"])
        rpcCalls = registry.counter(
            "tessera_rpc_calls_total", help: "JSON-RPC calls, by listener, method and reason (OK on success).",
            labels: ["listener", "method", "reason"])
        rpcLatency = registry.histogram(
            "tessera_rpc_call_duration_seconds", help: "Time to run a JSON-RPC call, by listener and method.",
            labels: ["listener", "method"])
        registry.gauge(
            "tessera_db_connections", help: "Database connections per event loop, by state (ready or down).",
            labels: ["loop", "state"]
        ) {
            let size = Double(database.connectionsPerLoop)
            return database.readyConnectionsByLoop.enumerated().flatMap { loop, ready in
                [([String(loop), "ready"], Double(ready)), ([String(loop), "down"], size - Double(ready))]
            }
        }
    }

    /// Counts and times one answered HTTP request.
    func record(_ labels: [String], status: Int, since start: ContinuousClock.Instant) {
        httpRequests.increment(labels + [String(status)])
        httpLatency.observe(labels, ContinuousClock.now - start)
    }
}
