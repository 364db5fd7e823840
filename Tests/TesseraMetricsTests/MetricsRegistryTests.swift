import Testing

@testable import TesseraMetrics

@Suite struct MetricsRegistryTests {
    @Test func countersRenderWithEscapedLabels() {
        let registry = MetricsRegistry()
        let requests = registry.counter("t_requests_total", help: "Requests.", labels: ["route", "status"])
        requests.increment(["/rpc", "200"])
        requests.increment(["/rpc", "200"], by: 2)
        requests.increment(["a\"b\\c\nd", "404"])
        #expect(requests.value(["/rpc", "200"]) == 3)
        let text = registry.render()
        #expect(text.contains("# HELP t_requests_total Requests.\n# TYPE t_requests_total counter\n"))
        #expect(text.contains("t_requests_total{route=\"/rpc\",status=\"200\"} 3\n"))
        #expect(text.contains("t_requests_total{route=\"a\\\"b\\\\c\\nd\",status=\"404\"} 1\n"))
    }

    @Test func histogramsAreCumulativeWithSumAndCount() {
        let registry = MetricsRegistry()
        let latency = registry.histogram("t_seconds", help: "Latency.", labels: ["m"], buckets: [0.1, 1])
        latency.observe(["x"], 0.05)
        latency.observe(["x"], 0.5)
        latency.observe(["x"], .seconds(3))
        let text = registry.render()
        #expect(text.contains("t_seconds_bucket{m=\"x\",le=\"0.1\"} 1\n"))
        #expect(text.contains("t_seconds_bucket{m=\"x\",le=\"1\"} 2\n"))
        #expect(text.contains("t_seconds_bucket{m=\"x\",le=\"+Inf\"} 3\n"))
        #expect(text.contains("t_seconds_sum{m=\"x\"} 3.55\n"))
        #expect(text.contains("t_seconds_count{m=\"x\"} 3\n"))
        #expect(latency.count(["x"]) == 3)
    }

    @Test func gaugesAreReadAtRenderTime() {
        let registry = MetricsRegistry()
        registry.gauge("t_pool", help: "Pool.", labels: ["loop"]) { [(["0"], 4), (["1"], 2.5)] }
        let text = registry.render()
        #expect(text.contains("# TYPE t_pool gauge\nt_pool{loop=\"0\"} 4\nt_pool{loop=\"1\"} 2.5\n"))
    }
}
