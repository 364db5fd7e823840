public import Logging
import Synchronization
public import TesseraLoop

/// An HTTP/1.1 server: one listening socket per event loop (`SO_REUSEPORT`), each connection served on the loop
/// that accepted it, requests routed by an ``HTTPRouter``, limits and timeouts from an ``HTTPServerConfiguration``.
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

    /// Binds one listener per loop and starts accepting. With port 0 the first loop picks the port and the others
    /// bind the same one. On failure every listener already bound is closed again.
    public func start() async throws(HTTPServerError) {
        let mayStart = phase.withLock { phase -> Bool in
            guard case .created = phase else { return false }
            phase = .starting
            return true
        }
        guard mayStart else { throw .alreadyStarted(name: name) }
        var boundPort = requestedPort
        for (index, context) in contexts.enumerated() {
            let host = host
            let port = boundPort
            let result = try? await context.loop.submit { () -> Result<Int, LoopError> in
                Result { () throws(LoopError) -> Int in try context.value.listen(host: host, port: port) }
            }
            switch result {
            case .success(let port)?:
                if index == 0 { boundPort = port }
            case .failure(let error)?:
                await closeListeners()
                phase.withLock { $0 = .stopped }
                throw .listenFailed(name: name, host: host, port: port, underlying: error)
            case nil:
                await closeListeners()
                phase.withLock { $0 = .stopped }
                throw .listenFailed(name: name, host: host, port: port, underlying: LoopError("loop stopped", code: -1))
            }
        }
        phase.withLock { $0 = .running(port: boundPort) }
        logger.info("listening", metadata: ["address": "\(host):\(boundPort)", "loops": "\(contexts.count)"])
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

    func closeListeners() async {
        for context in contexts {
            _ = try? await context.loop.submit {
                context.value.listener?.close()
                context.value.listener = nil
            }
        }
    }
}
