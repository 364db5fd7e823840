internal import CLibUV
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One libuv loop running on its own thread.
///
/// The loop is the isolation domain of everything it serves: its sockets, timers and database connections
/// are touched only from its thread, so none of them need locks. Work reaches the loop from other threads
/// through ``execute(_:)`` or, for Swift concurrency, because the loop is a `SerialExecutor` and a
/// `TaskExecutor` (see `EventLoop+Executor.swift`). Jobs are queued under a mutex, and the loop is woken only when
/// the queue goes from empty to non-empty: from another thread by `uv_async_send` (a write to an eventfd, read back
/// by the loop); from the loop's own thread, where most work comes from (a socket's callback resuming the task
/// that waits for it), by an idle handle, which costs no system call: it runs the queue before the loop next
/// polls. A drain runs what its jobs queue on the same loop too, up to ``drainRounds`` rounds, before the loop
/// polls its sockets again.
///
/// What a turn's callbacks produce for one system call, such as log lines, can wait for the turn to end:
/// ``runBeforeNextPoll(_:)`` runs it from a prepare handle, the last step before the loop waits for its sockets.
///
/// What a connection writes while it reads (an answer made at once) waits for the other sockets' callbacks of the
/// same turn: ``sendAfterSocketCallbacks(_:)`` sends it from a check handle, which runs right after them. A loop
/// that answers several requests in one turn thus wakes each peer once rather than between two answers, which on
/// a machine where the peers share the loop's processors costs a switch each time.
public final class EventLoop: @unchecked Sendable {
    /// Work waiting to run on the loop thread.
    enum Work {
        /// A Swift concurrency job.
        case job(UnownedJob)
        /// A closure from ``execute(_:)``.
        case closure(@Sendable () -> Void)
    }

    /// State shared with other threads, always under ``pending``'s lock.
    struct Pending {
        var work: [Work] = []
        var stopping = false
    }

    /// The position of this loop in its group, for logs and metrics labels.
    public let index: Int
    /// The libuv loop; use only on the loop thread.
    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let wakeup: UnsafeMutablePointer<uv_async_t>
    /// Started to drain the queue at the next turn of the loop when the loop's own thread queued work.
    private let idle: UnsafeMutablePointer<uv_idle_t>
    /// Started to run ``beforePoll`` when work is deferred to the end of the turn.
    private let prepare: UnsafeMutablePointer<uv_prepare_t>
    /// Started to send what connections hold (``holdingWrites``) once this turn's socket callbacks have run.
    private let check: UnsafeMutablePointer<uv_check_t>
    /// Connections holding what they wrote during this turn's socket callbacks; only the loop thread touches it.
    private var holdingWrites: [TCPConnection] = []
    /// The connections being sent; only the loop thread touches it, so sending allocates nothing.
    private var sendingHeldWrites: [TCPConnection] = []
    /// Work to run before the loop next polls its sockets; only the loop thread touches it.
    private var beforePoll: [() -> Void] = []
    /// The deferred work being run; only the loop thread touches it, so running it allocates nothing.
    private var runningBeforePoll: [() -> Void] = []
    /// Whether ``drain()`` is running; only the loop thread touches it.
    private var draining = false
    private let pending = Mutex(Pending())
    /// The batch being run; only the loop thread touches it, so draining allocates nothing in steady state.
    private var running: [Work] = []
    /// One read buffer for every connection of this loop: libuv fills it and the read callback consumes it
    /// before the next allocation, so sharing it is safe on one thread.
    let readBuffer: UnsafeMutableRawBufferPointer

    /// Creates a loop; it runs once ``EventLoopGroup`` gives it a thread.
    init(index: Int) throws(LoopError) {
        self.index = index
        uvLoop = .allocate(capacity: 1)
        wakeup = .allocate(capacity: 1)
        idle = .allocate(capacity: 1)
        prepare = .allocate(capacity: 1)
        check = .allocate(capacity: 1)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        do {
            try LoopError.check(uv_loop_init(uvLoop), "uv_loop_init")
        } catch {
            uvLoop.deallocate()
            wakeup.deallocate()
            idle.deallocate()
            prepare.deallocate()
            check.deallocate()
            readBuffer.deallocate()
            throw error
        }
        wakeup.initialize(to: uv_async_t())
        let status = uv_async_init(uvLoop, wakeup) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().drain()
        }
        LoopError.require(status, "uv_async_init")
        wakeup.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        idle.initialize(to: uv_idle_t())
        LoopError.require(uv_idle_init(uvLoop, idle), "uv_idle_init")
        idle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        prepare.initialize(to: uv_prepare_t())
        LoopError.require(uv_prepare_init(uvLoop, prepare), "uv_prepare_init")
        prepare.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        check.initialize(to: uv_check_t())
        LoopError.require(uv_check_init(uvLoop, check), "uv_check_init")
        check.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// How many times one drain runs what the jobs it ran queued on this loop, before the loop polls its sockets.
    static let drainRounds = 8

