import Synchronization

/// A family of counters, one series per combination of label values.
public final class Counter: MetricFamily {
    let name: String
    let help: String
    let kind = "counter"
    private let labels: [String]
    private let series = Mutex<[[String]: CounterSeries]>([:])

    init(name: String, help: String, labels: [String]) {
        self.name = name
        self.help = help
        self.labels = labels
    }

    /// The series of these label values (in the order the family declared its labels), created on first use.
    /// Keep it when the labels are known in advance: incrementing a series is one atomic add.
    public func series(_ labelValues: [String]) -> CounterSeries {
        precondition(labelValues.count == labels.count, "\(name) takes labels \(labels)")
        return series.withLock { all in
            if let existing = all[labelValues] { return existing }
            let created = CounterSeries()
            all[labelValues] = created
            return created
        }
    }

    /// Adds `amount` to the series of these label values.
    public func increment(_ labelValues: [String] = [], by amount: Int = 1) {
        series(labelValues).increment(by: amount)
    }

    /// The current value for these label values (0 when never incremented).
    public func value(_ labelValues: [String] = []) -> Int {
        series.withLock { $0[labelValues]?.value ?? 0 }
    }

    func render(into output: inout String) {
        let snapshot = series.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        for (labelValues, series) in snapshot {
            output += "\(name)\(labelText(labels, labelValues)) \(series.value)\n"
        }
    }
}

/// One counter series: a count that only goes up.
public final class CounterSeries: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds `amount`.
    public func increment(by amount: Int = 1) {
        count.add(amount, ordering: .relaxed)
    }

    /// The current count.
    public var value: Int { count.load(ordering: .relaxed) }
}
