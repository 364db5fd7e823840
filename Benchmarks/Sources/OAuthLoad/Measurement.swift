/// What a number of virtual users did during one measurement, merged.
struct Measurement: Sendable {
    var operations = 0
    var requests = 0
    var latencies = VirtualUser.Latencies()
    /// Failed operations by ``LoadError/kind``.
    var errors: [String: Int] = [:]
    /// The first message of each error kind, for the log.
    var firstErrors: [String: String] = [:]
    /// How long the measurement ran, from the start until the last operation in flight finished.
    var seconds = 0.0

    /// Adds what another virtual user did.
    mutating func merge(_ other: Measurement) {
        operations += other.operations
        requests += other.requests
        latencies.operation.merge(other.latencies.operation)
        latencies.authorize.merge(other.latencies.authorize)
        latencies.token.merge(other.latencies.token)
        errors.merge(other.errors, uniquingKeysWith: +)
        firstErrors.merge(other.firstErrors) { first, _ in first }
    }

    /// Counts a failed operation.
    mutating func record(_ error: any Error) {
        let kind = (error as? LoadError)?.kind ?? "other"
        errors[kind, default: 0] += 1
        if firstErrors[kind] == nil { firstErrors[kind] = "\(error)" }
    }

    /// The measurement as one JSON object on one line.
    func json(scenario: Scenario, phase: String, concurrency: Int, extra: [String] = []) -> String {
        json(
            name: scenario.rawValue, phase: phase, concurrency: concurrency, perRequest: scenario == .cycle,
            extra: extra)
    }

    /// The measurement of scenario `name` as one JSON object on one line, with the authorize and token latencies
    /// when `perRequest`.
    func json(name: String, phase: String, concurrency: Int, perRequest: Bool = false, extra: [String] = []) -> String {
        let errorCount = errors.values.reduce(0, +)
        var fields = [
            "\"scenario\":\"\(name)\"", "\"phase\":\"\(phase)\"", "\"concurrency\":\(concurrency)",
            "\"seconds\":\(decimal(seconds))", "\"operations\":\(operations)",
            "\"operations_per_second\":\(decimal(seconds > 0 ? Double(operations) / seconds : 0))",
            "\"requests_per_second\":\(decimal(seconds > 0 ? Double(requests) / seconds : 0))",
            stats("", latencies.operation), "\"errors\":\(errorCount)",
            "\"error_kinds\":{"
                + errors.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }
                .joined(separator: ",") + "}",
        ]
        if perRequest {
            fields.append("\"authorize\":{" + stats("", latencies.authorize) + "}")
            fields.append("\"token\":{" + stats("", latencies.token) + "}")
        }
        fields += extra
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func stats(_ prefix: String, _ histogram: LatencyHistogram) -> String {
        [
            "\"\(prefix)p50_ms\":\(decimal(histogram.percentile(0.5)))",
            "\"\(prefix)p90_ms\":\(decimal(histogram.percentile(0.9)))",
            "\"\(prefix)p99_ms\":\(decimal(histogram.percentile(0.99)))",
            "\"\(prefix)max_ms\":\(decimal(histogram.maximumMilliseconds))",
        ].joined(separator: ",")
    }

    /// A number with three decimals.
    private func decimal(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
