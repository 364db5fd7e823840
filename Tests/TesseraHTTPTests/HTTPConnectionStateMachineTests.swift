import TesseraHTTP
import Testing

/// A comparable summary of state-machine actions.
enum Did: Equatable, CustomStringConvertible {
    case start(String)
    case write(Int, close: Bool)
    case continue100
    case pause
    case resume
    case arm(HTTPConnectionStateMachine.Timer)
    case cancel
    case close

    init(_ action: HTTPConnectionStateMachine.Action) {
        switch action {
        case .startHandler(let request): self = .start(request.target)
        case .write(let response, let context): self = .write(response.status.code, close: context.closeConnection)
        case .send100Continue: self = .continue100
        case .pauseReading: self = .pause
        case .resumeReading: self = .resume
        case .armTimer(let timer): self = .arm(timer)
        case .cancelTimer: self = .cancel
        case .close: self = .close
        }
    }

    var description: String {
        switch self {
        case .start(let target): "start(\(target))"
        case .write(let code, let close): "write(\(code)\(close ? ", close" : ""))"
        case .continue100: "100"
        case .pause: "pause"
        case .resume: "resume"
        case .arm(let timer): "arm(\(timer))"
        case .cancel: "cancel"
        case .close: "close"
        }
    }
}

func did(_ actions: [HTTPConnectionStateMachine.Action]) -> [Did] { actions.map(Did.init) }

func request(_ target: String, method: HTTPMethod = .get, keepAlive: Bool = true, http10: Bool = false) -> HTTPRequest {
    HTTPRequest(method: method, target: target, version: (1, http10 ? 0 : 1), keepAlive: keepAlive)
}

/// Each event's actions as a list of their own, as the tests read them; the connection appends them to one list.
extension HTTPConnectionStateMachine {
    private mutating func actions(of event: (inout Self, inout [Action]) -> Void) -> [Action] {
        var actions: [Action] = []
        event(&self, &actions)
        return actions
    }

    mutating func start() -> [Action] { actions { $0.start(into: &$1) } }
    mutating func requestStarted() -> [Action] { actions { $0.requestStarted(into: &$1) } }
    mutating func headersComplete(expectsContinue: Bool) -> [Action] {
        actions { $0.headersComplete(expectsContinue: expectsContinue, into: &$1) }
    }
    mutating func requestReceived(_ request: HTTPRequest) -> [Action] {
        actions { $0.requestReceived(request, into: &$1) }
    }
    mutating func parseFailed(_ failure: HTTPParseError) -> [Action] { actions { $0.parseFailed(failure, into: &$1) } }
    mutating func handlerCompleted(_ response: HTTPResponse) -> [Action] {
        actions { $0.handlerCompleted(response, into: &$1) }
    }
    mutating func writeCompleted(success: Bool) -> [Action] {
        actions { $0.writeCompleted(success: success, into: &$1) }
    }
    mutating func timerFired(_ timer: Timer) -> [Action] { actions { $0.timerFired(timer, into: &$1) } }
    mutating func peerClosed() -> [Action] { actions { $0.peerClosed(into: &$1) } }
    mutating func shutdownRequested() -> [Action] { actions { $0.shutdownRequested(into: &$1) } }

    /// Delivers a whole request the way the parser reports it: started, headers, request.
    mutating func receive(_ request: HTTPRequest) -> [Did] {
        did(requestStarted() + headersComplete(expectsContinue: false) + requestReceived(request))
    }
}

