import Logging
import TesseraLoop

/// One accepted connection: glues a ``TCPConnection``, an ``HTTPRequestParser``, an
/// ``HTTPConnectionStateMachine`` and one ``LoopTimer`` together, and performs the machine's actions.
///
/// Everything here runs on the connection's loop thread: socket callbacks, timer fires, and handler tasks
/// (started with `Task.immediate` and the loop as executor preference, so they resume on the loop). That
/// confinement is what makes the `@unchecked Sendable` sound: the only reason for it is that a handler task
/// captures the connection to report its response.
final class HTTPServerConnection: TCPConnectionDelegate, @unchecked Sendable {
    /// What the log line of a request needs, kept from its start to its response.
    struct RequestLog {
        let id: String
        let method: HTTPMethod
        let path: String
        let start: ContinuousClock.Instant
    }

    let tcp: TCPConnection
    let context: HTTPServerLoopContext
    let parser: HTTPRequestParser
    let timer: LoopTimer
    /// The machine and the actions it asked for, in one stored property: each event fed and each action taken is one
    /// exclusivity check.
    var driver: Driver
    var handlerTask: Task<Void, Never>?
    var currentRequest: RequestLog?
    /// What the timer was last armed for, reported when it fires.
    var armedTimer = HTTPConnectionStateMachine.Timer.idle
    /// The timer's callback, made once: arming the timer for each request's header, body and idle time hands it this
    /// closure instead of allocating one.
    lazy var timerFired: () -> Void = { [weak self] in
        guard let self else { return }
        let fired = armedTimer
        perform { $0.timerFired(fired, into: &$1) }
    }
    /// The parser's events of the bytes being read, in a buffer kept from read to read.
    var parserEvents: [HTTPParserEvent] = []

    init(tcp: TCPConnection, context: HTTPServerLoopContext) {
        self.tcp = tcp
        self.context = context
        parser = HTTPRequestParser(configuration: context.configuration)
        timer = LoopTimer(loop: tcp.loop)
        driver = Driver(machine: HTTPConnectionStateMachine(configuration: context.configuration))
    }

    /// Whether the connection has nothing more to do for HTTP (it may still be flushing or lingering).
    var isFinished: Bool { driver.machine.isClosed }

    /// Starts reading and the idle timer.
    func start() {
        tcp.delegate = self
        parser.remoteAddress = tcp.remoteAddress
        perform { $0.start(into: &$1) }
        tcp.startReading()
    }

    /// Asks the connection to close once the request in progress (if any) is answered.
    func shutdown() {
        perform { $0.shutdownRequested(into: &$1) }
    }

