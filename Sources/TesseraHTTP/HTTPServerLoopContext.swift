import Logging
import TesseraLoop

/// What one server keeps on one event loop: its open connections, the per-loop caches they share, and on the first
/// loop the server's listener. Touched only on its loop's thread: the server holds it in a ``LoopBound`` and reaches
/// it through `EventLoop.submit`.
final class HTTPServerLoopContext {
    let loop: EventLoop
    let configuration: HTTPServerConfiguration
    let router: HTTPRouter
    let logger: Logger
    /// The server's connection counts, shared by all its loops.
    let limits: ConnectionLimits
    /// Whether request lines are logged (debug level), decided once: the check is on the hot path.
    let logsRequests: Bool
    /// The configuration's header, body and idle timeouts in the timer's milliseconds, converted once: a connection
    /// arms its timer for each of them on every request.
    let headerTimeoutMilliseconds, bodyTimeoutMilliseconds, idleTimeoutMilliseconds: UInt64
    let dateCache = HTTPDateCache()
    /// The server's listener, on the first loop's context only.
    var listener: TCPListener?
    var connections: [ObjectIdentifier: HTTPServerConnection] = [:]
    var shuttingDown = false

    init(
        loop: EventLoop, configuration: HTTPServerConfiguration, router: HTTPRouter, limits: ConnectionLimits,
        logger: Logger
    ) {
        self.loop = loop
        self.limits = limits
        self.configuration = configuration
        self.router = router
        self.logger = logger
        logsRequests = logger.logLevel <= .debug
        headerTimeoutMilliseconds = configuration.headerTimeout.roundedUpMilliseconds
        bodyTimeoutMilliseconds = configuration.bodyTimeout.roundedUpMilliseconds
        idleTimeoutMilliseconds = configuration.idleTimeout.roundedUpMilliseconds
    }

    func accept(_ tcp: TCPConnection) {
        guard !shuttingDown else { return tcp.abort() }
        tcp.writeStallTimeout = configuration.writeTimeout
        guard limits.admit(tcp.remoteAddress) else {
            logger.debug("connection refused: too many open", metadata: ["remote": "\(tcp.remoteAddress ?? "-")"])
            tcp.write(Self.tooManyConnections)
            return tcp.close()
        }
        let connection = HTTPServerConnection(tcp: tcp, context: self)
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
    }

    func connectionClosed(_ connection: HTTPServerConnection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        limits.release(connection.tcp.remoteAddress)
    }

    /// The answer to a connection over a limit, sent before any request is read.
    static let tooManyConnections = Array(
        """
        HTTP/1.1 503 Service Unavailable\r
        Content-Type: text/plain; charset=utf-8\r
        Content-Length: 21\r
        Retry-After: 1\r
        Connection: close\r
        \r
        too many connections

        """.utf8)

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
