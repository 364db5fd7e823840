import Synchronization
public import TesseraLoop

/// The database for a whole event loop group: one ``PostgresPool`` per loop, so a request uses the
/// connections of the loop it runs on and never hops threads.
public final class PostgresClient: Sendable {
    private let pools: [PostgresPool]
    private let group: EventLoopGroup
    private let configuration: PostgresConfiguration
    /// The listeners made by ``listen(channel:onEvent:)``, closed by ``shutdown()``.
    private let listeners = Mutex<[PostgresListener]>([])
    /// Ready connections per loop, written by each pool on its loop, read from anywhere.
    private let readyTable: ReadyTable

    /// Prepares one pool per loop; nothing connects until ``start(timeout:)``.
    public init(configuration: PostgresConfiguration, group: EventLoopGroup) {
        self.group = group
        self.configuration = configuration
        let readyByLoop = ReadyTable(count: group.loops.count)
        // A server that left one connection's request unanswered is silent for every connection made before:
        // each pool drops its own (PostgresPool.dropConnections), rather than finding out a deadline at a time.
        let everyPool = PoolList()
        pools = group.loops.map { loop in
            PostgresPool(
                loop: loop, configuration: configuration,
                onSilentServer: { since, reason in
                    for pool in everyPool.pools {
                        pool.loop.execute { pool.dropConnections(silentSince: since, because: reason) }
                    }
                },
                onReadinessChange: { ready in readyByLoop.set(loop.index, ready) })
        }
        everyPool.pools = pools
        readyTable = readyByLoop
    }

    /// Connects every pool and waits until each has a ready connection. Throws
    /// ``PostgresError/Kind/unavailable`` with libpq's reason as soon as every connection of a pool has failed
    /// its first attempt, or when `timeout` passes. The pools keep reconnecting in the background either way.
    public func start(timeout: Duration = .seconds(10)) async throws(PostgresError) {
        for pool in pools { pool.loop.execute { pool.start() } }
        let deadline = ContinuousClock.now + timeout
        while !isReady {
            for pool in pools {
                if case let reason? = try? await pool.loop.submit({ pool.startupFailure }) {
                    throw PostgresError(.unavailable, message: "database unreachable: \(reason)")
                }
            }
            guard ContinuousClock.now < deadline else {
                throw PostgresError(.unavailable, message: "database unreachable: no connection within \(timeout)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The pool of `loop`.
    public func pool(on loop: EventLoop) -> PostgresPool { pools[loop.index] }

    /// Every loop's pool, in loop order.
    public var poolsByLoop: [PostgresPool] { pools }

    /// Runs `body` with the pool of the calling loop, or, off this client's loops, on the next loop of its
    /// group.
    public func withPool<T: Sendable>(
        _ body: @escaping @Sendable (PostgresPool) async throws -> T
    ) async throws -> T {
        if let loop = EventLoop.current, loop.index < pools.count, pools[loop.index].loop === loop {
            return try await body(pools[loop.index])
        }
        let loop = group.next()
        let pool = pools[loop.index]
        return try await Task(executorPreference: loop) { try await body(pool) }.value
    }

    /// Whether every loop has at least one ready connection. Safe from any thread.
    public var isReady: Bool { readyTable.snapshot().allSatisfy { $0 > 0 } }

    /// Ready connections per loop, in loop order. Safe from any thread.
    public var readyConnectionsByLoop: [Int] { readyTable.snapshot() }

    /// Connections per loop.
    public var connectionsPerLoop: Int { pools.first?.size ?? 0 }

    /// Starts a session of its own on the group's first loop that listens on `channel` and reports to `onEvent` on
    /// that loop (see ``PostgresListener``); ``shutdown()`` closes it.
    public func listen(
        channel: String, onEvent: @escaping @Sendable (PostgresListener.Event) -> Void
    ) -> PostgresListener {
        let loop = group.loops[0]
        let listener = PostgresListener(configuration: configuration, loop: loop, channel: channel, onEvent: onEvent)
        listeners.withLock { $0.append(listener) }
        loop.execute { listener.start() }
        return listener
    }

    /// Closes every connection and listener; later requests fail as unavailable.
    public func shutdown() async {
        for listener in listeners.withLock({ $0 }) { _ = try? await listener.loop.submit { listener.close() } }
        for pool in pools { _ = try? await pool.loop.submit { pool.close() } }
    }

    /// Runs `body`, then shuts the client down, whether `body` returned or threw: for a client that lives as long
    /// as one piece of work (a one-shot command, a test).
    public func shuttingDown<T>(after body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            await shutdown()
            return value
        } catch {
            await shutdown()
            throw error
        }
    }
}

/// The client's pools, for their callbacks: set once, right after they are made and before any starts (so before
/// any callback runs).
private final class PoolList: @unchecked Sendable {
    var pools: [PostgresPool] = []
}

/// Ready connections per loop, shared between the loops that write it and whoever reads it.
private final class ReadyTable: Sendable {
    private let counts: Mutex<[Int]>
    init(count: Int) { counts = Mutex(Array(repeating: 0, count: count)) }
    func set(_ index: Int, _ value: Int) { counts.withLock { $0[index] = value } }
    func snapshot() -> [Int] { counts.withLock { $0 } }
}
