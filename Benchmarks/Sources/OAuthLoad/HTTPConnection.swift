import TesseraLoop

/// One keep-alive HTTP/1.1 connection to the server, owned by one virtual user and used only on its loop.
///
/// ``send(_:)`` writes one request and suspends until its response arrives; requests are not pipelined. The
/// connection opens on first use and again after the server closed it. Every request must finish within
/// `timeout`, otherwise the connection is dropped and the request fails with ``LoadError/timeout``. The unchecked
/// `Sendable` conformance is sound because every method runs on `loop` (checked with a precondition).
final class HTTPConnection: TCPConnectionDelegate, @unchecked Sendable {
    let loop: EventLoop
    private let host: String
    private let port: Int
    private let timeout: Duration
    private var connection: TCPConnection?
    private var reader = HTTPResponseReader()
    private var pending: UnsafeContinuation<HTTPResponse, any Error>?
    private var timer: LoopTimer?

    /// A connection to `host:port` that will live on `loop`.
    init(loop: EventLoop, host: String, port: Int, timeout: Duration) {
        self.loop = loop
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    /// Sends `request` (a complete HTTP/1.1 request) and returns the response. Must be called on `loop`.
    func send(_ request: [UInt8]) async throws -> HTTPResponse {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<HTTPResponse, any Error>) in
            loop.preconditionInEventLoop()
            pending = continuation
            let timer = self.timer ?? LoopTimer(loop: loop)
            self.timer = timer
            timer.start(after: timeout) { [self] in fail(.timeout) }
            if let connection {
                connection.write(request)
                return
            }
            let connector = TCPConnector(loop: loop, host: host, port: port)
            connector.start { [self] result in
                switch result {
                case .success(let connection):
                    guard pending != nil else { return connection.abort() }
                    self.connection = connection
                    reader.reset()
                    connection.delegate = self
                    connection.startReading()
                    connection.write(request)
                case .failure(let error):
                    fail(.socket("connect to \(host):\(port): \(error)"))
                }
            }
        }
    }

    /// Closes the socket; the next ``send(_:)`` opens a new one.
    func close() {
        loop.preconditionInEventLoop()
        drop()
        timer?.close()
        timer = nil
    }

    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        reader.append(bytes)
        do {
            guard let response = try reader.next() else { return }
            guard let continuation = pending else {
                return fail(.malformed("a response nobody asked for"))
            }
            pending = nil
            timer?.stop()
            if response.closes { drop() }
            continuation.resume(returning: response)
        } catch {
            fail(.malformed(error.description))
        }
    }

    func connectionDidReachEnd(_ connection: TCPConnection) {
        let midResponse = reader.hasPartialResponse
        drop()
        if pending != nil {
            let reason = "the server closed the connection" + (midResponse ? " mid-response" : "")
            fail(.socket(reason))
        }
    }

    func connectionDidClose(_ connection: TCPConnection) {
        guard connection === self.connection else { return }
        self.connection = nil
        fail(.socket("the connection failed"))
    }

    /// Drops the socket and fails the request in flight, if any, with `error`.
    private func fail(_ error: LoadError) {
        drop()
        timer?.stop()
        guard let continuation = pending else { return }
        pending = nil
        continuation.resume(throwing: error)
    }

    private func drop() {
        guard let connection else { return }
        self.connection = nil
        connection.delegate = nil
        connection.abort()
        reader.reset()
    }
}
