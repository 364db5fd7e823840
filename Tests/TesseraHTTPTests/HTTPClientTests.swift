import Logging
import Synchronization
import TesseraHTTP
import TesseraLoop
import Testing

/// The repo's HTTPServer on a one-loop group, and an HTTPClient on the same group.
struct ClientFixture {
    let group: EventLoopGroup
    let server: HTTPServer
    let client: HTTPClient

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    static func start(
        router: HTTPRouter = ClientFixture.router(),
        configuration: HTTPClientConfiguration = HTTPClientConfiguration()
    ) async throws -> ClientFixture {
        let group = try EventLoopGroup(loopCount: 1)
        let server = HTTPServer(
            name: "client-test", loops: group.loops, host: "127.0.0.1", port: 0, router: router,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        do {
            try await server.start()
            let client = try HTTPClient(group: group, configuration: configuration)
            return ClientFixture(group: group, server: server, client: client)
        } catch {
            await server.shutdown(gracePeriod: .zero)
            group.shutdown()
            throw error
        }
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(1))
        group.shutdown()
    }

    /// `POST /echo` answers the body with the request's method, content type and loop; `GET /status?code=N`
    /// answers status N; `GET /slow` answers after 300 ms.
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.on(
            .post, "/echo",
            immediate: { request in
                var response = HTTPResponse(status: .ok, body: request.body)
                response.headers.add(name: "X-Content-Type", value: request.headers["Content-Type"] ?? "none")
                response.headers.add(name: "X-Connection", value: request.headers["Connection"] ?? "none")
                response.headers.add(name: "X-User-Agent", value: request.headers["User-Agent"] ?? "none")
                return response
            })
        router.on(
            .get, "/status",
            immediate: { request in
                let code = Int((try? request.queryItems()["code"]) ?? nil ?? "") ?? 500
                return .text("status \(code)", status: HTTPStatus(code: code))
            })
        router.on(
            .get, "/slow",
            handler: { _ in
                try? await Task.sleep(for: .milliseconds(600))
                return .text("finally")
            })
        return router
    }
}

/// The error a throwing call threw, as an HTTPClientError.
func clientError(_ work: () async throws(HTTPClientError) -> HTTPClientResponse) async -> HTTPClientError? {
    do {
        _ = try await work()
        return nil
    } catch {
        return error
    }
}