    /// The loop of the calling thread, or nil when the caller is not on a loop thread.
    public static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether the caller runs on this loop's thread.
    public var inEventLoop: Bool {
        pthread_getspecific(currentLoopKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Stops the program when called off this loop's thread: guards loop-confined state.
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "must run on event loop \(index)", file: file, line: line)
    }

    /// Runs `work` on the loop thread soon, after the work queued before it. Safe from any thread.
    /// Work handed to a loop that is stopping is dropped.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        push(.closure(work))
    }

    /// Runs `work` on the loop thread and returns its result to the caller.
    public func submit<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            execute { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Queues work and wakes the loop if the queue was empty.
    func push(_ work: Work) {
        let wasEmpty = pending.withLock { state -> Bool? in
            guard !state.stopping else { return nil }
            let wasEmpty = state.work.isEmpty
            state.work.append(work)
            return wasEmpty
        }
        guard wasEmpty == true else { return }
        if !inEventLoop {
            uv_async_send(wakeup)
        } else if !draining {
            uv_idle_start(idle, Self.drainAtIdle)
        }
    }

    /// The idle handle's callback: drains the loop its handle belongs to.
    private static let drainAtIdle: uv_idle_cb = { handle in
        guard let data = handle?.pointee.data else { return }
        Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().drain()
    }

    /// Runs everything queued so far, and what that queues, on the loop thread: at most ``drainRounds`` batches;
    /// work still queued then is left to the idle handle, at the next turn of the loop, after the sockets.
    private func drain() {
        draining = true
        defer { draining = false }
        for _ in 0..<Self.drainRounds {
            let stopping = pending.withLock { state -> Bool in
                swap(&state.work, &running)
                return state.stopping
            }
            if running.isEmpty && !stopping {
                uv_idle_stop(idle)
                return
            }
            for work in running {
                switch work {
                case .job(let job):
                    job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                case .closure(let closure):
                    closure()
                }
            }
            running.removeAll(keepingCapacity: true)
            if stopping {
                uv_idle_stop(idle)
                uv_stop(uvLoop)
                return
            }
        }
        if pending.withLock({ $0.work.isEmpty }) {
            uv_idle_stop(idle)
        } else {
            uv_idle_start(idle, Self.drainAtIdle)
        }
    }

    /// Runs `work` once on this loop's thread after the callbacks of the current turn of the loop, before the loop
    /// next waits for its sockets (and, when the loop stops, before its thread ends). Work deferred by `work` runs at
    /// the end of the next turn. Call only on the loop's thread.
    public func runBeforeNextPoll(_ work: @escaping () -> Void) {
        preconditionInEventLoop()
        if beforePoll.isEmpty { uv_prepare_start(prepare, Self.runBeforePoll) }
        beforePoll.append(work)
    }

    /// The prepare handle's callback: runs the work deferred to the end of the turn of the loop it belongs to.
    private static let runBeforePoll: uv_prepare_cb = { handle in
        guard let data = handle?.pointee.data else { return }
        let loop = Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue()
        uv_prepare_stop(handle)
        loop.runDeferredWork()
    }

    /// Runs the work deferred to the end of the turn, as it stands now.
    private func runDeferredWork() {
        swap(&beforePoll, &runningBeforePoll)
        for work in runningBeforePoll { work() }
        runningBeforePoll.removeAll(keepingCapacity: true)
    }

    /// Has `connection` send what it holds from a check handle, which libuv runs right after the socket callbacks of
    /// this turn of the loop (and, when the loop stops, before its thread ends). Call only on the loop's thread, once
    /// until the connection is sent.
    func sendAfterSocketCallbacks(_ connection: TCPConnection) {
        if holdingWrites.isEmpty { uv_check_start(check, Self.afterSocketCallbacks) }
        holdingWrites.append(connection)
    }

    /// The check handle's callback: sends what the connections of the loop it belongs to hold.
    private static let afterSocketCallbacks: uv_check_cb = { handle in
        guard let data = handle?.pointee.data else { return }
        let loop = Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue()
        uv_check_stop(handle)
        loop.sendHeldWrites()
    }

    /// Sends what every connection holds, in the order they began to hold.
    private func sendHeldWrites() {
        swap(&holdingWrites, &sendingHeldWrites)
        for connection in sendingHeldWrites { connection.sendHeldWrites() }
        sendingHeldWrites.removeAll(keepingCapacity: true)
    }

    /// Asks the loop thread to leave `uv_run`; later work is dropped. Safe from any thread.
    func requestStop() {
        pending.withLock { $0.stopping = true }
        uv_async_send(wakeup)
    }

    /// The body of the loop's thread: runs until ``requestStop()``.
    func run() {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
        uv_run(uvLoop, UV_RUN_DEFAULT)
        uv_check_stop(check)
        sendHeldWrites()
        uv_prepare_stop(prepare)
        runDeferredWork()
        pthread_setspecific(currentLoopKey, nil)
    }
}

/// The thread-local slot that names the loop a thread runs.
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
