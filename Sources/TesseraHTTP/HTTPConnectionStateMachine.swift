/// The lifecycle of one HTTP/1.1 connection as a value with no I/O: feed it what happened, perform the actions it
/// appends, in order. Each event appends to the caller's list, so that a connection keeps one list for all of them
/// (a new array per event was four allocations a request).
///
/// Rules it keeps:
/// - Requests are answered strictly in order, one handler at a time; later requests wait in a queue, and reading
///   pauses while the queue plus the unfinished response writes reach `maxQueuedRequests`, or the bodies of the
///   queued requests reach `maxQueuedBodyBytes`.
/// - A parse failure or a header or body timeout is answered (400/408/413/417/431/501/505 with `Connection:
///   close`) after the responses to the requests before it, then the connection closes.
/// - The header timer runs from a request's first byte until its headers are complete; the body timer from then
///   (or from the 100 Continue, when one is owed) until the whole request has arrived, except while the server
///   itself has paused reading; the idle timer runs while no request is in progress. There is one timer: arming
///   one replaces the other.
/// - A response with `closeConnection`, a request without keep-alive, or a shutdown makes the response say
///   `Connection: close`; the connection closes once its writes complete. Requests queued behind it are dropped.
/// - Shutdown closes an idle connection at once; a connection with a request in progress closes after answering it.
/// - End of input from the peer: requests already received are still answered (a client may half-close after
///   sending), then the connection closes; a partly received request is dropped. With nothing to answer it closes
///   at once.
public struct HTTPConnectionStateMachine: Sendable {
    /// The timers a connection runs, one at a time.
    public enum Timer: Hashable, Sendable {
        /// Runs from a request's first byte until its headers are complete; firing means 408 and close.
        case header
        /// Runs from the end of the headers (or the 100 Continue) until the body is complete; firing means 408 and
        /// close, so a client cannot hold a connection by announcing a body and sending it slowly or never.
        case body
        /// Runs while no request is in progress; firing means close without a response.
        case idle
    }

    /// What the connection must do, in the order given.
    public enum Action: Sendable {
        /// Run the handler for this request and report its response with ``handlerCompleted(_:)``.
        case startHandler(HTTPRequest)
        /// Encode and write this response, then report the write with ``writeCompleted(success:)``.
        case write(HTTPResponse, HTTPResponseContext)
        /// Write `HTTP/1.1 100 Continue` (not reported back: it needs no completion).
        case send100Continue
        /// Stop reading from the socket.
        case pauseReading
        /// Start reading from the socket again.
        case resumeReading
        /// Arm the connection's timer, replacing whatever it was armed for; report firing with ``timerFired(_:)``.
        case armTimer(Timer)
        /// Stop the connection's timer.
        case cancelTimer
        /// Close the connection (writes already issued are flushed) and stop its timer; no event matters after.
        case close
    }

    /// Where the bytes of the request currently being received stand.
    enum Parsing: Equatable {
        /// No byte of a next request has arrived.
        case betweenRequests
        /// The request line or header fields are arriving (the header timer runs).
        case headers
        /// The body is arriving; `continuePending` when a 100 Continue is owed once earlier responses are out.
        case body(continuePending: Bool)
    }

    /// Something waiting its turn to be answered.
    enum Queued {
        case request(HTTPRequest)
        case failure(HTTPResponse)
    }

    let maxQueuedRequests: Int
    let maxQueuedBodyBytes: Int
    var parsing = Parsing.betweenRequests
    var queue: [Queued] = []
    /// The body bytes of the requests in ``queue``.
    var queuedBodyBytes = 0
    /// The context of the request whose handler is running, if one is.
    var inFlight: HTTPResponseContext?
    var unfinishedWrites = 0
    /// Whether further requests from the peer are answered; false once the connection is on its way to close.
    var acceptingRequests = true
    /// Whether the last response issued closes the connection, so it closes when the writes complete.
    var closeAfterWrites = false
    var readingPaused = false
    var shuttingDown = false
    var peerFinished = false
    var armedTimer: Timer?
    /// Whether ``Action/close`` was returned; every event after that is ignored.
    public private(set) var isClosed = false

