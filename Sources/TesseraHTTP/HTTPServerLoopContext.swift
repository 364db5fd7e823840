import Logging
import TesseraLoop

/// What one server keeps on one event loop: its listener, its open connections, and the per-loop caches they
/// share. Touched only on its loop's thread (through `EventLoop.submit` from the server), which is what makes the
/// `@unchecked Sendable` sound.
final class HTTPServerLoopContext: @unchecked Sendable {
    let loop: EventLoop
    let configuration: HTTPServerConfiguration
    let router: HTTPRouter
    let logger: Logger
    /// Whether request lines are logged (debug level), decided once: the check is on the hot path.
    let logsRequests: Bool
    let dateCache = HTTPDateCache()
    var listener: TCPListener?
    var connections: [ObjectIdentifier: HTTPServerConnection] = [:]
    var shuttingDown = false
    var requestCount: UInt64 = 0

    init(loop: EventLoop, configuration: HTTPServerConfiguration, router: HTTPRouter, logger: Logger) {
        self.loop = loop
        self.configuration = configuration
        self.router = router
        self.logger = logger
        logsRequests = logger.logLevel <= .debug
    }

    /// Binds the listener; returns the bound port.
    func listen(host: String, port: Int) throws(LoopError) -> Int {
        let listener = try TCPListener(loop: loop, host: host, port: port) { [weak self] tcp in
            self?.accept(tcp)
        }
        self.listener = listener
        return listener.localPort
    }

    func accept(_ tcp: TCPConnection) {
        guard !shuttingDown else { return tcp.abort() }
        let connection = HTTPServerConnection(tcp: tcp, context: self)
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
    }

    func connectionClosed(_ connection: HTTPServerConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    /// A short id for log lines: the loop's index and a per-loop sequence number.
    func nextRequestID() -> String {
        requestCount &+= 1
        return "\(loop.index)-\(String(requestCount, radix: 16))"
    }

    /// Stops accepting and asks every connection to close once its request in progress is answered.
    func beginShutdown() {
        shuttingDown = true
        listener?.close()
        listener = nil
        for connection in Array(connections.values) {
            connection.shutdown()
        }
    }

    /// Connections that still owe a response or have not been told to close.
    var busyConnectionCount: Int {
        connections.values.count { !$0.isFinished }
    }

    /// Closes every remaining connection at once.
    func abortAll() {
        for connection in Array(connections.values) where !connection.isFinished {
            connection.abort()
        }
    }
}
