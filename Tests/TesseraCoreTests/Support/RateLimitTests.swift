import FoundationEssentials
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraCore

@Suite struct RateLimitTests {
    /// A server whose clock runs ahead of the database's (a fleet member with a skewed clock, or a test's manual
    /// clock advanced by days) must not prune counters that are still live for everyone else: before, it deleted them
    /// as passed, and their counts started again from nothing.
    @Test func aClockAheadOfTheDatabasesPrunesNoLiveCounter() async throws {
        try await CoreHarness.run { harness in
            let limit = RateLimit(name: "test_skew", limit: 2, window: RateLimit.longestWindow, refusal: "Slow down.")
            let key = UUID().uuidString
            // The oldest row still live by the database's clock, so the first a pruning would take.
            let start = Date().addingTimeInterval(-RateLimit.longestWindow + 60)
            let ahead = start.addingTimeInterval(2 * RateLimit.longestWindow)
            try await harness.database.withPool { pool in
                try await limit.admit(pool, key: key, now: start)
                for _ in 0..<50 { try await limit.admit(pool, key: UUID().uuidString, now: ahead) }
                try await limit.admit(pool, key: key, now: start.addingTimeInterval(1))
            }
            #expect(
                try await reason {
                    try await harness.database.withPool { pool in
                        try await limit.admit(pool, key: key, now: start.addingTimeInterval(2))
                    }
                } == .tooManyAttemptsTryLater)
        }
    }
}