    /// Creates the state of a new connection; pass the result of ``start()`` to the connection first.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration()) {
        maxQueuedRequests = configuration.maxQueuedRequests
        maxQueuedBodyBytes = configuration.maxQueuedBodyBytes
    }

    /// Whether no request is in progress: nothing being received, queued, handled.
    public var isIdle: Bool {
        inFlight == nil && queue.isEmpty && parsing == .betweenRequests
    }

    /// The connection was accepted: the idle timer starts.
    public mutating func start(into actions: inout [Action]) {
        guard !isClosed else { return }
        actions.append(arm(.idle))
    }

    /// The first byte of a request arrived.
    public mutating func requestStarted(into actions: inout [Action]) {
        guard !isClosed, acceptingRequests else { return }
        parsing = .headers
        actions.append(arm(.header))
    }

    /// The request's headers are complete; `expectsContinue` when it waits for a 100 Continue before its body.
    public mutating func headersComplete(expectsContinue: Bool, into actions: inout [Action]) {
        guard !isClosed, acceptingRequests else { return }
        if expectsContinue, inFlight == nil, queue.isEmpty {
            actions.append(.send100Continue)
            parsing = .body(continuePending: false)
        } else {
            parsing = .body(continuePending: expectsContinue)
        }
        if parsing == .body(continuePending: false), !readingPaused {
            actions.append(arm(.body))
        } else {
            cancelTimer(into: &actions)
        }
    }

    /// A whole request arrived.
    public mutating func requestReceived(_ request: HTTPRequest, into actions: inout [Action]) {
        guard !isClosed, acceptingRequests else { return }
        parsing = .betweenRequests
        cancelTimer(into: &actions)
        if !request.keepAlive || shuttingDown {
            acceptingRequests = false
            pauseReading(into: &actions)
        }
        if inFlight == nil, queue.isEmpty {
            inFlight = HTTPResponseContext(request: request)
            if isBacklogFull {
                pauseReading(into: &actions)
            }
            actions.append(.startHandler(request))
        } else {
            queue.append(.request(request))
            queuedBodyBytes += request.body.count
            if isBacklogFull {
                pauseReading(into: &actions)
            }
        }
    }

    /// The parser failed; the failure is answered after the responses owed before it, then the connection closes.
    public mutating func parseFailed(_ failure: HTTPParseError, into actions: inout [Action]) {
        guard !isClosed, acceptingRequests else { return }
        fail(with: failure.response, into: &actions)
    }

    /// The handler of the request in flight produced its response.
    public mutating func handlerCompleted(_ response: HTTPResponse, into actions: inout [Action]) {
        guard !isClosed, let request = inFlight else { return }
        inFlight = nil
        let closing =
            request.closeConnection || response.closeConnection || shuttingDown
            || (peerFinished && queue.isEmpty)
        var context = request
        context.closeConnection = closing
        unfinishedWrites += 1
        actions.append(.write(response, context))
        if closing {
            closeAfterWrites = true
            acceptingRequests = false
            dropQueue()
            parsing = .betweenRequests
            cancelTimer(into: &actions)
            pauseReading(into: &actions)
        } else {
            startNext(into: &actions)
        }
    }

    /// A response write issued by ``Action/write(_:_:)`` finished; `success` false when the socket failed.
    public mutating func writeCompleted(success: Bool, into actions: inout [Action]) {
        guard !isClosed else { return }
        unfinishedWrites = max(0, unfinishedWrites - 1)
        if !success || (closeAfterWrites && unfinishedWrites == 0) {
            return close(into: &actions)
        }
        updateReading(into: &actions)
    }

    /// The armed timer fired. A stale firing (the timer was re-armed or cancelled meanwhile) is ignored.
    public mutating func timerFired(_ timer: Timer, into actions: inout [Action]) {
        guard !isClosed, armedTimer == timer else { return }
        armedTimer = nil
        switch timer {
        case .header:
            guard acceptingRequests, parsing == .headers else { return }
            var response = HTTPResponse.text("request headers not received in time\n", status: .requestTimeout)
            response.closeConnection = true
            fail(with: response, into: &actions)
        case .body:
            guard acceptingRequests, parsing == .body(continuePending: false) else { return }
            var response = HTTPResponse.text("request body not received in time\n", status: .requestTimeout)
            response.closeConnection = true
            fail(with: response, into: &actions)
        case .idle:
            guard isIdle else { return }
            close(into: &actions)
        }
    }

    /// The peer sent end of input (or reading failed).
    public mutating func peerClosed(into actions: inout [Action]) {
        guard !isClosed else { return }
        peerFinished = true
        acceptingRequests = false
        parsing = .betweenRequests
        cancelTimer(into: &actions)
        // Without a handler running the queue is always empty: it is drained whenever a handler completes.
        if inFlight == nil {
            if unfinishedWrites == 0 {
                return close(into: &actions)
            }
            closeAfterWrites = true
        }
    }

    /// The server is shutting down: close when idle, else after the response in progress.
    public mutating func shutdownRequested(into actions: inout [Action]) {
        guard !isClosed, !shuttingDown else { return }
        shuttingDown = true
        if inFlight != nil || !queue.isEmpty {
            acceptingRequests = false
            pauseReading(into: &actions)
            if parsing != .betweenRequests {
                parsing = .betweenRequests
                cancelTimer(into: &actions)
            }
        } else if parsing == .betweenRequests {
            acceptingRequests = false
            if unfinishedWrites == 0 {
                return close(into: &actions)
            }
            closeAfterWrites = true
            cancelTimer(into: &actions)
            pauseReading(into: &actions)
        }
    }
}

