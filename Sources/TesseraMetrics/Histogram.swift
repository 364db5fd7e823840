import Synchronization

/// A family of histograms of observed values (latencies in seconds), one series per combination of label
/// values.
public final class Histogram: MetricFamily {
    /// Bucket bounds for request latencies, from 0.5 ms to 10 s.
    public static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    let name: String
    let help: String
    let kind = "histogram"
    private let labels: [String]
    private let buckets: [Double]
    private let series = Mutex<[[String]: HistogramSeries]>([:])

    init(name: String, help: String, labels: [String], buckets: [Double]) {
        precondition(buckets == buckets.sorted() && !buckets.isEmpty, "\(name): buckets must ascend")
        self.name = name
        self.help = help
        self.labels = labels
        self.buckets = buckets
    }

    /// The series of these label values, created on first use. Keep it when the labels are known in
    /// advance: observing into a series takes one uncontended lock and no lookup.
    public func series(_ labelValues: [String]) -> HistogramSeries {
        precondition(labelValues.count == labels.count, "\(name) takes labels \(labels)")
        return series.withLock { all in
            if let existing = all[labelValues] { return existing }
            let created = HistogramSeries(buckets: buckets)
            all[labelValues] = created
            return created
        }
    }

    /// Records one observation for these label values.
    public func observe(_ labelValues: [String] = [], _ value: Double) {
        series(labelValues).observe(value)
    }

    /// Records a duration in seconds.
    public func observe(_ labelValues: [String] = [], _ duration: Duration) {
        series(labelValues).observe(duration)
    }

    /// How many observations were recorded for these label values.
    public func count(_ labelValues: [String] = []) -> Int {
        series.withLock { $0[labelValues] }?.snapshot().count ?? 0
    }

    func render(into output: inout String) {
        let snapshot = series.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        for (labelValues, series) in snapshot {
            let samples = series.snapshot()
            var cumulative = 0
            for (index, bound) in (buckets + [.infinity]).enumerated() {
                cumulative += samples.bucketCounts[index]
                let le = "le=\"\(sampleText(bound))\""
                output += "\(name)_bucket\(labelText(labels, labelValues, extra: le)) \(cumulative)\n"
            }
            output += "\(name)_sum\(labelText(labels, labelValues)) \(samples.sum)\n"
            output += "\(name)_count\(labelText(labels, labelValues)) \(samples.count)\n"
        }
    }
}

/// One histogram series.
public final class HistogramSeries: Sendable {
    /// The counts so far.
    struct Samples {
        var bucketCounts: [Int]
        var count = 0
        var sum = 0.0
    }

    private let buckets: [Double]
    private let samples: Mutex<Samples>

    init(buckets: [Double]) {
        self.buckets = buckets
        samples = Mutex(Samples(bucketCounts: Array(repeating: 0, count: buckets.count + 1)))
    }

    /// Records one observation.
    public func observe(_ value: Double) {
        let bucket = buckets.firstIndex { value <= $0 } ?? buckets.count
        samples.withLock { samples in
            samples.bucketCounts[bucket] += 1
            samples.count += 1
            samples.sum += value
        }
    }

    /// Records a duration in seconds.
    public func observe(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        observe(Double(seconds) + Double(attoseconds) / 1e18)
    }

    func snapshot() -> Samples { samples.withLock { $0 } }
}
