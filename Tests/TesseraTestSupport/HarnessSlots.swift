/// A counting semaphore for test harnesses that each open a connection pool. swift-testing runs hundreds of tests
/// at once; without a bound their pools together exceed the test cluster's `max_connections` and starve each
/// other on a 2-core machine. Harnesses never nest, so waiting for a slot cannot deadlock.
actor HarnessSlots {
    /// The slots every ``CoreHarness`` shares.
    static let shared = HarnessSlots(limit: 12)

    private let limit: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Waits until a slot is free and takes it; every call must be followed by one ``release()``.
    func acquire() async {
        guard inUse >= limit else {
            inUse += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the next waiter, if any, else frees it.
    func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// The tests that rotate the signing keys, one at a time. The keys live in the shared test database, so a rotation
/// made by one test retires the key another test has just made and expects to see published.
public enum SigningKeyRotation {
    private static let slot = HarnessSlots(limit: 1)

    /// Runs `body` while no other test rotates the signing keys.
    public static func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        await slot.acquire()
        do {
            let value = try await body()
            await slot.release()
            return value
        } catch {
            await slot.release()
            throw error
        }
    }
}
