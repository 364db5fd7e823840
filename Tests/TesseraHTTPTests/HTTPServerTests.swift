import Glibc
import Logging
import Synchronization
import TesseraLoop
import Testing

@testable import TesseraHTTP

/// A server on a fresh two-loop group, port 0, with short timeouts; stopped by ``stop()``.
struct RunningServer {
    let group: EventLoopGroup
    let server: HTTPServer
    let handlerStarted: Flag
    /// Set by `/endless` when its handler's task is cancelled.
    let handlerCancelled: Flag

    static func start(
        configuration: HTTPServerConfiguration = .forTests,
        logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    ) async throws -> RunningServer {
        let group = try EventLoopGroup(loopCount: 2)
        let handlerStarted = Flag()
        let handlerCancelled = Flag()
        let server = HTTPServer(
            name: "test", loops: group.loops, host: "127.0.0.1", port: 0, configuration: configuration,
            router: testRouter(handlerStarted: handlerStarted, handlerCancelled: handlerCancelled), logger: logger
        )
        do {
            try await server.start()
        } catch {
            group.shutdown()
            throw error
        }
        return RunningServer(
            group: group, server: server, handlerStarted: handlerStarted, handlerCancelled: handlerCancelled)
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(1))
        group.shutdown()
    }

    /// Runs `work` with a client connected to the server, on a thread of its own.
    func withClient<T: Sendable>(_ work: @escaping @Sendable (BlockingClient) throws -> T) async throws -> T {
        let port = server.port
        return try await onThread { try work(BlockingClient(port: port)) }
    }
}

/// A thread-safe boolean set by a handler and watched by a test.
final class Flag: Sendable {
    let value = Atomic(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}

extension HTTPServerConfiguration {
    static let forTests = HTTPServerConfiguration(
        maxHeaderBytes: 2048, maxBodyBytes: 4096, headerTimeout: .milliseconds(300), bodyTimeout: .milliseconds(300),
        writeTimeout: .milliseconds(300), idleTimeout: .seconds(5)
    )
}

func testRouter(handlerStarted: Flag, handlerCancelled: Flag) -> HTTPRouter {
    var router = HTTPRouter()
    router.on(.get, "/hello", immediate: { _ in .text("hello") })
    router.on(.get, "/loop", immediate: { _ in .text(EventLoop.current.map { "\($0.index)" } ?? "none") })
    router.on(
        .post, "/echo",
        handler: { request in
            await Task.yield()
            var response = HTTPResponse(status: .ok, body: request.body)
            response.headers.add(name: "X-On-Loop", value: EventLoop.current == nil ? "no" : "yes")
            return response
        })
    router.on(
        .get, "/delay",
        handler: { request in
            let milliseconds = Int((try? request.queryItems()["ms"]) ?? nil ?? "0") ?? 0
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return .text(request.target)
        })
    router.on(
        .get, "/slow",
        handler: { _ in
            handlerStarted.set()
            try? await Task.sleep(for: .milliseconds(400))
            return .text("finally")
        })
    router.on(
        .get, "/endless",
        handler: { _ in
            handlerStarted.set()
            do { try await Task.sleep(for: .seconds(60)) } catch { handlerCancelled.set() }
            return .text("finally")
        })
    router.on(
        .get, "/huge",
        immediate: { _ in
            HTTPResponse(status: .ok, body: Array(repeating: 0x61, count: 64 << 20))
        })
    // The request's id, the id in scope and the request-id the logging metadata provider adds, as headers.
    let ids: @Sendable (HTTPRequest) -> HTTPResponse = { request in
        var response = HTTPResponse.text("ids")
        response.headers.add(name: "X-Request-Id", value: request.id)
        response.headers.add(name: "X-Scope-Id", value: RequestScope.id ?? "none")
        response.headers.add(
            name: "X-Log-Id", value: RequestScope.metadataProvider.get()["request-id"].map { "\($0)" } ?? "none")
        return response
    }
    router.on(.get, "/ids", immediate: ids)
    router.on(
        .post, "/ids",
        handler: { request in
            await Task.yield()
            return ids(request)
        })
    router.on(
        .get, "/bad-header",
        immediate: { _ in
            HTTPResponse(status: .found, headers: ["Location": "/x\r\nSet-Cookie: injected=1"])
        })
    return router
}

/// Keeps every log line (message and metadata) in memory.
struct CapturingLogHandler: LogHandler {
    let lines: LogLines
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.append("\(event.message) \(fields.joined(separator: " "))")
    }
}

