import TesseraLoop

/// One request's life on one loop: connect, TLS handshake for https, write the request, read the response, close.
///
/// The exchange completes exactly once: with the response, or with the first failure, the timeout, or a
/// cancellation; everything it opened is closed before its completion runs. It keeps itself alive through the
/// closures it hands to its timer, connector and connection. Every method runs on the loop thread: other threads
/// hold it in a ``LoopBound`` and only hand it to ``EventLoop/execute(_:)``.
final class HTTPClientExchange: TCPConnectionDelegate {
    /// How an exchange ends.
    typealias Result = Swift.Result<HTTPClientResponse, HTTPClientError>

    /// Where the exchange stands.
    private enum Phase {
        /// ``start(timeout:completion:)`` was not called yet.
        case created
        /// Resolving the host and connecting.
        case connecting
        /// Connected; the TLS handshake is under way.
        case handshaking
        /// The request is being written and the response read.
        case exchanging
        /// The completion has run, or the exchange was cancelled before it started.
        case finished
    }

    private let loop: EventLoop
    private let url: HTTPClientURL
    private let requestBytes: [UInt8]
    private let parser: HTTPResponseParser
    private let tlsContext: TLSClientContext?
    private var phase = Phase.created
    private var completion: ((Result) -> Void)?
    private var timer: LoopTimer?
    private var connector: TCPConnector?
    private var connection: TCPConnection?
    private var tls: TLSClientSession?

    /// Creates an exchange that sends `requestBytes` to `url` on `loop`; `tlsContext` is used for https only.
    init(
        loop: EventLoop, url: HTTPClientURL, requestBytes: [UInt8], parser: HTTPResponseParser,
        tlsContext: TLSClientContext
    ) {
        self.loop = loop
        self.url = url
        self.requestBytes = requestBytes
        self.parser = parser
        self.tlsContext = url.scheme == .https ? tlsContext : nil
    }

    /// Starts the exchange; `completion` runs once on the loop thread, at the latest when `timeout` has passed.
    func start(timeout: Duration, completion: @escaping (Result) -> Void) {
        loop.preconditionInEventLoop()
        guard case .created = phase else {
            return completion(.failure(.cancelled))
        }
        self.completion = completion
        phase = .connecting
        let timer = LoopTimer(loop: loop)
        self.timer = timer
        timer.start(after: timeout) { [self] in finish(.failure(.timeout(timeout))) }
        let connector = TCPConnector(loop: loop, host: url.host, port: url.port)
        self.connector = connector
        connector.start { [self] result in connected(result) }
    }

    /// Gives up and closes everything; the completion reports ``HTTPClientError/cancelled``. Cancelling before
    /// ``start(timeout:completion:)`` makes the start complete at once.
    func cancel() {
        loop.preconditionInEventLoop()
        if case .created = phase {
            phase = .finished
            return
        }
        finish(.failure(.cancelled))
    }

    private func connected(_ result: Swift.Result<TCPConnection, LoopError>) {
        connector = nil
        guard case .connecting = phase else {
            if case .success(let connection) = result { connection.abort() }
            return
        }
        switch result {
        case .failure(let error):
            finish(.failure(clientError(for: error)))
        case .success(let connection):
            self.connection = connection
            connection.delegate = self
            connection.startReading()
            guard let tlsContext else {
                phase = .exchanging
                return connection.write(requestBytes)
            }
            do {
                tls = try TLSClientSession(context: tlsContext, host: url.host, hostIsIPAddress: url.hostIsIPAddress)
            } catch {
                return finish(.failure(error))
            }
            phase = .handshaking
            advanceHandshake()
        }
    }

    private func clientError(for error: LoopError) -> HTTPClientError {
        if error.isNameResolutionFailure { return .dnsFailure(host: url.host, reason: error.message) }
        if error.isConnectionRefused { return .connectionRefused(host: url.host, port: url.port) }
        return .connectionFailed(host: url.host, port: url.port, reason: error.message)
    }

    private func advanceHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .needsInput:
            flushTLS()
        case .failed(let reason):
            flushTLS()
            finish(.failure(.tlsFailure(host: url.host, reason: reason)))
        case .established:
            phase = .exchanging
            if let reason = tls.send(requestBytes) {
                return finish(.failure(.tlsFailure(host: url.host, reason: reason)))
            }
            flushTLS()
            readDecrypted()
        }
    }

    /// Sends whatever the TLS session wants sent.
    private func flushTLS() {
        guard let tls, let connection else { return }
        let output = tls.takeOutput()
        if !output.isEmpty { connection.write(output) }
    }

    /// Decrypts what has arrived and hands it to the parser, until the session needs more input.
    private func readDecrypted() {
        while case .exchanging = phase, let tls {
            switch tls.read() {
            case .plaintext(let bytes):
                bytes.withUnsafeBytes { settle(parser.feed($0)) }
            case .needsInput:
                return flushTLS()
            case .closed:
                flushTLS()
                return settle(parser.finish())
            case .failed(let reason):
                return finish(.failure(.tlsFailure(host: url.host, reason: reason)))
            }
        }
    }

    private func settle(_ outcome: HTTPResponseParser.Outcome) {
        switch outcome {
        case .incomplete: break
        case .complete(let response): finish(.success(response))
        case .failed(let error): finish(.failure(error))
        }
    }

    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        switch phase {
        case .handshaking:
            tls?.receive(bytes)
            advanceHandshake()
        case .exchanging:
            if let tls {
                tls.receive(bytes)
                readDecrypted()
            } else {
                settle(parser.feed(bytes))
            }
        case .created, .connecting, .finished:
            break
        }
    }

    func connectionDidReachEnd(_ connection: TCPConnection) {
        switch phase {
        case .handshaking:
            let reason = "the server closed the connection during the handshake"
            finish(.failure(.tlsFailure(host: url.host, reason: reason)))
        case .exchanging:
            settle(parser.finish())
        case .created, .connecting, .finished:
            break
        }
    }

    func connectionDidClose(_ connection: TCPConnection) {
        // Reached only when the socket failed under the exchange (a write error): a finished exchange has already
        // dropped its completion.
        finish(.failure(.connectionFailed(host: url.host, port: url.port, reason: "the connection was closed")))
    }

    /// Closes everything and runs the completion, once.
    private func finish(_ result: Result) {
        guard let completion else { return }
        self.completion = nil
        phase = .finished
        timer?.close()
        timer = nil
        connector?.cancel()
        connector = nil
        connection?.abort()
        connection = nil
        tls = nil
        completion(result)
    }
}
