internal import CLibUV
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket that serves a group of loops: it accepts on the first loop and hands each connection to
/// the loop with the fewest connections open through this listener (ties in turn). Create, use and close it on the
/// first loop's thread.
///
/// One socket per loop with `SO_REUSEPORT` would leave the spreading to the kernel, which picks a loop by a hash of
/// the connection's addresses: a few long-lived connections (a load balancer's pool, a load test's users) then often
/// share one loop while another idles. Counting makes the spread even whatever the number of connections.
public final class TCPListener {
    private let loop: EventLoop
    private let descriptor: Int32
    private let poll: SocketPoll
    private let placement: ConnectionPlacement
    private var onAccept: (@Sendable (TCPConnection) -> Void)?
    /// Runs while accepting is paused because the process is out of descriptors or memory.
    private var pause: LoopTimer?
    /// Whether accepting has paused since a connection was last accepted.
    private var exhausted = false
    private var closed = false
    /// The port the socket is bound to (useful after binding port 0).
    public let localPort: Int
    /// Told, on the listener's loop, why accepting paused (the process is out of descriptors or memory), once until
    /// a connection is accepted again.
    public var onExhaustion: ((LoopError) -> Void)?

    /// How many connections one readiness of the socket accepts before the loop turns to its other work.
    static let acceptsPerTurn = 64
    /// How long accepting waits after the process ran out of descriptors or memory; the connections wait in the
    /// backlog meanwhile.
    static let pauseAfterExhaustion: Duration = .milliseconds(100)

    /// Binds `host:port` (a numeric IPv4 or IPv6 address) and starts accepting on `loops[0]`, the calling loop; each
    /// accepted connection is handed, not yet reading, to `onAccept` on the thread of the loop it was given to
    /// (its ``TCPConnection/loop``, one of `loops`).
    public init(
        loops: [EventLoop], host: String, port: Int, backlog: Int32 = 1024,
        onAccept: @escaping @Sendable (TCPConnection) -> Void
    ) throws(LoopError) {
        precondition(!loops.isEmpty, "a listener needs a loop")
        loop = loops[0]
        loop.preconditionInEventLoop()
        placement = ConnectionPlacement(loops: loops)
        self.onAccept = onAccept
        (descriptor, localPort) = try Self.bind(host: host, port: port, backlog: backlog)
        do {
            poll = try SocketPoll(loop: loop, descriptor: descriptor)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        watch()
    }

    /// A listener on one loop: every connection stays on `loop`.
    public convenience init(
        loop: EventLoop, host: String, port: Int, backlog: Int32 = 1024,
        onAccept: @escaping @Sendable (TCPConnection) -> Void
    ) throws(LoopError) {
        try self.init(loops: [loop], host: host, port: port, backlog: backlog, onAccept: onAccept)
    }

    /// Creates a non-blocking socket, binds and listens; returns it and the bound port.
    private static func bind(host: String, port: Int, backlog: Int32) throws(LoopError) -> (Int32, Int) {
        var address = try SocketAddress.make(host: host, port: port)
        let operation = "listen on \(host):\(port)"
        let descriptor = socket(
            Int32(address.ss_family), Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        try LoopError.check(descriptor >= 0 ? 0 : -errno, operation)
        var bound = sockaddr_storage()
        do {
            // A restarted server binds its port again while the last run's connections are in TIME_WAIT.
            var one: Int32 = 1
            try LoopError.check(
                setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
                    ? 0 : -errno, operation)
            let length = socklen_t(
                Int32(address.ss_family) == AF_INET6
                    ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
            try LoopError.check(
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
                } == 0 ? 0 : -errno, operation)
            try LoopError.check(listen(descriptor, backlog) == 0 ? 0 : -errno, operation)
            var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            try LoopError.check(
                withUnsafeMutablePointer(to: &bound) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &boundLength) }
                } == 0 ? 0 : -errno, operation)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        return (descriptor, SocketAddress.port(bound))
    }

    /// The connections open through this listener on each of its loops, in the order of its loops.
    var openConnections: [Int] { placement.openCounts }

    /// Accepts whenever the socket has connections waiting.
    private func watch() {
        poll.watch(.readable) { [weak self] result in
            switch result {
            case .success: self?.acceptWaiting()
            case .failure(let error): self?.pauseAccepting(error)
            }
        }
    }

