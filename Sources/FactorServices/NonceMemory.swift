import FoundationEssentials

/// The nonces a factor service accepted within the last ``FactorServiceSignature/nonceMemory`` seconds (a value,
/// no I/O): a request whose nonce is remembered is a replay. Memory is bounded by the call rate times the window;
/// old nonces are pruned as new ones arrive.
struct NonceMemory {
    private var seen: [String: TimeInterval] = [:]
    private var order: [(nonce: String, at: TimeInterval)] = []
    private var start = 0

    /// Records `nonce` accepted at `now` (seconds); false when it was seen within the window.
    mutating func accept(_ nonce: String, now: TimeInterval) -> Bool {
        while start < order.count, order[start].at <= now - FactorServiceSignature.nonceMemory {
            seen.removeValue(forKey: order[start].nonce)
            start += 1
        }
        if start > 1024, start * 2 > order.count {
            order.removeFirst(start)
            start = 0
        }
        guard seen[nonce] == nil else { return false }
        seen[nonce] = now
        order.append((nonce, now))
        return true
    }

    /// How many nonces are remembered.
    var count: Int { seen.count }
}