@Suite struct HTTPConnectionStateMachineTests {
    @Test func oneRequestLifecycle() {
        var machine = HTTPConnectionStateMachine()
        #expect(did(machine.start()) == [.arm(.idle)])
        #expect(did(machine.requestStarted()) == [.arm(.header)])
        #expect(did(machine.headersComplete(expectsContinue: false)) == [.arm(.body)])
        #expect(did(machine.requestReceived(request("/a"))) == [.cancel, .start("/a")])
        #expect(!machine.isIdle)
        #expect(did(machine.handlerCompleted(.text("ok"))) == [.write(200, close: false), .arm(.idle)])
        #expect(machine.isIdle)
        #expect(did(machine.writeCompleted(success: true)) == [])
        #expect(did(machine.timerFired(.idle)) == [.close])
        #expect(machine.isClosed)
        #expect(did(machine.requestStarted()) == [])
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOneAtATime() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        #expect(machine.receive(request("/1")) == [.arm(.header), .arm(.body), .cancel, .start("/1")])
        #expect(machine.receive(request("/2")) == [.arm(.header), .arm(.body), .cancel])
        #expect(machine.receive(request("/3")) == [.arm(.header), .arm(.body), .cancel])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .start("/2")])
        #expect(did(machine.handlerCompleted(.text("2"))) == [.write(200, close: false), .start("/3")])
        #expect(did(machine.handlerCompleted(.text("3"))) == [.write(200, close: false), .arm(.idle)])
        #expect(did(machine.writeCompleted(success: true) + machine.writeCompleted(success: true)) == [])
        #expect(did(machine.writeCompleted(success: true)) == [])
        #expect(machine.isIdle)
    }