extension HTTPConnectionStateMachine {
    /// Queued requests plus response writes not yet completed.
    var backlog: Int { queue.count + unfinishedWrites }

    /// Whether reading must pause: the backlog reached `maxQueuedRequests`, or the queued bodies
    /// `maxQueuedBodyBytes`.
    var isBacklogFull: Bool { backlog >= maxQueuedRequests || queuedBodyBytes >= maxQueuedBodyBytes }

    mutating func dropQueue() {
        queue.removeAll()
        queuedBodyBytes = 0
    }

    mutating func arm(_ timer: Timer) -> Action {
        armedTimer = timer
        return .armTimer(timer)
    }

    mutating func cancelTimer(into actions: inout [Action]) {
        guard armedTimer != nil else { return }
        armedTimer = nil
        actions.append(.cancelTimer)
    }

    /// Stops reading; a body being received stops its clock too (the wait is the server's, not the client's).
    mutating func pauseReading(into actions: inout [Action]) {
        guard !readingPaused else { return }
        readingPaused = true
        if armedTimer == .body { cancelTimer(into: &actions) }
        actions.append(.pauseReading)
    }

    /// Pauses reading while the backlog is at the bound, and resumes it (and the clock of a body being received)
    /// once there is room again.
    mutating func updateReading(into actions: inout [Action]) {
        if isBacklogFull {
            pauseReading(into: &actions)
        } else if readingPaused, acceptingRequests {
            readingPaused = false
            actions.append(.resumeReading)
            if parsing == .body(continuePending: false) { actions.append(arm(.body)) }
        }
    }

    mutating func close(into actions: inout [Action]) {
        isClosed = true
        armedTimer = nil
        actions.append(.close)
    }

    /// Answers `response` (which closes) once the responses owed before it are out, and stops taking requests.
    mutating func fail(with response: HTTPResponse, into actions: inout [Action]) {
        acceptingRequests = false
        parsing = .betweenRequests
        cancelTimer(into: &actions)
        pauseReading(into: &actions)
        if inFlight == nil, queue.isEmpty {
            writeFailure(response, into: &actions)
        } else {
            queue.append(.failure(response))
        }
    }

    mutating func writeFailure(_ response: HTTPResponse, into actions: inout [Action]) {
        unfinishedWrites += 1
        closeAfterWrites = true
        dropQueue()
        actions.append(.write(response, HTTPResponseContext(closeConnection: true)))
    }

    /// Starts the next queued item, or, with none, owes the client its 100 Continue or starts the idle timer.
    mutating func startNext(into actions: inout [Action]) {
        if !queue.isEmpty {
            switch queue.removeFirst() {
            case .request(let request):
                queuedBodyBytes -= request.body.count
                inFlight = HTTPResponseContext(request: request)
                actions.append(.startHandler(request))
            case .failure(let response):
                writeFailure(response, into: &actions)
                return
            }
        } else if parsing == .body(continuePending: true) {
            parsing = .body(continuePending: false)
            actions.append(.send100Continue)
            if !readingPaused { actions.append(arm(.body)) }
        } else if parsing == .betweenRequests, acceptingRequests {
            actions.append(arm(.idle))
        }
        updateReading(into: &actions)
    }
}
