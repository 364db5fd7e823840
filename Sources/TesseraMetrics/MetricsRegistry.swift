import Synchronization

/// The process's metrics, rendered in the Prometheus text exposition format (version 0.0.4).
///
/// Families are created at start-up; recording a sample takes one uncontended lock of its family. Label
/// values must come from a closed set (route names, method names, reasons): callers map anything
/// client-chosen to a fixed placeholder so that a client cannot grow the registry.
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[any MetricFamily]>([])

    /// Creates an empty registry.
    public init() {}

    /// Registers a counter family: a count that only goes up.
    public func counter(_ name: String, help: String, labels: [String] = []) -> Counter {
        register(Counter(name: name, help: help, labels: labels))
    }

    /// Registers a histogram family; `buckets` are the upper bounds, ascending (`+Inf` is added).
    public func histogram(
        _ name: String, help: String, labels: [String] = [], buckets: [Double] = Histogram.latencyBuckets
    ) -> Histogram {
        register(Histogram(name: name, help: help, labels: labels, buckets: buckets))
    }

    /// Registers a gauge whose samples are read when the registry is rendered.
    public func gauge(
        _ name: String, help: String, labels: [String] = [], read: @escaping @Sendable () -> [([String], Double)]
    ) {
        _ = register(Gauge(name: name, help: help, labels: labels, read: read))
    }

    private func register<Family: MetricFamily>(_ family: Family) -> Family {
        families.withLock { $0.append(family) }
        return family
    }

    /// Every family in the Prometheus text format, in registration order.
    public func render() -> String {
        var output = ""
        for family in families.withLock({ $0 }) {
            output += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.kind)\n"
            family.render(into: &output)
        }
        return output
    }
}

/// One named metric with its samples.
protocol MetricFamily: Sendable {
    var name: String { get }
    var help: String { get }
    var kind: String { get }
    func render(into output: inout String)
}

/// Formats `{a="x",b="y"}` with Prometheus escaping; empty when there are no labels.
func labelText(_ names: [String], _ values: [String], extra: String? = nil) -> String {
    var parts: [String] = []
    for (name, value) in zip(names, values) {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        parts.append("\(name)=\"\(escaped)\"")
    }
    if let extra { parts.append(extra) }
    return parts.isEmpty ? "" : "{" + parts.joined(separator: ",") + "}"
}

/// A number as Prometheus writes it (`+Inf`, integers without a fraction).
func sampleText(_ value: Double) -> String {
    if value == .infinity { return "+Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