    /// Closes the socket at once, whatever is in progress.
    func abort() {
        handlerTask?.cancel()
        timer.stop()
        tcp.abort()
    }

    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard !driver.machine.isClosed else { return }
        parser.feed(bytes, into: &parserEvents)
        defer { parserEvents.removeAll(keepingCapacity: true) }
        for event in parserEvents {
            switch event {
            case .requestStarted:
                perform { $0.requestStarted(into: &$1) }
            case .headersComplete(let expectsContinue):
                perform { $0.headersComplete(expectsContinue: expectsContinue, into: &$1) }
            case .request(let request):
                perform { $0.requestReceived(request, into: &$1) }
            case .failure(let failure):
                context.logger.debug(
                    "unreadable request",
                    metadata: ["reason": "\(failure.reason)", "remote": "\(tcp.remoteAddress ?? "-")"]
                )
                perform { $0.parseFailed(failure, into: &$1) }
            }
        }
    }

    func connectionDidReachEnd(_ connection: TCPConnection) {
        perform { $0.peerClosed(into: &$1) }
    }

    func connectionDidClose(_ connection: TCPConnection) {
        driver.released = true
        handlerTask?.cancel()
        handlerTask = nil
        timer.close()
        context.connectionClosed(self)
    }

    /// Feeds the machine an event, which appends its actions to those still pending, and performs them in order.
    func perform(
        _ event: (inout HTTPConnectionStateMachine, inout [HTTPConnectionStateMachine.Action]) -> Void
    ) {
        guard driver.feed(event) else { return }
        while let action = driver.nextAction() {
            perform(action)
        }
    }

    func perform(_ action: HTTPConnectionStateMachine.Action) {
        switch action {
        case .startHandler(let request):
            startHandler(request)
        case .write(let response, let responseContext):
            write(response, responseContext)
        case .send100Continue:
            tcp.write(HTTPResponseEncoder.continueResponse)
        case .pauseReading:
            tcp.stopReading()
        case .resumeReading:
            tcp.startReading()
        case .armTimer(let kind):
            let milliseconds =
                switch kind {
                case .header: context.headerTimeoutMilliseconds
                case .body: context.bodyTimeoutMilliseconds
                case .idle: context.idleTimeoutMilliseconds
                }
            armedTimer = kind
            timer.start(afterMilliseconds: milliseconds, timerFired)
        case .cancelTimer:
            timer.stop()
        case .close:
            handlerTask?.cancel()
            handlerTask = nil
            timer.stop()
            tcp.close()
        }
    }

    func startHandler(_ request: HTTPRequest) {
        if context.logsRequests {
            currentRequest = RequestLog(id: request.id, method: request.method, path: request.path, start: .now)
        }
        switch context.router.handler(for: request) {
        case .immediate(let handler):
            let response = RequestScope.$id.withValue(request.id) { handler(request) }
            perform { $0.handlerCompleted(response, into: &$1) }
        case .async(let handler):
            handlerTask = Task.immediate(executorPreference: tcp.loop) { [self] in
                let response = await RequestScope.$id.withValue(request.id) { await handler(request) }
                handlerTask = nil
                perform { $0.handlerCompleted(response, into: &$1) }
            }
        }
    }

    func write(_ response: HTTPResponse, _ responseContext: HTTPResponseContext) {
        let date = context.dateCache.current()
        var status = response.status.code
        let bytes: [UInt8]
        do {
            bytes = try HTTPResponseEncoder.encode(response, context: responseContext, date: date)
        } catch {
            context.logger.error("handler response cannot be encoded", metadata: ["reason": "\(error.reason)"])
            status = 500
            let fallback = HTTPResponse.text("internal server error\n", status: .internalServerError)
            bytes = (try? HTTPResponseEncoder.encode(fallback, context: responseContext, date: date)) ?? []
        }
        logResponse(status: status)
        tcp.write(bytes) { [weak self] success in
            guard let self else { return }
            perform { $0.writeCompleted(success: success, into: &$1) }
        }
    }

    /// Logs the request being answered (or a failure response), at debug level; never bodies or credentials.
    func logResponse(status: Int) {
        guard context.logsRequests else { return }
        if let request = currentRequest {
            let milliseconds = (ContinuousClock.now - request.start) / .milliseconds(1)
            context.logger.debug(
                "request",
                metadata: [
                    "request": "\(request.id)", "method": "\(request.method)", "path": "\(request.path)",
                    "status": "\(status)", "duration_ms": "\(milliseconds)",
                ]
            )
        } else {
            context.logger.debug("error response", metadata: ["status": "\(status)"])
        }
        currentRequest = nil
    }
}

extension HTTPServerConnection {
    /// The connection's machine and the actions it asked for that are still to be performed. Performing one can feed
    /// the machine again (a write that completes at once, an immediate handler): those actions queue behind the
    /// others, so the machine's order is kept, and only the outermost `perform` takes them.
    struct Driver {
        var machine: HTTPConnectionStateMachine
        /// Set once the socket is released: a handler that finishes later has nobody to answer.
        var released = false
        private var pending: [HTTPConnectionStateMachine.Action] = []
        private var next = 0
        private var performing = false

        init(machine: HTTPConnectionStateMachine) {
            self.machine = machine
        }

        /// Feeds `event` to the machine unless the socket is released; true when the caller is to take the actions
        /// (no caller further up is taking them).
        mutating func feed(
            _ event: (inout HTTPConnectionStateMachine, inout [HTTPConnectionStateMachine.Action]) -> Void
        ) -> Bool {
            guard !released else { return false }
            event(&machine, &pending)
            guard !performing else { return false }
            performing = true
            return true
        }

        /// The next action to perform; nil, with the queue emptied for the next event, when none is left.
        mutating func nextAction() -> HTTPConnectionStateMachine.Action? {
            if next < pending.count {
                next += 1
                return pending[next - 1]
            }
            pending.removeAll(keepingCapacity: true)
            next = 0
            performing = false
            return nil
        }
    }
}
