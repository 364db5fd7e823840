import Logging
import Synchronization
import TesseraLoop
import TesseraMetrics
import TesseraServer
import TesseraTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The event-loop lag monitor tells a loop that stopped (a callback that held its thread) from one that only waited.
struct LoopLagMonitorTests {
    /// The `le` buckets of loop `loop`'s series as rendered, cumulative.
    static func buckets(_ metrics: MetricsRegistry, loop: Int) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in metrics.render().split(separator: "\n")
        where line.hasPrefix("tessera_event_loop_lag_seconds_bucket{loop=\"\(loop)\",") {
            guard let le = line.split(separator: "le=\"").last?.split(separator: "\"").first,
                let count = line.split(separator: " ").last.flatMap({ Int($0) })
            else { continue }
            counts[String(le)] = count
        }
        return counts
    }

    @Test func aHeldLoopIsMeasuredAndWarnedAboutWhileTheOtherRuns() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let metrics = MetricsRegistry()
        let (logger, log) = CapturingLogHandler.logger()
        let warnings: @Sendable () -> [[String: String]] = { log.all.filter { $0.level == .warning }.map(\.metadata) }
        let monitor = LoopLagMonitor(
            loops: group.loops, metrics: metrics, logger: logger, interval: .milliseconds(10),
            warningLag: .milliseconds(150))
        monitor.start()
        defer { monitor.stop() }
        // Both loops time a few turns before one of them is held.
        try await waitUntil { Self.buckets(metrics, loop: 0)["+Inf", default: 0] >= 3 }
        try await waitUntil { Self.buckets(metrics, loop: 1)["+Inf", default: 0] >= 3 }
        let loop0Before = Self.buckets(metrics, loop: 0)["+Inf", default: 0]
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.loops[1].execute {
                usleep(300_000)
                continuation.resume()
            }
        }
        // The monitor records the lag before it warns.
        try await waitUntil { warnings().contains { $0["loop"] == "1" } }
        let loop1 = Self.buckets(metrics, loop: 1)
        #expect(loop1["+Inf", default: 0] - loop1["0.25", default: 0] >= 1)
        let logged = warnings()
        let lags = logged.filter { $0["loop"] == "1" }.compactMap { $0["lag_ms"].flatMap { Int($0) } }
        // The hold less at most one interval; a busy test machine may add to it, never take from it.
        #expect(lags.contains { $0 >= 250 }, "loop 1's warnings: \(lags) ms")
        // The loop that was not held kept running its timer meanwhile (how late, a busy test machine decides).
        #expect(Self.buckets(metrics, loop: 0)["+Inf", default: 0] > loop0Before)
    }

    @Test func stoppedBeforeItsTimersStartLeavesNoneRunning() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let metrics = MetricsRegistry()
        let monitor = LoopLagMonitor(
            loops: group.loops, metrics: metrics, logger: Logger(label: "test"), interval: .milliseconds(5))
        // The loop is held while the monitor starts and stops, so its timer is made only after `stop`.
        let release = Mutex(false)
        group.loops[0].execute {
            while !release.withLock({ $0 }) { usleep(1000) }
        }
        monitor.start()
        monitor.stop()
        release.withLock { $0 = true }
        try await Task.sleep(for: .milliseconds(100))
        #expect(Self.buckets(metrics, loop: 0)["+Inf", default: 0] == 0)
    }
}
