import Synchronization
import Testing

@testable import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// The calling thread's name, as `top -H` shows it.
func callingThreadName() -> String {
    let file = open("/proc/thread-self/comm", O_RDONLY)
    defer { close(file) }
    var bytes = [UInt8](repeating: 0, count: 32)
    _ = read(file, &bytes, bytes.count)
    return String(decoding: bytes.prefix { $0 != 0 && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
}

/// An actor that lives on a loop, as the database connections will.
actor LoopBoundCounter {
    let loop: EventLoop
    var count = 0
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop) { self.loop = loop }

    func increment() -> (Int, Bool) {
        count += 1
        return (count, loop.inEventLoop)
    }
}

extension EventLoop {
    /// Returns once the turn of the loop that runs a callback queued now has ended: after the work deferred to the
    /// end of that turn before it (``runBeforeNextPoll(_:)`` keeps the order).
    func endOfTurn() async {
        await withCheckedContinuation { continuation in
            execute { self.runBeforeNextPoll { continuation.resume() } }
        }
    }
}

@Suite struct EventLoopTests {
    @Test func tasksWithTheLoopAsPreferenceRunOnItsThread() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let loop = group.loops[1]
        let observed = await Task(executorPreference: loop) { () async -> (Bool, Int?) in
            await Task.yield()
            return (loop.inEventLoop, EventLoop.current?.index)
        }.value
        #expect(observed.0)
        #expect(observed.1 == 1)
        #expect(!loop.inEventLoop)
        #expect(EventLoop.current == nil)
    }

    @Test func actorsWhoseExecutorIsTheLoopAreIsolatedToIt() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let counter = LoopBoundCounter(loop: group.loops[0])
        var last = 0
        for _ in 0..<100 {
            let (value, onLoop) = await counter.increment()
            #expect(onLoop)
            last = value
        }
        #expect(last == 100)
        #expect(group.loops[0].isIsolatingCurrentContext() == false)
    }

    @Test func executeRunsInOrderAndSubmitReturnsResults() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Mutex<[Int]>([])
        for index in 0..<1000 {
            loop.execute { seen.withLock { $0.append(index) } }
        }
        let onLoop = try await loop.submit { loop.inEventLoop }
        #expect(onLoop)
        #expect(seen.withLock { $0 } == Array(0..<1000))
        await #expect(throws: LoopError.self) {
            try await loop.submit { throw LoopError("test", code: -22) }
        }
    }

    @Test func workTheLoopQueuesForItselfRunsInOrderWithoutStarvingItsTimers() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Mutex<[Int]>([])
        let timerFiredAt = Mutex<Int?>(nil)
        let done = Mutex(false)
        // A chain far longer than one drain's rounds, each link queued from the loop thread (no eventfd), and a
        // timer due at once: the loop must poll (and fire the timer) between drains, and finish the chain.
        @Sendable func link(_ index: Int) {
            seen.withLock { $0.append(index) }
            if index == 5_000 { return done.withLock { $0 = true } }
            loop.execute { link(index + 1) }
        }
        try await loop.submit {
            let timer = LoopTimer(loop: loop)
            timer.start(after: .zero) {
                timerFiredAt.withLock { $0 = seen.withLock { $0.count } }
                timer.close()
            }
            loop.execute { link(0) }
        }
        for _ in 0..<500 where !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(seen.withLock { $0 } == Array(0...5_000))
        let firedAt = try #require(timerFiredAt.withLock { $0 })
        #expect(firedAt < 5_000)
    }

    @Test func workDeferredToTheEndOfTheTurnRunsAfterItsCallbacksOnceAndInOrder() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Mutex<[String]>([])
        try await loop.submit {
            loop.runBeforeNextPoll { seen.withLock { $0.append("deferred 1") } }
            loop.runBeforeNextPoll {
                seen.withLock { $0.append("deferred 2") }
                loop.runBeforeNextPoll { seen.withLock { $0.append("deferred by deferred work") } }
                loop.execute { seen.withLock { $0.append("callback of the next turn") } }
            }
            seen.withLock { $0.append("callback") }
        }
        for _ in 0..<100 where seen.withLock({ $0.count }) < 5 { await loop.endOfTurn() }
        // Work deferred by deferred work waits for the end of the next turn, after that turn's callbacks.
        #expect(
            seen.withLock { $0 } == [
                "callback", "deferred 1", "deferred 2", "callback of the next turn", "deferred by deferred work",
            ])
    }

    @Test func workDeferredWhenTheLoopStopsRunsBeforeItsThreadEnds() throws {
        let group = try EventLoopGroup(loopCount: 1)
        let ran = Mutex(false)
        group.loops[0].execute { group.loops[0].runBeforeNextPoll { ran.withLock { $0 = true } } }
        group.shutdown()
        #expect(ran.withLock { $0 })
    }

    @Test func offloadRunsOnThePoolNotTheLoop() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let result = try await Task(executorPreference: loop) { () async throws -> (Bool, Bool, Int) in
            let onPool = try await loop.offload { EventLoop.current == nil }
            return (onPool, loop.inEventLoop, try await loop.offload { 6 * 7 })
        }.value
        #expect(result == (true, true, 42))
        // Named for itself, not after the loop thread that started the pool.
        #expect(try await loop.offload { callingThreadName() } == "tessera-pool")
        struct Boom: Error {}
        await #expect(throws: Boom.self) { try await loop.offload { throw Boom() } }
    }

    @Test func sleepWaitsAndCanBeCancelled() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let clock = ContinuousClock()
        let start = clock.now
        try await loop.sleep(for: .milliseconds(30))
        #expect(clock.now - start >= .milliseconds(30))

        let sleeper = Task { try await loop.sleep(for: .seconds(30)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func timersFireOnceAndCanBeStopped() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Mutex<[String]>([])
        try await loop.submit {
            let kept = LoopTimer(loop: loop)
            let stopped = LoopTimer(loop: loop)
            kept.start(after: .milliseconds(5)) {
                fired.withLock { $0.append("kept") }
                kept.close()
            }
            stopped.start(after: .milliseconds(5)) { fired.withLock { $0.append("stopped") } }
            stopped.stop()
            stopped.close()
        }
        try await loop.sleep(for: .milliseconds(60))
        #expect(fired.withLock { $0 } == ["kept"])
    }

    @Test func signalsReachTheWatcher() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let received = Mutex<[Int32]>([])
        let watcher = try await loop.submit {
            UnsafeSendable(
                SignalWatcher(loop: loop, signals: [SIGUSR2]) { signal in
                    received.withLock { $0.append(signal) }
                })
        }
        kill(getpid(), SIGUSR2)
        for _ in 0..<100 where received.withLock({ $0.isEmpty }) { try await loop.sleep(for: .milliseconds(5)) }
        #expect(received.withLock { $0 } == [SIGUSR2])
        try await loop.submit { watcher.value.close() }
    }

    @Test func durationsRoundUpToMilliseconds() {
        #expect(Duration.milliseconds(5).roundedUpMilliseconds == 5)
        #expect(Duration.microseconds(1).roundedUpMilliseconds == 1)
        #expect(Duration.seconds(2).roundedUpMilliseconds == 2000)
        #expect(Duration.zero.roundedUpMilliseconds == 0)
        #expect(Duration.milliseconds(-3).roundedUpMilliseconds == 0)
    }
}
