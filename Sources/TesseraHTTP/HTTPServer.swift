public import Logging
import Synchronization
public import TesseraLoop

/// An HTTP/1.1 server: one listening socket that gives each connection to the loop with the fewest (``TCPListener``),
/// each connection served on that loop, requests routed by an ``HTTPRouter``, limits and timeouts from an
/// ``HTTPServerConfiguration``.
public final class HTTPServer: Sendable {
    /// Where the server is in its life.
    enum Phase {
        case created
        case starting
        case running(port: Int)
        case stopped
    }

    /// The name in log lines and errors (`public`, `admin`).
    public let name: String
    let host: String
    let requestedPort: Int
    let logger: Logger
    let contexts: [LoopBound<HTTPServerLoopContext>]
    let limits: ConnectionLimits
    let phase = Mutex(Phase.created)

    /// Creates a server that will listen on `host:port` (a numeric address; port 0 picks a free port) on every loop
    /// in `loops`. Nothing is bound until ``start()``.
    public init(
        name: String, loops: [EventLoop], host: String, port: Int,
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), router: HTTPRouter, logger: Logger
    ) {
        self.name = name
        self.host = host
        requestedPort = port
        var logger = logger
        logger[metadataKey: "server"] = "\(name)"
        self.logger = logger
        let limits = ConnectionLimits(configuration: configuration)
        self.limits = limits
        contexts = loops.map {
            LoopBound(
                handingOver: HTTPServerLoopContext(
                    loop: $0, configuration: configuration, router: router, limits: limits, logger: logger),
                to: $0)
        }
    }

    /// The bound port once started (the chosen one when port 0 was asked), else the requested port.
    public var port: Int {
        phase.withLock { phase in
            if case .running(let port) = phase { port } else { requestedPort }
        }
    }

    /// Binds the listener on the first loop and starts accepting for every loop.
    public func start() async throws(HTTPServerError) {
        let mayStart = phase.withLock { phase -> Bool in
            guard case .created = phase else { return false }
            phase = .starting
            return true
        }
        guard mayStart else { throw .alreadyStarted(name: name) }
        let (host, port, contexts, logger) = (host, requestedPort, contexts, logger)
        let first = contexts[0]
        let result = try? await first.loop.submit { () -> Result<Int, LoopError> in
            Result { () throws(LoopError) -> Int in
                let listener = try TCPListener(loops: contexts.map(\.loop), host: host, port: port) { tcp in
                    contexts.first { $0.loop === tcp.loop }?.value.accept(tcp)
                }
                listener.onExhaustion = { reason in
                    logger.warning(
                        "accepting paused until descriptors or memory free up: connections wait in the backlog",
                        metadata: ["error": "\(reason)"])
                }
                first.value.listener = listener
                return listener.localPort
            }
        }
        switch result {
        case .success(let boundPort)?:
            phase.withLock { $0 = .running(port: boundPort) }
            logger.info("listening", metadata: ["address": "\(host):\(boundPort)", "loops": "\(contexts.count)"])
        case .failure(let error)?:
            phase.withLock { $0 = .stopped }
            throw .listenFailed(name: name, host: host, port: port, underlying: error)
        case nil:
            phase.withLock { $0 = .stopped }
            throw .listenFailed(name: name, host: host, port: port, underlying: LoopError("loop stopped", code: -1))
        }
    }

    /// Stops accepting (new connections are refused), closes idle connections at once, lets requests in flight be
    /// answered for up to `gracePeriod`, then closes whatever is left. Returns when every connection is done.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        let wasRunning = phase.withLock { phase -> Bool in
            defer { phase = .stopped }
            if case .running = phase { return true }
            return false
        }
        guard wasRunning else { return }
        for context in contexts {
            _ = try? await context.loop.submit { context.value.beginShutdown() }
        }
        let deadline = ContinuousClock.now + gracePeriod
        while await busyConnectionCount() > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let remaining = await busyConnectionCount()
        if remaining > 0 {
            logger.warning("grace period over: closing connections", metadata: ["connections": "\(remaining)"])
            for context in contexts {
                _ = try? await context.loop.submit { context.value.abortAll() }
            }
        }
        logger.info("stopped")
    }

    func busyConnectionCount() async -> Int {
        var count = 0
        for context in contexts {
            count += (try? await context.loop.submit { context.value.busyConnectionCount }) ?? 0
        }
        return count
    }
}
