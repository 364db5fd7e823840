internal import CLibUV
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// N event loops, each on its own thread, handed out round-robin.
///
/// One group serves the whole process: a listener accepts on its first loop and gives each connection to the loop
/// with the fewest open (``TCPListener``), and each connection then stays on its loop for life.
public final class EventLoopGroup: Sendable {
    /// The loops, in index order.
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)
    private let threads = Mutex<[pthread_t]>([])

    /// Starts `loopCount` loops on as many threads. A write to a closed socket must not kill the
    /// process, so this also ignores SIGPIPE.
    public init(loopCount: Int) throws(LoopError) {
        precondition(loopCount > 0, "an event loop group needs at least one loop")
        signal(SIGPIPE, SIG_IGN)
        var loops: [EventLoop] = []
        for index in 0..<loopCount {
            loops.append(try EventLoop(index: index))
        }
        self.loops = loops
        var started: [pthread_t] = []
        for loop in loops {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(loop).toOpaque()
            let result = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    let loop = Unmanaged<EventLoop>.fromOpaque(context).takeRetainedValue()
                    tessera_set_thread_name("tessera-loop-\(loop.index)")
                    loop.run()
                    return nil
                }, context)
            precondition(result == 0, "pthread_create failed: \(result)")
            started.append(thread)
        }
        threads.withLock { $0 = started }
    }

    /// The next loop in round-robin order.
    public func next() -> EventLoop {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// Stops every loop and waits for its thread to end. Call it after the servers on the loops have shut
    /// down, and never from a loop thread. Calling it twice is harmless.
    public func shutdown() {
        precondition(EventLoop.current == nil, "EventLoopGroup.shutdown() must not run on an event loop")
        let running = threads.withLock { threads -> [pthread_t] in
            defer { threads = [] }
            return threads
        }
        guard !running.isEmpty else { return }
        for loop in loops { loop.requestStop() }
        for thread in running { pthread_join(thread, nil) }
    }
}
