/// Latencies in microseconds, counted in log-linear buckets (like HdrHistogram with 128 sub-buckets per power of
/// two): exact below 256 µs, within 0.8 % above, up to about 19 hours. Recording is an index computation and an
/// increment, so every request can be recorded. Each virtual user owns its histograms; they are merged at the end.
struct LatencyHistogram: Sendable {
    private static let subBucketBits = 7
    private static let subBuckets = 1 << subBucketBits
    private static let exactLimit = 1 << (subBucketBits + 1)
    private static let largestShift = 29
    private static let bucketCount = exactLimit + largestShift * subBuckets

    private var counts = [Int](repeating: 0, count: LatencyHistogram.bucketCount)
    /// How many latencies were recorded.
    private(set) var count = 0
    /// The largest latency recorded, exactly, in microseconds.
    private(set) var maximum = 0

    /// Records one latency of `microseconds`.
    mutating func record(_ microseconds: Int) {
        let value = max(0, microseconds)
        counts[Self.index(of: value)] += 1
        count += 1
        if value > maximum { maximum = value }
    }

    /// Adds every latency of `other`.
    mutating func merge(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
        count += other.count
        maximum = max(maximum, other.maximum)
    }

    /// The latency in milliseconds below or at which `fraction` of the recorded ones lie: the highest value of the
    /// bucket that holds that rank (0 when nothing was recorded).
    func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for index in counts.indices {
            seen += counts[index]
            if seen >= rank { return Double(min(Self.highestValue(of: index), maximum)) / 1000 }
        }
        return Double(maximum) / 1000
    }

    /// The largest latency in milliseconds.
    var maximumMilliseconds: Double { Double(maximum) / 1000 }

    private static func index(of value: Int) -> Int {
        if value < exactLimit { return value }
        let highestBit = Int.bitWidth - 1 - value.leadingZeroBitCount
        let shift = min(highestBit - subBucketBits, largestShift)
        let top = min(value >> shift, 2 * subBuckets - 1)
        return exactLimit + (shift - 1) * subBuckets + (top - subBuckets)
    }

    private static func highestValue(of index: Int) -> Int {
        if index < exactLimit { return index }
        let shift = (index - exactLimit) / subBuckets + 1
        let top = (index - exactLimit) % subBuckets + subBuckets
        return ((top + 1) << shift) - 1
    }
}
