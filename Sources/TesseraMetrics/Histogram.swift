import Synchronization

/// A family of histograms of observed values (latencies in seconds), one per combination of label values.
public final class Histogram: MetricFamily {
    /// Bucket bounds for request latencies, from 0.5 ms to 10 s.
    public static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// The samples of one label combination.
    struct Series {
        var bucketCounts: [Int]
        var count = 0
        var sum = 0.0
    }

    let name: String
    let help: String
    let kind = "histogram"
    private let labels: [String]
    private let buckets: [Double]
    private let series = Mutex<[[String]: Series]>([:])

    init(name: String, help: String, labels: [String], buckets: [Double]) {
        precondition(buckets == buckets.sorted() && !buckets.isEmpty, "\(name): buckets must ascend")
        self.name = name
        self.help = help
        self.labels = labels
        self.buckets = buckets
    }

    /// Records one observation for these label values.
    public func observe(_ labelValues: [String] = [], _ value: Double) {
        precondition(labelValues.count == labels.count, "\(name) takes labels \(labels)")
        let bucket = buckets.firstIndex { value <= $0 } ?? buckets.count
        series.withLock { all in
            all[labelValues, default: Series(bucketCounts: Array(repeating: 0, count: buckets.count + 1))]
                .record(bucket: bucket, value: value)
        }
    }

    /// Records a duration in seconds.
    public func observe(_ labelValues: [String] = [], _ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        observe(labelValues, Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// How many observations were recorded for these label values.
    public func count(_ labelValues: [String] = []) -> Int {
        series.withLock { $0[labelValues]?.count ?? 0 }
    }

    func render(into output: inout String) {
        let snapshot = series.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        for (labelValues, samples) in snapshot {
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

extension Histogram.Series {
    mutating func record(bucket: Int, value: Double) {
        bucketCounts[bucket] += 1
        count += 1
        sum += value
    }
}