    @Test func readingPausesPastTheQueueBoundAndResumes() {
        var machine = HTTPConnectionStateMachine(configuration: HTTPServerConfiguration(maxQueuedRequests: 2))
        _ = machine.start()
        #expect(machine.receive(request("/1")).last == .start("/1"))
        #expect(machine.receive(request("/2")) == [.arm(.header), .arm(.body), .cancel])
        #expect(machine.receive(request("/3")) == [.arm(.header), .arm(.body), .cancel, .pause])
        // Finishing /1 leaves one queued request and one unfinished write: still at the bound.
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .start("/2")])
        #expect(did(machine.writeCompleted(success: true)) == [.resume])
        #expect(did(machine.handlerCompleted(.text("2"))) == [.write(200, close: false), .start("/3")])
    }

    @Test func slowReaderPausesReadingThroughUnfinishedWrites() {
        var machine = HTTPConnectionStateMachine(configuration: HTTPServerConfiguration(maxQueuedRequests: 2))
        _ = machine.start()
        #expect(machine.receive(request("/1")) == [.arm(.header), .arm(.body), .cancel, .start("/1")])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .arm(.idle)])
        #expect(machine.receive(request("/2")) == [.arm(.header), .arm(.body), .cancel, .start("/2")])
        // Two writes the peer has not taken yet reach the bound: reading pauses.
        #expect(did(machine.handlerCompleted(.text("2"))) == [.write(200, close: false), .arm(.idle), .pause])
        #expect(did(machine.writeCompleted(success: true)) == [.resume])
        #expect(machine.receive(request("/3")) == [.arm(.header), .arm(.body), .cancel, .start("/3")])
        #expect(did(machine.handlerCompleted(.text("3"))) == [.write(200, close: false), .arm(.idle), .pause])
        // A request that arrives while paused (from bytes already read) starts at once and keeps reading paused;
        // its body has no clock meanwhile.
        #expect(machine.receive(request("/4")) == [.arm(.header), .cancel, .start("/4")])
        #expect(did(machine.writeCompleted(success: true)) == [.resume])
        #expect(did(machine.handlerCompleted(.text("4"))) == [.write(200, close: false), .arm(.idle), .pause])
    }

    @Test func parseFailureAfterPipelinedRequestsIsAnsweredLast() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.receive(request("/2"))
        #expect(did(machine.requestStarted()) == [.arm(.header)])
        #expect(did(machine.parseFailed(.malformed(reason: "x"))) == [.cancel, .pause])
        // Anything the parser reports afterwards is ignored.
        #expect(did(machine.requestReceived(request("/late"))) == [])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .start("/2")])
        #expect(did(machine.handlerCompleted(.text("2"))) == [.write(200, close: false), .write(400, close: true)])
        #expect(did(machine.writeCompleted(success: true) + machine.writeCompleted(success: true)) == [])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test(arguments: [
        (HTTPParseError.headersTooLarge, 431), (.bodyTooLarge, 413), (.versionNotSupported, 505),
        (.expectationFailed, 417), (.malformed(reason: "bad"), 400),
    ])
    func parseFailureOnAnIdleConnectionIsAnsweredAtOnce(failure: HTTPParseError, code: Int) {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.requestStarted()
        #expect(did(machine.parseFailed(failure)) == [.cancel, .pause, .write(code, close: true)])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func headerTimeoutIs408AndClose() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.requestStarted()
        #expect(did(machine.timerFired(.header)) == [.pause, .write(408, close: true)])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func aBodyThatDoesNotArriveInTimeIs408AndClose() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.requestStarted()
        // Content-Length: 1048576 and then nothing: the body clock runs from the end of the headers.
        #expect(did(machine.headersComplete(expectsContinue: false)) == [.arm(.body)])
        #expect(did(machine.timerFired(.body)) == [.pause, .write(408, close: true)])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func theBodyClockStartsWithTheOwedContinueAndStopsWhileTheServerPausesReading() {
        var machine = HTTPConnectionStateMachine(configuration: HTTPServerConfiguration(maxQueuedRequests: 2))
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.requestStarted()
        // No clock while the client waits for its 100 Continue: the wait is the server's.
        #expect(did(machine.headersComplete(expectsContinue: true)) == [.cancel])
        #expect(did(machine.timerFired(.body)) == [])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .continue100, .arm(.body)])
        #expect(did(machine.requestReceived(request("/upload", method: .post))) == [.cancel, .start("/upload")])
        // A body arriving while the server has paused reading (backlog full) has no clock until reading resumes.
        _ = machine.requestStarted()
        #expect(did(machine.headersComplete(expectsContinue: false)) == [.arm(.body)])
        #expect(did(machine.handlerCompleted(.text("upload"))) == [.write(200, close: false), .cancel, .pause])
        #expect(did(machine.timerFired(.body)) == [])
        #expect(did(machine.writeCompleted(success: true)) == [.resume, .arm(.body)])
        #expect(did(machine.timerFired(.body)) == [.pause, .write(408, close: true)])
    }

    @Test func queuedBodiesPauseReadingPastTheirByteBound() {
        var machine = HTTPConnectionStateMachine(configuration: HTTPServerConfiguration(maxQueuedBodyBytes: 1000))
        _ = machine.start()
        var big = request("/big", method: .post)
        big.body = Array(repeating: 1, count: 600)
        #expect(machine.receive(request("/1")).last == .start("/1"))
        #expect(machine.receive(big) == [.arm(.header), .arm(.body), .cancel])
        // Two queued bodies of 600 bytes reach 1000 long before 16 requests do.
        #expect(machine.receive(big) == [.arm(.header), .arm(.body), .cancel, .pause])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .start("/big"), .resume])
    }

    @Test func headerTimeoutBehindABusyHandlerWaitsItsTurn() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.requestStarted()
        #expect(did(machine.timerFired(.header)) == [.pause])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .write(408, close: true)])
    }

    @Test func staleTimerFiringsAreIgnored() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.requestStarted()
        #expect(did(machine.timerFired(.idle)) == [])
        _ = machine.headersComplete(expectsContinue: false)
        #expect(did(machine.timerFired(.header)) == [])
        _ = machine.requestReceived(request("/1"))
        #expect(did(machine.timerFired(.idle)) == [])
        #expect(!machine.isClosed)
    }

    @Test func idleTimerIsNotRunningWhileARequestIsInProgress() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.requestStarted()
        // The next request is arriving while the first is answered: its header timer stays armed.
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false)])
        #expect(did(machine.timerFired(.header)) == [.pause, .write(408, close: true)])
    }

    @Test func responseThatClosesDropsTheQueue() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.receive(request("/2"))
        var response = HTTPResponse.text("bye")
        response.closeConnection = true
        #expect(did(machine.handlerCompleted(response)) == [.write(200, close: true), .pause])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func requestWithoutKeepAliveClosesAfterItsResponse() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        #expect(
            machine.receive(request("/1", keepAlive: false)) == [
                .arm(.header), .arm(.body), .cancel, .pause, .start("/1"),
            ])
        #expect(machine.receive(request("/ignored")) == [])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: true)])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func http10KeepAliveContextAndHead() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1", method: .head, http10: true))
        let actions = machine.handlerCompleted(.text("x"))
        guard case .write(_, let context) = actions.first else {
            Issue.record("expected a write, got \(did(actions))")
            return
        }
        #expect(context == HTTPResponseContext(isHeadRequest: true, isHTTP10: true, closeConnection: false))
    }

    @Test func writeFailureCloses() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.receive(request("/2"))
        _ = machine.handlerCompleted(.text("1"))
        #expect(did(machine.writeCompleted(success: false)) == [.close])
        #expect(did(machine.handlerCompleted(.text("2"))) == [])
    }

    @Test func expectContinueOnAnIdleConnectionIsSentAtOnce() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.requestStarted()
        #expect(did(machine.headersComplete(expectsContinue: true)) == [.continue100, .arm(.body)])
        #expect(did(machine.requestReceived(request("/upload", method: .post))) == [.cancel, .start("/upload")])
    }

    @Test func expectContinueBehindAnotherResponseWaitsForIt() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.requestStarted()
        #expect(did(machine.headersComplete(expectsContinue: true)) == [.cancel])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .continue100, .arm(.body)])
        #expect(did(machine.requestReceived(request("/upload", method: .post))) == [.cancel, .start("/upload")])
    }

    @Test func expectContinueIsNotSentWhenTheBodyArrivedAnyway() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.requestStarted()
        _ = machine.headersComplete(expectsContinue: true)
        _ = machine.requestReceived(request("/upload", method: .post))
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .start("/upload")])
    }

    @Test func shutdownClosesAnIdleConnectionAtOnce() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        #expect(did(machine.shutdownRequested()) == [.close])
        #expect(machine.isClosed)
    }

    @Test func shutdownWaitsForTheInFlightResponseAndDropsTheQueue() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.receive(request("/2"))
        #expect(did(machine.shutdownRequested()) == [.pause])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: true)])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func shutdownLetsARequestBeingReceivedFinish() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.requestStarted()
        #expect(did(machine.shutdownRequested()) == [])
        _ = machine.headersComplete(expectsContinue: false)
        #expect(did(machine.requestReceived(request("/1"))) == [.cancel, .pause, .start("/1")])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: true)])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func shutdownAfterTheLastResponseWaitsForItsWrite() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.handlerCompleted(.text("1"))
        #expect(did(machine.shutdownRequested()) == [.cancel, .pause])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func peerEndOfInputWhenIdleCloses() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        #expect(did(machine.peerClosed()) == [.cancel, .close])
    }

    @Test func peerEndOfInputStillAnswersReceivedRequests() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.receive(request("/2"))
        _ = machine.requestStarted()
        #expect(did(machine.peerClosed()) == [.cancel])
        #expect(did(machine.handlerCompleted(.text("1"))) == [.write(200, close: false), .start("/2")])
        #expect(did(machine.handlerCompleted(.text("2"))) == [.write(200, close: true), .pause])
        #expect(did(machine.writeCompleted(success: true)) == [])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }

    @Test func peerEndOfInputWithWritesPendingClosesAfterThem() {
        var machine = HTTPConnectionStateMachine()
        _ = machine.start()
        _ = machine.receive(request("/1"))
        _ = machine.handlerCompleted(.text("1"))
        #expect(did(machine.peerClosed()) == [.cancel])
        #expect(did(machine.writeCompleted(success: true)) == [.close])
    }
}