    /// Accepts the connections waiting, up to ``acceptsPerTurn``, and hands each to a loop.
    private func acceptWaiting() {
        for _ in 0..<Self.acceptsPerTurn {
            guard !closed else { return }
            let socket = tessera_accept(descriptor)
            if socket >= 0 {
                exhausted = false
                hand(AcceptedSocket(descriptor: socket, placement: placement))
                continue
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK:
                return
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Level-triggered readiness would call again at once: wait instead, the backlog holds the rest.
                return pauseAccepting(LoopError("accept", code: -errno))
            default:
                // A connection that failed before it was accepted (ECONNABORTED, and the network errors Linux
                // reports here): the next one may be fine.
                continue
            }
        }
    }

    private func pauseAccepting(_ reason: LoopError) {
        if !exhausted {
            exhausted = true
            onExhaustion?(reason)
        }
        poll.stop()
        let timer = pause ?? LoopTimer(loop: loop)
        pause = timer
        timer.start(after: Self.pauseAfterExhaustion) { [weak self] in
            guard let self, !self.closed else { return }
            self.watch()
        }
    }

    /// Gives the socket to its loop: at once when that is this loop, else through the loop's queue.
    private func hand(_ socket: AcceptedSocket) {
        guard let onAccept else { return }
        let target = socket.loop
        if target === loop {
            Self.adopt(socket, onAccept)
        } else {
            target.execute { Self.adopt(socket, onAccept) }
        }
    }

    /// On the socket's loop: makes it a connection and hands it over.
    private static func adopt(_ socket: AcceptedSocket, _ onAccept: @Sendable (TCPConnection) -> Void) {
        guard let connection = socket.open() else { return }
        onAccept(connection)
    }

    /// Stops accepting and closes the socket (new connections are refused); connections already accepted, and those
    /// on their way to another loop, are not affected.
    public func close() {
        guard !closed else { return }
        closed = true
        onAccept = nil
        onExhaustion = nil
        pause?.close()
        pause = nil
        // Closing the watcher stops the polling first, so the socket may be closed right after.
        poll.close()
        Glibc.close(descriptor)
    }

    deinit { close() }
}

/// Counts the connections a listener has given each loop and still open, and picks the loop for the next one.
final class ConnectionPlacement: Sendable {
    let loops: [EventLoop]
    private let state: Mutex<(open: [Int], next: Int)>

    init(loops: [EventLoop]) {
        self.loops = loops
        state = Mutex((open: Array(repeating: 0, count: loops.count), next: 0))
    }

    /// The position of the loop with the fewest open connections, the first from the one after the last pick when
    /// several have as few; counts the new connection there.
    func place() -> Int {
        state.withLock { state in
            var chosen = state.next
            for step in 1..<max(state.open.count, 1) {
                let candidate = (state.next + step) % state.open.count
                if state.open[candidate] < state.open[chosen] { chosen = candidate }
            }
            state.open[chosen] += 1
            state.next = (chosen + 1) % state.open.count
            return chosen
        }
    }

    /// A connection given to the loop at `position` has closed.
    func release(_ position: Int) {
        state.withLock { $0.open[position] -= 1 }
    }

    /// The open connections per loop, in the order of `loops`.
    var openCounts: [Int] { state.withLock { $0.open } }
}

/// An accepted socket on its way to its loop. It owns the descriptor until ``open()`` makes it a connection; one
/// that never gets there (its loop stopped) is closed and uncounted when it is released.
private final class AcceptedSocket: @unchecked Sendable {
    // Safe to send: it is used by one thread at a time, the listener's and then its loop's.
    private let descriptor: Int32
    private let placement: ConnectionPlacement
    private let position: Int
    private var owned = true

    init(descriptor: Int32, placement: ConnectionPlacement) {
        self.descriptor = descriptor
        self.placement = placement
        position = placement.place()
    }

    /// The loop the socket was given to.
    var loop: EventLoop { placement.loops[position] }

    /// A connection on the socket's loop (call on that loop's thread); nil when libuv refuses the socket, which is
    /// then closed.
    func open() -> TCPConnection? {
        let handle = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        handle.initialize(to: uv_tcp_t())
        guard LoopError.failure(uv_tcp_init(loop.uvLoop, handle), "accept") == nil else {
            handle.deallocate()
            return nil
        }
        guard LoopError.failure(uv_tcp_open(handle, descriptor), "accept") == nil else {
            handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
            return nil
        }
        owned = false
        uv_tcp_nodelay(handle, 1)
        let placement = placement
        let position = position
        return TCPConnection(loop: loop, handle: handle) { placement.release(position) }
    }

    deinit {
        guard owned else { return }
        Glibc.close(descriptor)
        placement.release(position)
    }
}
