import TesseraCore
import TesseraMetrics
import TesseraPostgres
import TesseraRPC

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

    init(registry: MetricsRegistry, database: PostgresClient, changes: ChangeFeed) {
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
        registry.gauge(
            "tessera_change_listener_up",
            help: "1 while the session that listens for change notices listens (caches then follow changes at once)."
        ) {
            [([], changes.isListening ? 1 : 0)]
        }
        registry.gauge(
            "tessera_change_notices_heard", help: "Change notices heard since start (each drops cached rows)."
        ) {
            [([], Double(changes.noticesHeard))]
        }
    }

    /// The series of one route, resolved once so that recording a request does no lookup.
    func route(_ route: String, on listener: String) -> RouteInstruments {
        let labels = [listener, route]
        return RouteInstruments(
            labels: labels, requests: httpRequests, ok: httpRequests.series(labels + ["200"]),
            latency: httpLatency.series(labels))
    }

    /// The series of every method of a listener (and of unknown and invalid calls), resolved once.
    func methods(_ names: [String], on listener: String) -> MethodInstruments {
        var byMethod: [String: MethodInstruments.Series] = [:]
        for name in names + ["rpc.discover", RPCCallRecord.unknownMethod, RPCCallRecord.invalidRequest] {
            byMethod[name] = MethodInstruments.Series(
                ok: rpcCalls.series([listener, name, "OK"]), latency: rpcLatency.series([listener, name]))
        }
        return MethodInstruments(listener: listener, calls: rpcCalls, latency: rpcLatency, byMethod: byMethod)
    }
}

/// The metrics of one HTTP route.
struct RouteInstruments: Sendable {
    let labels: [String]
    let requests: Counter
    let ok: CounterSeries
    let latency: HistogramSeries

    /// Counts and times one answered request.
    func record(status: Int, since start: ContinuousClock.Instant) {
        if status == 200 { ok.increment() } else { requests.increment(labels + [String(status)]) }
        latency.observe(ContinuousClock.now - start)
    }
}

/// The metrics of one listener's JSON-RPC methods.
struct MethodInstruments: Sendable {
    /// The series of one method that need no lookup: successful calls and latency.
    struct Series: Sendable {
        let ok: CounterSeries
        let latency: HistogramSeries
    }

    let listener: String
    let calls: Counter
    let latency: Histogram
    let byMethod: [String: Series]

    /// Counts and times one call; errors are counted by reason. The dispatcher names only registered methods,
    /// `(unknown)` and `(invalid)`, which are all resolved in advance.
    func record(_ call: RPCCallRecord) {
        let series =
            byMethod[call.method]
            ?? Series(
                ok: calls.series([listener, call.method, "OK"]), latency: latency.series([listener, call.method]))
        if let reason = call.reason {
            calls.increment([listener, call.method, reason])
        } else {
            series.ok.increment()
        }
        series.latency.observe(call.duration)
    }
}