@Suite struct HTTPClientTests {
    @Test func postsABodyAndReadsAContentLengthResponse() async throws {
        let fixture = try await ClientFixture.start()
        let request = HTTPClientRequest(
            method: .post, url: fixture.baseURL + "/echo", headers: ["Content-Type": "application/json"],
            body: Array(#"{"to":"+15555550100"}"#.utf8))
        let response = try await fixture.client.send(request, timeout: .seconds(2))
        #expect(response.status.code == 200)
        #expect(response.isSuccess)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"to":"+15555550100"}"#)
        #expect(response.headers["X-Content-Type"] == "application/json")
        #expect(response.headers["X-Connection"] == "close")
        #expect(response.headers["X-User-Agent"] == "Tessera")
        await fixture.stop()
    }

    @Test func returnsErrorStatusesAsResponses() async throws {
        let fixture = try await ClientFixture.start()
        for code in [404, 500, 503] {
            let response = try await fixture.client.send(
                HTTPClientRequest(url: fixture.baseURL + "/status?code=\(code)"), timeout: .seconds(2))
            #expect(response.status.code == code)
            #expect(!response.isSuccess)
            #expect(String(decoding: response.body, as: UTF8.self) == "status \(code)")
        }
        await fixture.stop()
    }

    @Test func worksFromALoopOfTheGroupAndFromAnyOtherTask() async throws {
        let fixture = try await ClientFixture.start()
        let client = fixture.client
        let url = fixture.baseURL + "/status?code=200"
        let onLoop = try await Task(executorPreference: fixture.group.loops[0]) {
            #expect(EventLoop.current === fixture.group.loops[0])
            let response = try await client.send(HTTPClientRequest(url: url), timeout: .seconds(2))
            #expect(EventLoop.current === fixture.group.loops[0])
            return response.status.code
        }.value
        let detached = try await Task.detached {
            try await client.send(HTTPClientRequest(url: url), timeout: .seconds(2)).status.code
        }.value
        #expect(onLoop == 200)
        #expect(detached == 200)
        await fixture.stop()
    }

    @Test func aSlowServerWithinTheTimeoutSucceedsAndBeyondItTimesOut() async throws {
        let fixture = try await ClientFixture.start()
        let url = fixture.baseURL + "/slow"
        let response = try await fixture.client.send(HTTPClientRequest(url: url), timeout: .seconds(2))
        #expect(String(decoding: response.body, as: UTF8.self) == "finally")
        let started = ContinuousClock.now
        let error = await clientError { () async throws(HTTPClientError) in
            try await fixture.client.send(HTTPClientRequest(url: url), timeout: .milliseconds(100))
        }
        #expect(error == .timeout(.milliseconds(100)))
        #expect(ContinuousClock.now - started < .milliseconds(500), "the timeout, not the 600-ms answer, ends the call")
        await fixture.stop()
    }

    @Test func aServerThatNeverAnswersTimesOutAndIsDisconnected() async throws {
        let server = try await ScriptedServer.start { _ in .silence }
        let client = try HTTPClient(group: server.group)
        let error = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: server.url + "/hang"), timeout: .milliseconds(150))
        }
        #expect(error == .timeout(.milliseconds(150)))
        #expect(error?.description == "no complete response within 0.15 seconds")
        #expect(server.requests.count == 1)
        await server.stop()
    }

    @Test func readsAChunkedResponseArrivingInPieces() async throws {
        let server = try await ScriptedServer.start { _ in
            .sendPieces([
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n",
                "6\r\nchunk-", "\r\n", "3\r\nend\r\n", "0\r\n\r\n",
            ])
        }
        let client = try HTTPClient(group: server.group)
        let response = try await client.send(HTTPClientRequest(url: server.url + "/chunked"), timeout: .seconds(2))
        #expect(String(decoding: response.body, as: UTF8.self) == "chunk-end")
        #expect(response.headers["Content-Type"] == "text/plain")
        #expect(server.requests.first?.hasPrefix("GET /chunked HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n") == true)
        await server.stop()
    }

    @Test func readsABodyDelimitedByTheEndOfTheConnection() async throws {
        let server = try await ScriptedServer.start { _ in .send("HTTP/1.0 200 OK\r\n\r\nuntil the end", close: true) }
        let client = try HTTPClient(group: server.group)
        let response = try await client.send(HTTPClientRequest(url: server.url), timeout: .seconds(2))
        #expect(String(decoding: response.body, as: UTF8.self) == "until the end")
        await server.stop()
    }

    @Test func malformedAndTruncatedResponsesFailClearly() async throws {
        let server = try await ScriptedServer.start { request in
            request.hasPrefix("GET /garbage")
                ? .send("SMTP ready\r\n\r\n", close: true)
                : .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", close: true)
        }
        let client = try HTTPClient(group: server.group)
        let garbage = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: server.url + "/garbage"), timeout: .seconds(2))
        }
        guard case .malformedResponse? = garbage else {
            Issue.record("expected a malformed response, got \(String(describing: garbage))")
            return
        }
        let truncated = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: server.url + "/truncated"), timeout: .seconds(2))
        }
        #expect(truncated == .malformedResponse(reason: "the connection closed before the response was complete"))
        await server.stop()
    }

    @Test func aResponseOverTheConfiguredLimitFails() async throws {
        let body = String(repeating: "x", count: 2000)
        let server = try await ScriptedServer.start { _ in
            .send("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", close: true)
        }
        let configuration = HTTPClientConfiguration(maxResponseBodyBytes: 1000)
        let client = try HTTPClient(group: server.group, configuration: configuration)
        let error = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: server.url), timeout: .seconds(2))
        }
        #expect(error == .responseTooLarge(limit: 1000))
        await server.stop()
    }

    @Test func aClosedPortIsRefused() async throws {
        let port = try await unusedPort()
        let group = try EventLoopGroup(loopCount: 1)
        let client = try HTTPClient(group: group)
        let error = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), timeout: .seconds(2))
        }
        #expect(error == .connectionRefused(host: "127.0.0.1", port: port))
        #expect(error?.description == "connection refused by 127.0.0.1:\(port)")
        group.shutdown()
    }

    @Test func anInvalidNameFailsResolution() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let client = try HTTPClient(group: group)
        let error = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: "http://tessera-test.invalid/hook"), timeout: .seconds(3))
        }
        guard case .dnsFailure(let host, _)? = error else {
            Issue.record("expected a DNS failure, got \(String(describing: error))")
            group.shutdown()
            return
        }
        #expect(host == "tessera-test.invalid")
        group.shutdown()
    }

    @Test func badURLsAndRequestsFailBeforeAnyConnection() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let client = try HTTPClient(group: group)
        let badURL = await clientError { () async throws(HTTPClientError) in
            try await client.send(HTTPClientRequest(url: "ftp://example.com/"), timeout: .seconds(1))
        }
        #expect(badURL == .invalidURL(reason: "the scheme must be http or https"))
        let badHeader = await clientError { () async throws(HTTPClientError) in
            try await client.send(
                HTTPClientRequest(url: "http://127.0.0.1:1/", headers: ["X": "a\nb"]), timeout: .seconds(1))
        }
        #expect(badHeader == .invalidRequest(reason: "the value of header field X contains CR, LF or NUL"))
        group.shutdown()
    }

    @Test func cancellingTheTaskClosesTheExchange() async throws {
        let server = try await ScriptedServer.start { _ in .silence }
        let client = try HTTPClient(group: server.group)
        let url = server.url
        let task = Task { () async -> HTTPClientError? in
            await clientError { () async throws(HTTPClientError) in
                try await client.send(HTTPClientRequest(url: url), timeout: .seconds(5))
            }
        }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let started = ContinuousClock.now
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(ContinuousClock.now - started < .seconds(1))
        await server.stop()
    }

    @Test func anUnreadableCAFileFailsAtCreation() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let configuration = HTTPClientConfiguration(trustRoots: .certificateFile(path: "/nonexistent/ca.pem"))
        #expect {
            try HTTPClient(group: group, configuration: configuration)
        } throws: { error in
            guard case .tlsSetupFailed(let reason) = error as? HTTPClientError else { return false }
            return reason.contains("/nonexistent/ca.pem")
        }
    }
}

/// A port on 127.0.0.1 that nothing listens on: bound once by a listener that is closed again.
func unusedPort() async throws -> Int {
    let group = try EventLoopGroup(loopCount: 1)
    defer { group.shutdown() }
    let loop = group.loops[0]
    return try await loop.submit {
        let listener = try TCPListener(loop: loop, host: "127.0.0.1", port: 0) { _ in }
        let port = listener.localPort
        listener.close()
        return port
    }
}
