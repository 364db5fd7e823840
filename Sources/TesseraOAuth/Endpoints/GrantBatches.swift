/// Which grants go into which statement, as a value fed with events (group commit in the server: grants that
/// arrive while statements are out share the next one). A grant is sent at once while fewer than `maxInFlight`
/// statements are out; otherwise it waits, and the next statement takes the grants waiting, in arrival order, up
/// to `maxBatch`, and never two of one key (a code twice in one statement would join the one row its first
/// insert made; the second waits for the next statement, where it finds the code spent). A statement's grants go
/// in the order of their keys, so that two statements (of two loops or two servers) that write rows of the same
/// keys lock them in one order and cannot deadlock on them.
struct GrantBatches<Grant> {
    /// The most statements out at once.
    let maxInFlight: Int
    /// The most grants in one statement.
    let maxBatch: Int
    private let key: (Grant) -> [UInt8]
    private var waiting: [Grant] = []
    /// Statements sent and not yet answered.
    private(set) var inFlight = 0

    /// Batches of at most `maxBatch` grants, at most `maxInFlight` out at once; grants of one `key` never share one.
    init(maxInFlight: Int, maxBatch: Int, key: @escaping (Grant) -> [UInt8]) {
        precondition(maxInFlight >= 1 && maxBatch >= 1)
        self.maxInFlight = maxInFlight
        self.maxBatch = maxBatch
        self.key = key
    }

    /// Grants waiting for a statement.
    var waitingCount: Int { waiting.count }

    /// A grant arrived: the batch to send now (holding it), or nil when it waits for a statement to be answered.
    mutating func arrived(_ grant: Grant) -> [Grant]? {
        waiting.append(grant)
        return nextBatch()
    }

    /// A statement was answered (or failed): the next batch to send, or nil when none waits.
    mutating func answered() -> [Grant]? {
        precondition(inFlight > 0, "an answer to no statement")
        inFlight -= 1
        return nextBatch()
    }

    private mutating func nextBatch() -> [Grant]? {
        guard inFlight < maxInFlight, !waiting.isEmpty else { return nil }
        var batch: [Grant] = []
        var keys: [[UInt8]] = []
        var left: [Grant] = []
        for grant in waiting {
            // At most `maxBatch` keys to look through, digests that mostly differ in their first byte: cheaper than
            // hashing each key's every byte into a set (2 600 instructions a cycle under callgrind).
            let grantKey = key(grant)
            if batch.count < maxBatch, !keys.contains(grantKey) {
                keys.append(grantKey)
                batch.append(grant)
            } else {
                left.append(grant)
            }
        }
        waiting = left
        inFlight += 1
        batch.sort { key($0).lexicographicallyPrecedes(key($1)) }
        return batch
    }
}
