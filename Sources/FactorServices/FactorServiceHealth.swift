import Synchronization
public import TesseraMetrics

/// What a server knows of the factor services it calls: a ``CircuitBreaker`` per service, and the metrics
/// `tessera_factor_service_calls_total{factor, method, outcome}`, `tessera_factor_service_seconds{factor, method}`
/// and `tessera_factor_service_up{factor}` (1 while calls go through). It lives as long as the server, so a
/// breaker outlasts each reload of the registrations.
public final class FactorServiceHealth: Sendable {
    private let breakers = Mutex<[String: CircuitBreaker]>([:])
    let calls: Counter?
    let latency: Histogram?

    /// Health without metrics (tests, `tessera factor` tools).
    public init() {
        calls = nil
        latency = nil
    }

    /// Health that records into `metrics`.
    public init(metrics: MetricsRegistry) {
        calls = metrics.counter(
            "tessera_factor_service_calls_total", help: "Calls to factor services, by factor, method and outcome.",
            labels: ["factor", "method", "outcome"])
        latency = metrics.histogram(
            "tessera_factor_service_seconds", help: "Time factor services took to answer.",
            labels: ["factor", "method"])
        metrics.gauge(
            "tessera_factor_service_up",
            help: "1 while calls to a factor service go through, 0 while its circuit is open.",
            labels: ["factor"]
        ) { [self] in
            states().map { ([$0.factor], $0.up ? 1 : 0) }
        }
    }

    /// Whether a call to `factor` may go out now.
    func permit(_ factor: String) -> Bool {
        let now = ContinuousClock.now
        return breakers.withLock { $0[factor, default: CircuitBreaker()].permit(now: now) }
    }

    /// Records the outcome of a call that went out.
    func record(_ factor: String, succeeded: Bool) {
        let now = ContinuousClock.now
        breakers.withLock { all in
            if succeeded {
                all[factor, default: CircuitBreaker()].succeeded()
            } else {
                all[factor, default: CircuitBreaker()].failed(now: now)
            }
        }
    }

    /// Each known service and whether calls to it go through now, by id (for `/readyz`).
    public func states() -> [(factor: String, up: Bool)] {
        let now = ContinuousClock.now
        return breakers.withLock { all in all.sorted { $0.key < $1.key }.map { ($0.key, $0.value.isUp(now: now)) } }
    }

    /// Starts tracking `factor` (registered, not called yet), so `/readyz` and the metrics list it.
    func know(_ factor: String) {
        breakers.withLock { all in
            if all[factor] == nil { all[factor] = CircuitBreaker() }
        }
    }

    /// Forgets the breaker of a service that was removed or changed.
    func forget(_ factor: String) {
        _ = breakers.withLock { $0.removeValue(forKey: factor) }
    }
}
