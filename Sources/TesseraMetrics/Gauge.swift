/// A family of gauges whose values are read when the registry renders (pool sizes, queue depths).
final class Gauge: MetricFamily {
    let name: String
    let help: String
    let kind = "gauge"
    private let labels: [String]
    private let read: @Sendable () -> [([String], Double)]

    init(name: String, help: String, labels: [String], read: @escaping @Sendable () -> [([String], Double)]) {
        self.name = name
        self.help = help
        self.labels = labels
        self.read = read
    }

    func render(into output: inout String) {
        for (labelValues, value) in read() {
            output += "\(name)\(labelText(labels, labelValues)) \(sampleText(value))\n"
        }
    }
}
