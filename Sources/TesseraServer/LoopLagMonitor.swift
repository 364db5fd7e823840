public import Logging
import Synchronization
public import TesseraLoop
public import TesseraMetrics

/// How late each event loop runs what falls due: every ``interval`` a timer on each loop notes how long after its due
/// time it ran, in `tessera_event_loop_lag_seconds{loop}`, and a lag of ``warningLag`` or more is logged as a warning.
///
/// A loop that runs its timer late held its thread in callbacks all that time (a slow computation, a blocking system
/// call) or got no CPU (the host's steal, the machine's load). A request that waited for the database instead shows
/// in its route's latency, not here: the two together tell a stopped loop from a slow answer. A stall of at least
/// ``interval`` always shows, as a lag of at least the stall less the interval.
public final class LoopLagMonitor: Sendable {
    /// How often each loop's timer falls due.
    public let interval: Duration
    /// The lag from which a warning is logged.
    public let warningLag: Duration
    private let loops: [EventLoop]
    private let lag: Histogram
    private let logger: Logger
    /// Each loop's timer, and whether ``stop()`` was called (a timer made after it is closed at once).
    private let state = Mutex<(timers: [LoopBound<LoopTimer>], stopped: Bool)>(([], false))

    /// A monitor of `loops` recording into `metrics` and warning through `logger`; nothing runs until ``start()``.
    public init(
        loops: [EventLoop], metrics: MetricsRegistry, logger: Logger, interval: Duration = .milliseconds(100),
        warningLag: Duration = .milliseconds(500)
    ) {
        precondition(interval > .zero && warningLag > .zero)
        self.loops = loops
        self.interval = interval
        self.warningLag = warningLag
        self.logger = logger
        lag = metrics.histogram(
            "tessera_event_loop_lag_seconds",
            help: "How long after its due time each event loop ran the monitor's timer, by loop: how long it was held.",
            labels: ["loop"])
    }

    /// Starts a timer on every loop.
    public func start() {
        for loop in loops {
            loop.execute { [self] in
                let timer = LoopTimer(loop: loop)
                let kept = state.withLock { state in
                    if !state.stopped { state.timers.append(LoopBound(timer, loop: loop)) }
                    return !state.stopped
                }
                guard kept else { return timer.close() }
                arm(timer, on: loop, series: lag.series([String(loop.index)]))
            }
        }
    }

    /// Stops every loop's timer.
    public func stop() {
        let timers = state.withLock { state in
            state.stopped = true
            defer { state.timers = [] }
            return state.timers
        }
        for bound in timers {
            bound.loop.execute { bound.value.close() }
        }
    }

    private func arm(_ timer: LoopTimer, on loop: EventLoop, series: HistogramSeries) {
        let due = ContinuousClock.now + interval
        timer.start(after: interval) { [self] in
            let late = max(.zero, ContinuousClock.now - due)
            series.observe(late)
            if late >= warningLag {
                logger.warning(
                    "event loop ran late",
                    metadata: ["loop": "\(loop.index)", "lag_ms": "\(Int(late / .milliseconds(1)))"])
            }
            arm(timer, on: loop, series: series)
        }
    }
}