final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite(.serialized) struct HTTPServerTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let running = try await RunningServer.start()
        let bodies = try await running.withClient { client in
            var bodies: [String] = []
            for _ in 0..<3 {
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                guard response.status == 200, response.header("Connection") == nil else {
                    throw ClientError(description: "unexpected \(response.status) \(response.headers)")
                }
                bodies.append(response.body)
            }
            try client.send("POST /echo HTTP/1.1\r\nContent-Length: 4\r\n\r\nping")
            let echo = try client.readResponse()
            bodies.append(echo.body + " " + (echo.header("X-On-Loop") ?? "?"))
            return bodies
        }
        #expect(bodies == ["hello", "hello", "hello", "ping yes"])
        await running.stop()
    }

    @Test func tenPipelinedRequestsInOneWriteAreAnsweredInOrder() async throws {
        let running = try await RunningServer.start()
        let targets = (0..<10).map { index in index % 3 == 0 ? "/hello" : "/delay?ms=\((10 - index) * 5)" }
        let bodies = try await running.withClient { client in
            try client.send(targets.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            return try targets.map { _ in try client.readResponse().body }
        }
        #expect(bodies == targets.map { $0 == "/hello" ? "hello" : $0 })
        await running.stop()
    }

    @Test func oversizedHeadersAre431AndClose() async throws {
        let running = try await RunningServer.start()
        let (status, connection, closed) = try await running.withClient { client in
            try client.send("GET /hello HTTP/1.1\r\nX-Big: " + String(repeating: "x", count: 3000) + "\r\n\r\n")
            let response = try client.readResponse()
            return (response.status, response.header("Connection"), try client.isClosedByPeer())
        }
        #expect(status == 431)
        #expect(connection == "close")
        #expect(closed)
        await running.stop()
    }

    @Test func oversizedBodyIs413() async throws {
        let running = try await RunningServer.start()
        let (status, closed) = try await running.withClient { client in
            try client.send("POST /echo HTTP/1.1\r\nContent-Length: 5000\r\n\r\n")
            let response = try client.readResponse()
            return (response.status, try client.isClosedByPeer())
        }
        #expect(status == 413)
        #expect(closed)
        await running.stop()
    }

    @Test func slowHeadersAreCutOffWith408() async throws {
        let running = try await RunningServer.start()
        let (status, closed) = try await running.withClient { client in
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
            let response = try client.readResponse()
            return (response.status, try client.isClosedByPeer())
        }
        #expect(status == 408)
        #expect(closed)
        await running.stop()
    }

    @Test func aBodyAnnouncedAndNotSentIsCutOffWith408() async throws {
        let running = try await RunningServer.start()
        let (status, body, closed) = try await running.withClient { client in
            // Headers complete, a body announced, then nothing: before, the connection stayed open for good.
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4000\r\n\r\nabc")
            let response = try client.readResponse()
            return (response.status, response.body, try client.isClosedByPeer())
        }
        #expect(status == 408)
        #expect(body == "request body not received in time\n")
        #expect(closed)
        await running.stop()
    }

    @Test func aClientThatNeverReadsIsDroppedOnceItsResponseStalls() async throws {
        let running = try await RunningServer.start()
        let client = try await running.withClient { client in
            // 64 MiB answer, never read: the kernel's buffers fill and the write makes no progress.
            try client.send("GET /huge HTTP/1.1\r\nHost: t\r\n\r\n")
            return SendableClient(client)
        }
        try await waitForConnections(running.server, 1)
        // The write timeout (300 ms) drops it; before, it stayed open as long as the client liked.
        try await waitForConnections(running.server, 0, within: .seconds(5))
        _ = client
        await running.stop()
    }

    @Test func connectionsBeyondTheClientsShareAreAnswered503() async throws {
        var configuration = HTTPServerConfiguration.forTests
        configuration.maxConnectionsPerClient = 2
        let running = try await RunningServer.start(configuration: configuration)
        let held = try await running.withClient { first in
            let second = try BlockingClient(port: first.port)
            try first.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try first.readResponse()
            try second.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try second.readResponse()
            return (SendableClient(first), SendableClient(second))
        }
        let (status, retryAfter, closed) = try await running.withClient { third in
            let response = try third.readResponse()
            return (response.status, response.header("Retry-After"), try third.isClosedByPeer())
        }
        #expect(status == 503 && retryAfter == "1" && closed)
        // A connection closed gives its place back.
        _ = held
        try await waitForConnections(running.server, 2)
        await onThreadClose(held.0)
        try await waitForConnections(running.server, 1)
        let status4 = try await running.withClient { fourth in
            try fourth.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            return try fourth.readResponse().status
        }
        #expect(status4 == 200)
        _ = held.1
        await running.stop()
    }

    /// Eight connections kept open are served four on each loop; once loop 1's four close, the next four are all
    /// served there. (The kernel's hash of their addresses, which picked the loop before, did both about one time in
    /// sixty.)
    @Test func connectionsKeptOpenAreServedByTheLoopWithTheFewest() async throws {
        let running = try await RunningServer.start()
        let port = running.server.port
        let connect = { @Sendable (count: Int) async throws -> [(loop: String, client: SendableClient)] in
            try await onThread {
                try (0..<count).map { _ in
                    let client = try BlockingClient(port: port)
                    try client.send("GET /loop HTTP/1.1\r\nHost: t\r\n\r\n")
                    return (try client.readResponse().body, SendableClient(client))
                }
            }
        }
        let first = try await connect(8)
        #expect(first.map(\.loop).sorted() == ["0", "0", "0", "0", "1", "1", "1", "1"])
        for held in first where held.loop == "1" { await onThreadClose(held.client) }
        try await waitForConnections(running.server, 4)
        let second = try await connect(4)
        #expect(second.map(\.loop) == ["1", "1", "1", "1"])
        for held in first + second { await onThreadClose(held.client) }
        await running.stop()
    }

    @Test func theServersConnectionCapHoldsForExemptPeersToo() async throws {
        var configuration = HTTPServerConfiguration.forTests
        configuration.maxConnections = 1
        configuration.connectionLimitExemptions = [try #require(IPNetwork(parsing: "127.0.0.0/8"))]
        let running = try await RunningServer.start(configuration: configuration)
        let held = try await running.withClient { first in
            try first.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try first.readResponse()
            return SendableClient(first)
        }
        let status = try await running.withClient { second in try second.readResponse().status }
        #expect(status == 503)
        _ = held
        await running.stop()
    }

    @Test func malformedRequestLineIs400AndClose() async throws {
        let running = try await RunningServer.start()
        let (first, second, closed) = try await running.withClient { client in
            try client.send("GET /hello HTTP/1.1\r\n\r\nNOT A REQUEST\r\n\r\n")
            let first = try client.readResponse()
            let second = try client.readResponse()
            return (first.status, second.status, try client.isClosedByPeer())
        }
        #expect(first == 200)
        #expect(second == 400)
        #expect(closed)
        await running.stop()
    }

    @Test func idleConnectionIsClosedSilently() async throws {
        let configuration = HTTPServerConfiguration(idleTimeout: .milliseconds(200))
        let running = try await RunningServer.start(configuration: configuration)
        let (status, closed, leftover) = try await running.withClient { client in
            try client.send("GET /hello HTTP/1.1\r\n\r\n")
            let status = try client.readResponse().status
            return (status, try client.isClosedByPeer(), client.buffer.count)
        }
        #expect(status == 200)
        #expect(closed)
        #expect(leftover == 0)
        await running.stop()
    }

    @Test func headAnswersWithLengthButNoBody() async throws {
        let running = try await RunningServer.start()
        let (head, next) = try await running.withClient { client in
            try client.send("HEAD /hello HTTP/1.1\r\n\r\nGET /hello HTTP/1.1\r\n\r\n")
            let head = try client.readResponse(head: true)
            let next = try client.readResponse()
            return (head, next)
        }
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "5")
        #expect(head.body.isEmpty)
        #expect(next.body == "hello")
        await running.stop()
    }

    @Test func expectContinueGetsAnInterimResponse() async throws {
        let running = try await RunningServer.start()
        let (interim, final) = try await running.withClient { client in
            try client.send("POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = try client.readResponse()
            try client.send("hello")
            return (interim, try client.readResponse())
        }
        #expect(interim.status == 100)
        #expect(final.status == 200)
        #expect(final.body == "hello")
        await running.stop()
    }

    @Test func unknownExpectationIs417() async throws {
        let running = try await RunningServer.start()
        let status = try await running.withClient { client in
            try client.send("POST /echo HTTP/1.1\r\nExpect: teapot\r\nContent-Length: 5\r\n\r\nhello")
            return try client.readResponse().status
        }
        #expect(status == 417)
        await running.stop()
    }

    @Test func chunkedRequestBody() async throws {
        let running = try await RunningServer.start()
        let body = try await running.withClient { client in
            try client.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n")
            try client.send("6\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n")
            return try client.readResponse().body
        }
        #expect(body == "Wikipedia in \r\n\r\nchunks.")
        await running.stop()
    }

    @Test func http10WithoutKeepAliveCloses() async throws {
        let running = try await RunningServer.start()
        let (connection, closed) = try await running.withClient { client in
            try client.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try client.readResponse()
            return (response.header("Connection"), try client.isClosedByPeer())
        }
        #expect(connection == "close")
        #expect(closed)
        await running.stop()
    }

    @Test func unknownPathAndWrongMethod() async throws {
        let running = try await RunningServer.start()
        let (missing, wrong) = try await running.withClient { client in
            try client.send("GET /nope HTTP/1.1\r\n\r\nDELETE /hello HTTP/1.1\r\n\r\n")
            return (try client.readResponse(), try client.readResponse())
        }
        #expect(missing.status == 404)
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD")
        await running.stop()
    }

    @Test func responsesThatCannotBeEncodedBecome500() async throws {
        let running = try await RunningServer.start()
        let (response, next) = try await running.withClient { client in
            try client.send("GET /bad-header HTTP/1.1\r\n\r\nGET /hello HTTP/1.1\r\n\r\n")
            return (try client.readResponse(), try client.readResponse())
        }
        #expect(response.status == 500)
        #expect(response.header("Set-Cookie") == nil)
        #expect(next.body == "hello")
        await running.stop()
    }

    @Test func everyRequestHasAnIdInScopeAndInItsLogLineWhileItIsHandled() async throws {
        let lines = LogLines()
        let running = try await RunningServer.start(
            logger: Logger(label: "test") { _ in
                CapturingLogHandler(lines: lines)
            })
        let responses = try await running.withClient { client in
            try client.send("GET /ids HTTP/1.1\r\n\r\n")
            let first = try client.readResponse()
            try client.send("POST /ids HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            return [first, try client.readResponse()]
        }
        let ids = responses.map { $0.header("X-Request-Id") ?? "" }
        #expect(Set(ids).count == 2)
        for response in responses {
            let id = try #require(response.header("X-Request-Id"))
            #expect(id.count == 16 && id.allSatisfy(\.isHexDigit))
            #expect(response.header("X-Scope-Id") == id)
            #expect(response.header("X-Log-Id") == id)
        }
        let logged = lines.all.filter { $0.hasPrefix("request ") }
        for id in ids { #expect(logged.contains { $0.contains("request=\(id)") }, "\(logged)") }
        #expect(RequestScope.id == nil)
        await running.stop()
    }

    @Test func requestsAreLoggedWithoutBodiesOrCredentials() async throws {
        let lines = LogLines()
        let running = try await RunningServer.start(
            logger: Logger(label: "test") { _ in
                CapturingLogHandler(lines: lines)
            })
        let status = try await running.withClient { client in
            try client.send("POST /echo?token=q HTTP/1.1\r\nAuthorization: Bearer s3cret\r\n")
            try client.send("Content-Length: 6\r\n\r\nhidden")
            return try client.readResponse().status
        }
        #expect(status == 200)
        let requestLines = lines.all.filter { $0.hasPrefix("request ") }
        #expect(requestLines.count == 1)
        let line = try #require(requestLines.first)
        for expected in ["method=POST", "path=/echo", "status=200", "server=test", "duration_ms=", "request="] {
            #expect(line.contains(expected), "\(line)")
        }
        #expect(!lines.all.contains { $0.contains("s3cret") || $0.contains("hidden") || $0.contains("token=q") })
        await running.stop()
    }

    @Test func shutdownLetsTheInFlightResponseFinishAndRefusesNewConnections() async throws {
        let running = try await RunningServer.start()
        let port = running.server.port
        let client = try await onThread { () -> SendableClient in
            let client = try BlockingClient(port: port)
            try client.send("GET /slow HTTP/1.1\r\n\r\n")
            return SendableClient(client)
        }
        let idle = try await onThread { SendableClient(try BlockingClient(port: port)) }
        while !running.handlerStarted.isSet {
            try await Task.sleep(for: .milliseconds(5))
        }
        async let stopped: Void = running.server.shutdown(gracePeriod: .seconds(3))
        let (response, closed, idleClosed) = try await onThread {
            let response = try client.client.readResponse()
            return (response, try client.client.isClosedByPeer(), try idle.client.isClosedByPeer())
        }
        await stopped
        #expect(response.status == 200)
        #expect(response.body == "finally")
        #expect(response.header("Connection") == "close")
        #expect(closed)
        #expect(idleClosed)
        await #expect(throws: ClientError.self) { try await onThread { _ = try BlockingClient(port: port) } }
        running.group.shutdown()
    }

    @Test func shutdownAbortsRequestsPastTheGracePeriod() async throws {
        let running = try await RunningServer.start()
        let port = running.server.port
        let client = try await onThread { () -> SendableClient in
            let client = try BlockingClient(port: port)
            try client.send("GET /endless HTTP/1.1\r\n\r\n")
            return SendableClient(client)
        }
        while !running.handlerStarted.isSet {
            try await Task.sleep(for: .milliseconds(5))
        }
        // The handler would sleep a minute: past the grace period its task is cancelled and its connection closed
        // without an answer. Judged by what happened to it, not by a clock.
        await running.server.shutdown(gracePeriod: .milliseconds(50))
        for _ in 0..<500 where !running.handlerCancelled.isSet {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(running.handlerCancelled.isSet, "the handler's task is cancelled")
        let gotResponse = try await onThread { () -> Bool in
            (try? client.client.readResponse()) != nil
        }
        #expect(!gotResponse)
        running.group.shutdown()
    }

    @Test func startingTwiceOrOnABadAddressFails() async throws {
        let running = try await RunningServer.start()
        await #expect(throws: HTTPServerError.self) { try await running.server.start() }
        let group = try EventLoopGroup(loopCount: 1)
        // The port is taken (with SO_REUSEPORT on both listeners, the kernel let a second server share it).
        let second = HTTPServer(
            name: "second", loops: group.loops, host: "127.0.0.1", port: running.server.port, router: HTTPRouter(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        await #expect(throws: HTTPServerError.self) { try await second.start() }
        let invalid = HTTPServer(
            name: "invalid", loops: group.loops, host: "not-an-address", port: 0, router: HTTPRouter(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        await #expect(throws: HTTPServerError.self) { try await invalid.start() }
        group.shutdown()
        await running.stop()
    }
}

/// Waits until `server` counts `count` open connections; fails after `within`.
func waitForConnections(_ server: HTTPServer, _ count: Int, within limit: Duration = .seconds(3)) async throws {
    let deadline = ContinuousClock.now + limit
    while server.limits.snapshot.total != count {
        guard ContinuousClock.now < deadline else {
            Issue.record("the server holds \(server.limits.snapshot.total) connections, not \(count)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Closes a held client's socket from a thread of its own.
func onThreadClose(_ held: SendableClient) async {
    _ = try? await onThread { held.client.close() }
}

/// Hands a blocking client from one test thread to another; only one thread uses it at a time.
struct SendableClient: @unchecked Sendable {
    let client: BlockingClient
    init(_ client: BlockingClient) { self.client = client }
}
