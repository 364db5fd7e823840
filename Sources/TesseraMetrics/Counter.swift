import Synchronization

/// A family of counters, one per combination of label values.
public final class Counter: MetricFamily {
    let name: String
    let help: String
    let kind = "counter"
    private let labels: [String]
    private let values = Mutex<[[String]: Int]>([:])

    init(name: String, help: String, labels: [String]) {
        self.name = name
        self.help = help
        self.labels = labels
    }

    /// Adds `amount` to the counter with these label values (in the order the family declared its labels).
    public func increment(_ labelValues: [String] = [], by amount: Int = 1) {
        precondition(labelValues.count == labels.count, "\(name) takes labels \(labels)")
        values.withLock { $0[labelValues, default: 0] += amount }
    }

    /// The current value for these label values (0 when never incremented).
    public func value(_ labelValues: [String] = []) -> Int {
        values.withLock { $0[labelValues] ?? 0 }
    }

    func render(into output: inout String) {
        let snapshot = values.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        for (labelValues, value) in snapshot {
            output += "\(name)\(labelText(labels, labelValues)) \(value)\n"
        }
    }
}
